/**
 * Positions: one account's state in one market, and what a fill does to it.
 *
 * Contract: `size` is signed quantums; `cost` is the signed cost basis of the open size in quote
 * quantums (positive for a long: paid; negative for a short: received), so the average entry
 * is |cost| / |size|. A fill of value V (price·size in quote quantums) changes
 * (quote − cost) by exactly −V for the buyer and +V for the seller, whatever it opens or
 * closes; that is what makes money conservation exact (docs/decisions.md):
 * - opening or adding: cost moves by ±V, nothing is realized;
 * - closing: the released basis r = |cost| · closed / |size| (rounded down, the remainder stays
 *   with the open part) is realized against the closing value; a flip splits V between the
 *   closing and the opening part in proportion to their sizes.
 *
 * The same record carries the account's per-market settings (leverage, cross/isolated, the
 * isolated margin pool), its resting-order exposure for initial margin, and funding totals.
 */
import { exactInteger, floorDivExact, mulExact } from './money.ts';
import type { PositionEffect } from './spec.ts';
import type { SideCode } from './types.ts';

export interface AccountMarket {
  slot: number;
  marketId: number;
  size: number;
  cost: bigint;
  /** `cost` as a double, kept in step for the float margin path (margin.ts). */
  costF: number;
  /** Realized PnL since the position opened (reset on open and flip). */
  realizedPnl: bigint;
  fundingAllTime: bigint;
  fundingSinceOpen: bigint;
  fundingSinceChange: bigint;
  /** 0 = the market's default (its maximum). */
  leverage: number;
  isolated: boolean;
  /** Collateral moved into the isolated position (quote quantums). */
  isolatedMargin: bigint;
  /** Live orders and the quantity they could still add on each side. */
  openOrders: number;
  openBuy: number;
  openSell: number;
  /** In the account's `active` list. */
  listed: boolean;
  /**
   * Float margin contributions (margin.ts `crossRiskF`), valid while `cacheEpoch` equals the
   * market's `markEpoch`; -1 after any change to this record.
   */
  cacheEpoch: number;
  eqF: number;
  imF: number;
  mmF: number;
  /** The liquidation trigger in force (NaN: none) and its index entry's version. */
  trigger: number;
  triggerVersion: number;
}

export function createAccountMarket(slot: number, marketId: number): AccountMarket {
  return {
    // The fields a place or cancel reads come first, so that they share the first cache lines.
    openOrders: 0,
    openBuy: 0,
    openSell: 0,
    size: 0,
    listed: false,
    isolated: false,
    isolatedMargin: 0n,
    leverage: 0,
    cacheEpoch: -1,
    eqF: 0,
    imF: 0,
    mmF: 0,
    costF: 0,
    slot,
    marketId,
    cost: 0n,
    realizedPnl: 0n,
    fundingAllTime: 0n,
    fundingSinceOpen: 0n,
    fundingSinceChange: 0n,
    trigger: NaN,
    triggerVersion: 0,
  };
}

export interface FillOutcome {
  effect: PositionEffect;
  /** Realized PnL of the closing part (0 for opening fills), quote quantums. */
  realized: bigint;
  /** `realized` as an exact double (money.ts), NaN when it was computed in bigint only. */
  realizedF: number;
  closedQty: number;
}

/**
 * Applies one fill of `qty` quantums worth `value` quote quantums to the position, writing the
 * outcome into `out` (the fill path reuses one record). `valueF` is `value` as an exact double
 * or NaN; with it and an exactly representable cost basis the closing arithmetic runs on
 * doubles (money.ts), with the same integers as the bigint formulas.
 */
export function applyFill(am: AccountMarket, side: SideCode, qty: number, value: bigint, valueF: number, out: FillOutcome): void {
  const before = am.size;
  const buy = side === 0;
  const after = buy ? before + qty : before - qty;
  am.fundingSinceChange = 0n;
  am.cacheEpoch = -1;
  if (before === 0 || (before > 0) === buy) {
    am.cost += buy ? value : -value;
    am.costF = Number(am.cost);
    am.size = after;
    if (before === 0) {
      am.realizedPnl = 0n;
      am.fundingSinceOpen = 0n;
    }
    out.effect = before === 0 ? (buy ? 'OPEN_LONG' : 'OPEN_SHORT') : buy ? 'ADD_LONG' : 'ADD_SHORT';
    out.realized = 0n;
    out.realizedF = 0;
    out.closedQty = 0;
    return;
  }
  const open = before > 0 ? before : -before;
  const closedQty = qty < open ? qty : open;
  // `costF` is Number(cost), kept in step by every write of cost (all of them here): its sign is
  // cost's, and below 2^52 it is cost exactly, so the bigint itself need not be read here.
  const longBefore = am.costF >= 0;
  // The released basis and the closing value, exactly in doubles when they fit (NaN if not).
  const basisF = exactInteger(longBefore ? am.costF : -am.costF);
  const releasedF = closedQty === open ? basisF : floorDivExact(mulExact(basisF, closedQty), open);
  const closingF = closedQty === qty ? valueF : floorDivExact(mulExact(valueF, closedQty), qty);
  let released: bigint;
  let closingValue: bigint;
  let realized: bigint;
  let realizedF: number;
  if (releasedF === releasedF && closingF === closingF) {
    // A long sells to close: proceeds minus basis. A short buys to close: basis minus cost.
    realizedF = buy ? releasedF - closingF : closingF - releasedF;
    realized = BigInt(realizedF);
    released = BigInt(releasedF);
    closingValue = closedQty === qty ? value : BigInt(closingF);
  } else {
    const basis = longBefore ? am.cost : -am.cost;
    released = closedQty === open ? basis : (basis * BigInt(closedQty)) / BigInt(open);
    closingValue = closedQty === qty ? value : (value * BigInt(closedQty)) / BigInt(qty);
    realized = buy ? released - closingValue : closingValue - released;
    realizedF = NaN;
  }
  am.cost += longBefore ? -released : released;
  am.realizedPnl += realized;
  am.size = after;
  out.realized = realized;
  out.realizedF = realizedF;
  out.closedQty = closedQty;
  if (qty > open) {
    const openingValue = value - closingValue;
    am.cost = buy ? openingValue : -openingValue;
    am.costF = Number(am.cost);
    am.realizedPnl = 0n;
    am.fundingSinceOpen = 0n;
    out.effect = buy ? 'FLIP_SHORT_TO_LONG' : 'FLIP_LONG_TO_SHORT';
    return;
  }
  if (after === 0) am.cost = 0n;
  am.costF = Number(am.cost);
  out.effect = before > 0 ? 'CLOSE_LONG' : 'CLOSE_SHORT';
}

/** Unrealized PnL at `price` ticks: size·price·mul − cost. */
export function unrealizedPnl(am: AccountMarket, price: number, valueMul: bigint): bigint {
  if (am.size === 0) return 0n;
  return BigInt(am.size) * BigInt(price) * valueMul - am.cost;
}
