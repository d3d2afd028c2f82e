/**
 * TPSL: stop-loss and take-profit orders that wait for the mark price.
 *
 * Contract:
 * - `checkTpsl` validates a TPSL placement (interface.md errorType InvalidRequest causes):
 *   stopPrice required and on its tier's tick, reduce-only, the trigger on the side of the
 *   oracle where it would not fire at once, LIMIT legs GTT and MARKET legs IOC within 10 % of
 *   the trigger, position TPSL with size 0 and others with a size.
 * - `checkGrouping` validates a batch's TPSL shape (supplement §2): entryTpsl = an entry then
 *   1-2 legs, partialTpsl = 1-2 sized legs, positionTpsl = 1-2 legs of size 0; at most one
 *   STOP_LOSS and one TAKE_PROFIT.
 * - The trigger direction: a stop-loss fires when the mark moves against the position it
 *   protects (a sell leg — protecting a long — when the mark falls to the stop; a buy leg when
 *   it rises to it); a take-profit the other way. `firesBelow` says which.
 * Untriggered orders sit in a per-market trigger index (liquidation-index.ts heaps, keyed by
 * orderId) and are live: cancelable, counted in the open-order cap, never on the book.
 */
import { onTierTick, type MarketSpec } from './market.ts';
import { LIMITS } from './spec.ts';
import type { TpslGrouping, TpslType } from './spec.ts';
import { invalid } from './state.ts';
import { TIF_GTT, TIF_IOC, type BatchOrder, type InvalidResult, type PlaceOrderCommand, type SideCode } from './types.ts';

const TPSL_TYPES: ReadonlySet<string> = new Set(['STOP_LOSS', 'TAKE_PROFIT']);

/** True when the trigger fires as the mark falls to it (else as it rises to it). */
export function firesBelow(side: SideCode, tpslType: TpslType): boolean {
  // A sell leg protects a long: its stop-loss is below the price, its take-profit above.
  return side === 1 ? tpslType === 'STOP_LOSS' : tpslType === 'TAKE_PROFIT';
}

export function isTpsl(c: Pick<PlaceOrderCommand, 'tpslType' | 'stopPrice' | 'isPositionTpsl'>): boolean {
  return c.tpslType !== undefined || c.stopPrice !== undefined || c.isPositionTpsl === true;
}

export function checkTpsl(spec: MarketSpec, oracle: number, c: PlaceOrderCommand): InvalidResult | undefined {
  if (c.tpslType === undefined || !TPSL_TYPES.has(c.tpslType)) return invalid('InvalidRequest', 'tpslType must be STOP_LOSS or TAKE_PROFIT', 'tpslType');
  if (c.stopPrice === undefined) return invalid('InvalidRequest', 'stopPrice is required when tpslType is set', 'stopPrice');
  if (!Number.isSafeInteger(c.stopPrice) || c.stopPrice <= 0) return invalid('InvalidRequest', 'stopPrice must be positive', 'stopPrice');
  if (!onTierTick(spec, c.stopPrice)) return invalid('Tick', 'stopPrice is not a multiple of the tick size for its price tier', 'stopPrice');
  if (c.reduceOnly !== true) return invalid('InvalidRequest', 'reduceOnly must be true for TPSL orders', 'reduceOnly');
  if (c.orderType === 1 && c.tif !== TIF_IOC) return invalid('InvalidRequest', 'MARKET TPSL legs must use IOC', 'timeInForce');
  if (c.orderType === 0 && c.tif !== TIF_GTT) return invalid('InvalidRequest', 'LIMIT TPSL legs must use GTT', 'timeInForce');
  if (c.orderType === 1) {
    const deviation = Math.abs(c.price - c.stopPrice);
    if (deviation * 1_000_000 > c.stopPrice * LIMITS.marketOrderBandPpm) {
      return invalid('OracleDeviation', 'TPSL market order price must be within 10% of the trigger price', 'price');
    }
  }
  if (oracle <= 0) return invalid('InvalidRequest', 'no oracle price to place a TPSL order against', 'stopPrice');
  const below = firesBelow(c.side, c.tpslType);
  if (below ? c.stopPrice >= oracle : c.stopPrice <= oracle) {
    return invalid('InvalidRequest', 'trigger price is on the wrong side of the oracle price (it would fire immediately)', 'stopPrice');
  }
  if (c.isPositionTpsl === true ? c.size !== 0 : !(Number.isSafeInteger(c.size) && c.size > 0)) {
    return invalid('InvalidRequest', c.isPositionTpsl === true ? 'position TPSL legs have quantity 0' : 'quantity must be positive', 'quantity');
  }
  return undefined;
}

/** Checks a batch's TPSL shape; undefined when it is fine (or the batch has no grouping). */
export function checkGrouping(grouping: TpslGrouping | undefined, orders: readonly BatchOrder[]): InvalidResult | undefined {
  if (grouping === undefined) return undefined;
  const legs = grouping === 'entryTpsl' ? orders.slice(1) : orders;
  if (grouping === 'entryTpsl' && (orders.length === 0 || isTpsl(orders[0]!))) {
    return invalid('InvalidRequest', 'entryTpsl: element 0 must be the entry order, without tpslType', 'orders');
  }
  if (legs.length < 1 || legs.length > 2) return invalid('InvalidRequest', `${grouping}: 1 or 2 TPSL legs are required`, 'orders');
  const seen = new Set<string>();
  for (const leg of legs) {
    if (leg.tpslType === undefined) return invalid('InvalidRequest', `${grouping}: every leg needs a tpslType`, 'orders');
    if (seen.has(leg.tpslType)) return invalid('InvalidRequest', `${grouping}: duplicate ${leg.tpslType} leg`, 'orders');
    seen.add(leg.tpslType);
    if (grouping === 'positionTpsl' && leg.size !== 0) return invalid('InvalidRequest', 'positionTpsl legs have quantity 0', 'quantity');
    if (grouping === 'partialTpsl' && !(leg.size > 0)) return invalid('InvalidRequest', 'partialTpsl legs need a quantity', 'quantity');
  }
  const first = orders[0]!;
  for (const o of orders) {
    if (o.address !== first.address || o.accountIndex !== first.accountIndex) return invalid('InvalidRequest', 'all elements must share address and accountIndex', 'orders');
    if (o.marketId !== first.marketId) return invalid('InvalidRequest', `${grouping}: all legs must be in one market`, 'marketId');
  }
  return undefined;
}
