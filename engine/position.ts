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
import {
  addSlot, CACHE_EPOCH, COST_F, costAt, createRiskTable, ensureRow, EQ_F, IM_F, ISOLATED, LEVERAGE, LISTED, MM_F, OPEN_BUY, OPEN_ORDERS, OPEN_SELL,
  isExact, moneyAt, REALIZED_F, realizedPnlAt, reserveAccounts, SIZE, SLOT, TRIGGER, TRIGGER_VERSION, W, type RiskTable,
} from './risk-table.ts';
import type { PositionEffect } from './spec.ts';
import type { SideCode } from './types.ts';

/**
 * One account's record in one market, as a view of its row in the risk table (risk-table.ts):
 * reading or writing a field reads or writes the table. Views are made on demand and hold no
 * state of their own, so two views of one row are the same record; the hot paths work on the
 * row directly.
 */
export class AccountMarket {
  constructor(
    readonly t: RiskTable,
    readonly row: number,
  ) {}
  get slot(): number {
    return this.t.rows[this.row * W + SLOT]!;
  }
  get marketId(): number {
    return this.t.marketIds[this.slot]!;
  }
  /** Signed quantums. */
  get size(): number {
    return this.t.rows[this.row * W + SIZE]!;
  }
  set size(v: number) {
    this.t.rows[this.row * W + SIZE] = v;
  }
  /** Live orders and the quantity they could still add on each side. */
  get openOrders(): number {
    return this.t.rows[this.row * W + OPEN_ORDERS]!;
  }
  set openOrders(v: number) {
    this.t.rows[this.row * W + OPEN_ORDERS] = v;
  }
  get openBuy(): number {
    return this.t.rows[this.row * W + OPEN_BUY]!;
  }
  set openBuy(v: number) {
    this.t.rows[this.row * W + OPEN_BUY] = v;
  }
  get openSell(): number {
    return this.t.rows[this.row * W + OPEN_SELL]!;
  }
  set openSell(v: number) {
    this.t.rows[this.row * W + OPEN_SELL] = v;
  }
  /** In the account's `active` list. */
  get listed(): boolean {
    return this.t.rows[this.row * W + LISTED] === 1;
  }
  set listed(v: boolean) {
    this.t.rows[this.row * W + LISTED] = v ? 1 : 0;
  }
  get isolated(): boolean {
    return this.t.rows[this.row * W + ISOLATED] === 1;
  }
  set isolated(v: boolean) {
    this.t.rows[this.row * W + ISOLATED] = v ? 1 : 0;
  }
  /** 0 = the market's default (its maximum). */
  get leverage(): number {
    return this.t.rows[this.row * W + LEVERAGE]!;
  }
  set leverage(v: number) {
    this.t.rows[this.row * W + LEVERAGE] = v;
  }
  /**
   * Float margin contributions (margin.ts `crossRiskF`), valid while `cacheEpoch` equals the
   * market's `markEpoch`; -1 after any change to this record.
   */
  get cacheEpoch(): number {
    return this.t.rows[this.row * W + CACHE_EPOCH]!;
  }
  set cacheEpoch(v: number) {
    this.t.rows[this.row * W + CACHE_EPOCH] = v;
  }
  get eqF(): number {
    return this.t.rows[this.row * W + EQ_F]!;
  }
  get imF(): number {
    return this.t.rows[this.row * W + IM_F]!;
  }
  get mmF(): number {
    return this.t.rows[this.row * W + MM_F]!;
  }
  /** `cost` as a double, kept in step for the float margin path (margin.ts). */
  get costF(): number {
    return this.t.rows[this.row * W + COST_F]!;
  }
  /** The liquidation trigger in force (NaN: none) and its index entry's version. */
  get trigger(): number {
    return this.t.rows[this.row * W + TRIGGER]!;
  }
  set trigger(v: number) {
    this.t.rows[this.row * W + TRIGGER] = v;
  }
  get triggerVersion(): number {
    return this.t.rows[this.row * W + TRIGGER_VERSION]!;
  }
  set triggerVersion(v: number) {
    this.t.rows[this.row * W + TRIGGER_VERSION] = v;
  }
  /** Signed cost basis of the open size, quote quantums (a money cell: risk-table.ts). */
  get cost(): bigint {
    return costAt(this.t, this.row);
  }
  set cost(v: bigint) {
    this.t.cost[this.row] = v;
    this.t.rows[this.row * W + COST_F] = Number(v);
  }
  /** Realized PnL since the position opened (reset on open and flip); a money cell. */
  get realizedPnl(): bigint {
    return realizedPnlAt(this.t, this.row);
  }
  set realizedPnl(v: bigint) {
    this.t.realizedPnl[this.row] = v;
    this.t.rows[this.row * W + REALIZED_F] = Number(v);
  }
  get fundingAllTime(): bigint {
    return this.t.fundingAllTime[this.row]!;
  }
  set fundingAllTime(v: bigint) {
    this.t.fundingAllTime[this.row] = v;
  }
  get fundingSinceOpen(): bigint {
    return this.t.fundingSinceOpen[this.row]!;
  }
  set fundingSinceOpen(v: bigint) {
    this.t.fundingSinceOpen[this.row] = v;
  }
  get fundingSinceChange(): bigint {
    return this.t.fundingSinceChange[this.row]!;
  }
  set fundingSinceChange(v: bigint) {
    this.t.fundingSinceChange[this.row] = v;
  }
  /** Collateral moved into the isolated position (quote quantums). */
  get isolatedMargin(): bigint {
    return this.t.isolatedMargin[this.row]!;
  }
  set isolatedMargin(v: bigint) {
    this.t.isolatedMargin[this.row] = v;
  }
}

