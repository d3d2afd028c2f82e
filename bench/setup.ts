/**
 * The bench's fixed world: markets, accounts and the clock, shared by the stream generator,
 * the runners and the memory probe.
 */
import type { MarketDef } from '../engine/types.ts';

export const MARKETS = 10;
/** Tick-indexed book span: prices stay far inside 0 .. 20,000 ticks (0 .. 200 USD). */
export const PRICE_SPAN = 20_000;
/** 100.00 USD at a 0.01 tick: sizes of 0.1-2 units clear the 5 USD minimum notional. */
export const START_MID = 10_000;

/** Resting orders are spread over this many accounts so none nears the 1,000-per-market cap. */
export const MAKER_ACCOUNTS = 2_000;
/** Takers never rest, and never share an account with a maker: no self-trade rejections. */
export const TAKER_ACCOUNTS = 100;
export const ACCOUNTS = MAKER_ACCOUNTS + TAKER_ACCOUNTS;

export const START_TIME_US = 1_700_000_000_000_000;
/** The venue wants goodTilTime at least 30 days ahead; 40 leaves room for the clock to run. */
export const GTT_AHEAD_US = 40 * 86_400_000_000;

export function marketId(m: number): number {
  return m + 1;
}

export function marketDefs(): MarketDef[] {
  const defs: MarketDef[] = [];
  for (let m = 0; m < MARKETS; m++) {
    defs.push({
      id: marketId(m),
      displayName: `BENCH${m}-USD`,
      baseAsset: `BENCH${m}`,
      status: 'ONLINE',
      category: 'CRYPTO',
      tickSize: '0.01',
      stepSize: '0.001',
      tickTiers: [{ tick: '0.01' }],
      minOrderNotional: '5',
      minOrderSize: '0.001',
      maxOrderSize: '1000000',
      initialMarginFraction: '0.05',
      maintenanceMarginFraction: '0.033334',
      offHoursInitialMarginFraction: '0.05',
      regularTradingHours: null,
      addedTimestamp: 1_700_000_000,
    });
  }
  return defs;
}

/**
 * Ten subaccounts per address, like a venue user would have; addresses are distinct
 * lowercase 40-hex strings built once so the hot loops only pass references.
 */
export interface Account {
  address: string;
  accountIndex: number;
}

export function accounts(): Account[] {
  const out: Account[] = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const owner = Math.floor(a / 10);
    // A flat string, as a parsed request's would be: a concatenation stays a two-part cons
    // string, whose every hash-table comparison reads three objects instead of one.
    out.push({
      address: JSON.parse(JSON.stringify('0x' + (0xbe0c0000 + owner).toString(16).padStart(40, '0'))) as string,
      accountIndex: a % 10,
    });
  }
  return out;
}
