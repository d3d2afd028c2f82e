/**
 * Fees: maker/taker rates in ppm of notional by fee tier, tiers by rolling 30-day volume.
 *
 * Contract: `tierFor` picks the highest tier whose volume requirement the account meets; `fee`
 * charges ppm of a fill's notional, rounded up for a charge and down for a rebate (a negative
 * rate), so the exchange never pays out a fraction of a quote quantum it did not collect.
 * The default schedule (docs/decisions.md) is modelled on public perp venues.
 */
import { floorDivExact, mulExact } from './money.ts';
import type { FeeTier } from './types.ts';

const USD = 1_000_000_000n;

export const DEFAULT_FEE_TIERS: FeeTier[] = [
  { name: 'Tier 1', minVolume: 0n, makerFeePpm: 150, takerFeePpm: 450 },
  { name: 'Tier 2', minVolume: 5_000_000n * USD, makerFeePpm: 120, takerFeePpm: 400 },
  { name: 'Tier 3', minVolume: 25_000_000n * USD, makerFeePpm: 80, takerFeePpm: 350 },
  { name: 'Tier 4', minVolume: 100_000_000n * USD, makerFeePpm: 40, takerFeePpm: 300 },
  { name: 'Tier 5', minVolume: 500_000_000n * USD, makerFeePpm: 0, takerFeePpm: 250 },
];

export function tierFor(tiers: readonly FeeTier[], rollingVolume: bigint): FeeTier {
  let tier = tiers[0]!;
  for (let i = 1; i < tiers.length; i++) if (rollingVolume >= tiers[i]!.minVolume) tier = tiers[i]!;
  return tier;
}

export function fee(value: bigint, ppm: number): bigint {
  if (ppm === 0) return 0n;
  const product = value * BigInt(ppm);
  return ppm > 0 ? (product + 999_999n) / 1_000_000n : product / 1_000_000n;
}

/**
 * `fee` for a value given as an exact double (money.ts): the same integer, or NaN when the
 * product leaves the exact range and the bigint `fee` must decide.
 */
export function feeExact(value: number, ppm: number): number {
  if (ppm === 0) return 0;
  const product = mulExact(value, ppm > 0 ? ppm : -ppm);
  const q = floorDivExact(product, 1_000_000);
  if (ppm < 0) return -q;
  return q * 1_000_000 === product ? q : q + 1;
}

/** Validates a schedule: ascending volume requirements starting at 0. */
export function checkFeeTiers(tiers: readonly FeeTier[]): void {
  if (tiers.length === 0 || tiers[0]!.minVolume !== 0n) throw new Error('the first fee tier must start at volume 0');
  for (let i = 1; i < tiers.length; i++) {
    if (tiers[i]!.minVolume <= tiers[i - 1]!.minVolume) throw new Error('fee tiers must have increasing volume requirements');
  }
}