/** A record of its own, in a table of its own (tests and the money property checks). */
export function createAccountMarket(slot: number, marketId: number): AccountMarket {
  const t = createRiskTable();
  for (let i = 0; i <= slot; i++) addSlot(t, i === slot ? marketId : -1);
  reserveAccounts(t, 1);
  return new AccountMarket(t, ensureRow(t, 0, slot));
}

/** One side's settlement of a fill (risk.ts `settleFill`); reused per side through the command scratch. */
export interface Settled extends FillOutcome {
  /** The fee as an exact double, NaN when it was computed in bigint only; then `fee` holds it (and only then: risk.ts `settledFee`). */
  feeF: number;
  fee: bigint;
  /**
   * Realized PnL minus the fee: what the fill adds to the balance (the fill's closedPnl), as an
   * exact double, NaN when it was computed in bigint only; then `closedPnl` holds it (and only
   * then: read it through risk.ts `closedPnlOf`).
   */
  closedPnlF: number;
  closedPnl: bigint;
}

/** A settled fill's closed PnL as a bigint (made here when the exact double stands for it). */
export function closedPnlOf(s: Settled): bigint {
  return s.closedPnlF === s.closedPnlF ? BigInt(s.closedPnlF) : s.closedPnl;
}

/** A settled fill's fee as a bigint (made here when the exact double stands for it). */
export function settledFee(s: Settled): bigint {
  return s.feeF === s.feeF ? BigInt(s.feeF) : s.fee;
}

export interface FillOutcome {
  effect: PositionEffect;
  /**
   * Realized PnL of the closing part (0 for opening fills), quote quantums, as an exact double
   * (money.ts), NaN when it was computed in bigint only; then `realized` holds it (and only then:
   * no bigint is made for an exact double).
   */
  realizedF: number;
  realized: bigint;
  closedQty: number;
}

/**
 * Applies one fill of `qty` quantums to the position in row `row`, writing the outcome into `out`
 * (the fill path reuses one record). The fill's value in quote quantums is `valueF`, an exact
 * double, or when that is NaN `valueB` (which may be left out otherwise); with an exact value
 * and an exactly representable cost basis the arithmetic runs on doubles (money.ts), with the
 * same integers as the bigint formulas.
 */
