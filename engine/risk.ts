/**
 * The risk stages around matching: a pre-trade check before an order meets the book and a
 * settlement step after each fill (exchange-core's RiskEngine pre-check / release split).
 *
 * Contract: `preTrade` returns the rejection reason that stops an order, or undefined; it reads
 * state and changes nothing. `settleFill` applies one fill to one account. `reduceAllowance`
 * says how much a reduce-only order may still fill. Issue 3 adds collateral, margin and fees
 * here; the book and matching never import this module.
 *
 * Rules held here now:
 * - reduce-only (REDUCE_ONLY_WOULD_INCREASE): the order must be on the opposite side of a
 *   non-zero position; it fills at most the position's size (docs/decisions.md).
 * - the fixed maximum position notional (POSITION_SIZE_CAP_EXCEEDED): checked with the order's
 *   limit price against the position the order would reach if fully filled.
 */
import { positionOf, type Account } from './account.ts';
import { withinPositionCap, type MarketSpec } from './market.ts';
import type { Order } from './order.ts';
import type { RejectionReason } from './spec.ts';
import type { SideCode } from './types.ts';

export function preTrade(account: Account, market: MarketSpec, slot: number, side: SideCode, price: number, size: number, reduceOnly: boolean): RejectionReason | undefined {
  const position = positionOf(account, slot);
  if (reduceOnly) {
    if (side === 0 ? position >= 0 : position <= 0) return 'REDUCE_ONLY_WOULD_INCREASE';
    return undefined;
  }
  const after = side === 0 ? position + size : position - size;
  if (Math.abs(after) > Math.abs(position) && !withinPositionCap(market, price, Math.abs(after))) {
    return 'POSITION_SIZE_CAP_EXCEEDED';
  }
  return undefined;
}

/** How much more a reduce-only order may fill: the opposite position's size, or 0. */
export function reduceAllowance(order: Order): number {
  const position = positionOf(order.account, order.slot);
  if (order.side === 0) return position < 0 ? -position : 0;
  return position > 0 ? position : 0;
}

export function settleFill(account: Account, slot: number, side: SideCode, qty: number): void {
  const position = account.positionBySlot[slot] ?? 0;
  account.positionBySlot[slot] = side === 0 ? position + qty : position - qty;
}
