/**
 * Funding: the hourly rate of a market and what one settlement pays.
 *
 * Rate (docs/decisions.md), the common clamp-and-average construction: each oracle update at
 * least `SAMPLE_US` after the previous sample takes a premium sample (mark − oracle) / oracle;
 * the hour's rate is P + clamp(I − P, −c, +c), P the average premium so far and I the interest
 * component, capped at ± cap. It is recomputed on every sample (predictedFunding rate1h) and
 * settles at every whole hour of engine time.
 *
 * Rates are integers in 1e-12. A payment is −size · oracle · valueMul · rate / 1e12 quote
 * quantums (positive = received): longs pay a positive rate. Payers' amounts round up and
 * receivers' round down, so one settlement never pays out more than it takes; the remainder
 * (a few quantums) goes to the insurance fund and the sum is exactly zero.
 */
import { plainRecord } from './plain-record.ts';

export const HOUR_US = 3_600_000_000;
const SAMPLE_US = 1_000_000;
const E12 = 1_000_000_000_000n;

export interface FundingState {
  /** Σ premium samples this hour (1e-12 units) and their count. */
  premiumSum: bigint;
  samples: number;
  lastSampleAt: number;
  /** The current hour's rate so far (the predicted rate), 1e-12 units. */
  rate: bigint;
  /** When the next settlement happens (a whole hour, µs). */
  nextAt: number;
  /** A rate fixed for this hour (setFundingRate): samples do not change it. */
  fixed: boolean;
}

export interface FundingParams {
  interestE12: bigint;
  clampE12: bigint;
  capE12: bigint;
}

const buildFundingState = plainRecord<FundingState>();

export function createFundingState(): FundingState {
  return buildFundingState({ premiumSum: 0n, samples: 0, lastSampleAt: -Infinity, rate: 0n, nextAt: 0, fixed: false });
}

export function nextHour(time: number): number {
  return Math.floor(time / HOUR_US) * HOUR_US + HOUR_US;
}

function clamp(value: bigint, lo: bigint, hi: bigint): bigint {
  return value < lo ? lo : value > hi ? hi : value;
}

/** Takes a premium sample if one is due; returns true when the predicted rate was recomputed. */
export function sampleFunding(st: FundingState, time: number, mark: number, oracle: number, params: FundingParams): boolean {
  if (st.fixed || oracle <= 0 || mark <= 0 || time - st.lastSampleAt < SAMPLE_US) return false;
  st.lastSampleAt = time;
  st.premiumSum += (BigInt(mark - oracle) * E12) / BigInt(oracle);
  st.samples++;
  const premium = st.premiumSum / BigInt(st.samples);
  const rate = premium + clamp(params.interestE12 - premium, -params.clampE12, params.clampE12);
  st.rate = clamp(rate, -params.capE12, params.capE12);
  return true;
}

/** Closes the hour: returns its rate and starts the next one. */
export function closeHour(st: FundingState, time: number): bigint {
  const rate = st.rate;
  st.premiumSum = 0n;
  st.samples = 0;
  st.rate = 0n;
  st.fixed = false;
  st.nextAt = nextHour(time);
  return rate;
}

/**
 * One position's payment at a settlement: positive = received. Payers round up, receivers
 * down (see the module note).
 */
export function fundingPayment(size: number, oracle: number, valueMul: bigint, rate: bigint): bigint {
  const exact = -BigInt(size) * BigInt(oracle) * valueMul * rate;
  if (exact >= 0n) return exact / E12;
  return -((-exact + E12 - 1n) / E12);
}