export function applyFill(t: RiskTable, row: number, side: SideCode, qty: number, valueB: bigint | undefined, valueF: number, out: FillOutcome): void {
  const r = t.rows;
  const o = row * W;
  const before = r[o + SIZE]!;
  const buy = side === 0;
  const after = buy ? before + qty : before - qty;
  t.fundingSinceChange[row] = 0n;
  r[o + CACHE_EPOCH] = -1;
  // Cost and realized PnL are money cells (risk-table.ts): the row's double is the value while it
  // is below 2^52, so in-range arithmetic writes the double alone.
  const costF = r[o + COST_F]!;
  if (before === 0 || (before > 0) === buy) {
    const sumF = isExact(costF) ? exactInteger(costF + (buy ? valueF : -valueF)) : NaN;
    if (sumF === sumF) r[o + COST_F] = sumF;
    else {
      const value = valueB ?? BigInt(valueF);
      setMoney(r, o + COST_F, t.cost, row, moneyAt(costF, t.cost[row]!) + (buy ? value : -value));
    }
    r[o + SIZE] = after;
    if (before === 0) {
      r[o + REALIZED_F] = 0;
      t.fundingSinceOpen[row] = 0n;
    }
    out.effect = before === 0 ? (buy ? 'OPEN_LONG' : 'OPEN_SHORT') : buy ? 'ADD_LONG' : 'ADD_SHORT';
    out.realized = 0n;
    out.realizedF = 0;
    out.closedQty = 0;
    return;
  }
  const open = before > 0 ? before : -before;
  const closedQty = qty < open ? qty : open;
  // COST_F has cost's sign whichever way the cell holds it.
  const longBefore = costF >= 0;
  // The released basis and the closing value, exactly in doubles when they fit (NaN if not).
  const basisF = exactInteger(longBefore ? costF : -costF);
  const releasedF = closedQty === open ? basisF : floorDivExact(mulExact(basisF, closedQty), open);
  const closingF = closedQty === qty ? valueF : floorDivExact(mulExact(valueF, closedQty), qty);
  r[o + SIZE] = after;
  out.closedQty = closedQty;
  const realizedBefore = r[o + REALIZED_F]!;
  if (releasedF === releasedF && closingF === closingF) {
    // A long sells to close: proceeds minus basis. A short buys to close: basis minus cost.
    const realizedF = buy ? releasedF - closingF : closingF - releasedF;
    out.realizedF = realizedF;
    const totalF = isExact(realizedBefore) ? exactInteger(realizedBefore + realizedF) : NaN;
    if (totalF === totalF) r[o + REALIZED_F] = totalF;
    else setMoney(r, o + REALIZED_F, t.realizedPnl, row, moneyAt(realizedBefore, t.realizedPnl[row]!) + BigInt(realizedF));
    if (qty > open) {
      // Opening part of a flip: the rest of the value, exact as the difference of two exact values.
      const openingF = valueF - closingF;
      r[o + COST_F] = buy ? openingF : -openingF;
      r[o + REALIZED_F] = 0;
      t.fundingSinceOpen[row] = 0n;
      out.effect = buy ? 'FLIP_SHORT_TO_LONG' : 'FLIP_LONG_TO_SHORT';
      return;
    }
    // |costF| − releasedF: both exact and of one sign, so the difference is exact.
    r[o + COST_F] = after === 0 ? 0 : longBefore ? costF - releasedF : costF + releasedF;
    out.effect = before > 0 ? 'CLOSE_LONG' : 'CLOSE_SHORT';
    return;
  }
  const value = valueB ?? BigInt(valueF);
  const cost = moneyAt(costF, t.cost[row]!);
  const basis = longBefore ? cost : -cost;
  const released = closedQty === open ? basis : (basis * BigInt(closedQty)) / BigInt(open);
  const closingValue = closedQty === qty ? value : (value * BigInt(closedQty)) / BigInt(qty);
  const realized = buy ? released - closingValue : closingValue - released;
  out.realized = realized;
  out.realizedF = NaN;
  setMoney(r, o + REALIZED_F, t.realizedPnl, row, moneyAt(realizedBefore, t.realizedPnl[row]!) + realized);
  if (qty > open) {
    const openingValue = value - closingValue;
    setMoney(r, o + COST_F, t.cost, row, buy ? openingValue : -openingValue);
    r[o + REALIZED_F] = 0;
    t.fundingSinceOpen[row] = 0n;
    out.effect = buy ? 'FLIP_SHORT_TO_LONG' : 'FLIP_LONG_TO_SHORT';
    return;
  }
  setMoney(r, o + COST_F, t.cost, row, after === 0 ? 0n : cost + (longBefore ? -released : released));
  out.effect = before > 0 ? 'CLOSE_LONG' : 'CLOSE_SHORT';
}

/** Writes a money cell from a bigint: its double (exact below 2^53, the value itself below 2^52) and its bigint column. */
function setMoney(r: Float64Array, at: number, column: bigint[], row: number, value: bigint): void {
  r[at] = Number(value);
  column[row] = value;
}

/** Unrealized PnL at `price` ticks: size·price·mul − cost. */
export function unrealizedPnl(am: AccountMarket, price: number, valueMul: bigint): bigint {
  if (am.size === 0) return 0n;
  return BigInt(am.size) * BigInt(price) * valueMul - am.cost;
}
