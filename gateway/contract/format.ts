/**
 * The wire shapes of the venue's records (supplement §7), built from engine events and state.
 *
 * Contract: pure functions, engine integers in, venue strings out. Prices print with their
 * market tick's decimals ("97000.0"), sizes with their step's decimals trimmed to at least one
 * ("0.0015", "1.0"), money in USD from quote quantums (1e9 = 1 USD) trimmed the same way, times
 * in microseconds. orderIds are lowercase hex strings; the engine's liquidation orders print
 * as `liq:<hex>` (supplement §7). Optional fields are omitted, not null, where the venue omits
 * them: accountIndex 0, reduceOnly false, type on LIQUIDATED/ADL orders.
 */
import { formatBig, quantumsToSize, ticksToPrice, trimDecimal, type MarketSpec } from '../../engine/index.ts';
import type { FillEvent, OrderEvent, SideCode, TifCode } from '../../engine/index.ts';
import type { Static } from 'typebox';
import { TIME_IN_FORCE, type OrderState, type OrderStatus } from '../../engine/spec.ts';
import type { FillRecord as FillRecordSchema, OrderRecord as OrderRecordSchema } from './reply-schema.ts';

export function orderIdString(id: number, origin?: 'LIQUIDATION' | 'ADL' | undefined): string {
  return (origin === undefined ? '' : 'liq:') + id.toString(16);
}

/** A client's orderId back to the engine's number; null when it is not one of ours. */
export function parseOrderId(text: unknown): number | null {
  if (typeof text !== 'string' || !/^(liq:)?(0x)?[0-9a-fA-F]{1,13}$/.test(text)) return null;
  const n = Number.parseInt(text.replace(/^liq:/, '').replace(/^0x/i, ''), 16);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function sideName(side: SideCode): 'BUY' | 'SELL' {
  return side === 0 ? 'BUY' : 'SELL';
}

/** timeInForce as the venue reads it back: a resting GTT order reads "GTC" (supplement §12). */
export function tifName(tif: TifCode): string {
  return tif === 0 ? 'GTC' : TIME_IN_FORCE[tif]!;
}

export function price(spec: MarketSpec, ticks: number): string {
  return ticksToPrice(spec, ticks);
}

export function size(spec: MarketSpec, quantums: number): string {
  return trimDecimal(quantumsToSize(spec, quantums));
}

/** Quote quantums as a USD decimal string. */
export function usd(quantums: bigint): string {
  return trimDecimal(formatBig(quantums, 9));
}

/** avgFillPrice: Σ price·size / Σ size in ticks, printed with the tick's decimals + 2 digits. */
export function averagePrice(spec: MarketSpec, filledValue: number, filled: number): string {
  if (filled <= 0) return '0';
  const avgTicks = filledValue / filled;
  const decimals = spec.tick.scale + 2;
  const value = avgTicks * (spec.tick.mantissa / 10 ** spec.tick.scale);
  return trimDecimal(value.toFixed(decimals));
}

const STATE: Partial<Record<OrderStatus, OrderState>> = {
  OPEN: 'OPEN',
  PARTIALLY_FILLED: 'PARTIALLY_FILLED',
  FILLED: 'FILLED',
  CANCELED: 'CANCELED',
  MARGIN_CANCELED: 'CANCELED',
  TPSL_CANCELED: 'CANCELED',
  REJECTED: 'REJECTED',
  LIQUIDATED: 'FILLED',
  ADL: 'FILLED',
};

/** The order record: its schema (reply-schema.ts) is the one definition. */
export type OrderRecord = Static<typeof OrderRecordSchema>;

/** The order record of an order update (REST reads keep the latest one per order). */
export function formatOrder(e: OrderEvent, spec: MarketSpec, withSequence = false): OrderRecord {
  const internal = e.origin !== undefined;
  const record: OrderRecord = {
    orderId: orderIdString(e.orderId, e.origin),
    marketId: e.marketId,
    marketDisplayName: spec.displayName,
    side: sideName(e.side),
    status: e.status,
    // Market TPSL legs print price "0" (supplement §9): their price is only a bound.
    price: e.tpslType !== undefined && e.orderType === 1 ? '0' : price(spec, e.price),
    originalSize: size(spec, e.size),
    remainingSize: size(spec, e.remaining),
    updatedAt: e.time,
  };
  if (e.clientId !== undefined) record.clientId = e.clientId;
  record.address = e.address;
  if (e.accountIndex !== 0) record.accountIndex = e.accountIndex;
  if (!internal) record.type = e.orderType === 0 ? 'LIMIT' : 'MARKET';
  record.filledSize = size(spec, e.filled);
  if (e.filled > 0) record.avgFillPrice = averagePrice(spec, e.filledValue, e.filled);
  if (!internal) {
    record.timeInForce = e.tif === 0 ? 'GTC' : TIME_IN_FORCE[e.tif]!;
    record.goodTilTime = String(e.goodTilTime);
  }
  if (e.reduceOnly) record.reduceOnly = true;
  if (e.triggerPrice !== undefined) record.triggerPrice = price(spec, e.triggerPrice);
  if (e.tpslType !== undefined) record.tpslType = e.tpslType;
  if (e.isPositionTpsl) record.isPositionTPSL = true;
  if (e.parentOrderId !== undefined) record.parentOrderId = orderIdString(e.parentOrderId);
  if (e.rejectionReason !== undefined) record.rejectionReason = e.rejectionReason;
  if (e.cancelReason !== undefined) record.cancelReason = e.cancelReason;
  const state = STATE[e.status];
  if (state !== undefined) record.state = e.status === 'CANCELED' && e.filled > 0 && e.remaining === 0 ? 'FILLED' : state;
  record.createdAt = e.createdAt;
  if (withSequence) record.sequenceNumber = e.accountSeq;
  return record;
}

/** The fill record: its schema (reply-schema.ts) is the one definition. */
export type FillRecord = Static<typeof FillRecordSchema>;

export function formatFill(e: FillEvent, spec: MarketSpec, origin: 'LIQUIDATION' | 'ADL' | undefined, ws = false): FillRecord {
  const record: FillRecord = {
    tradeId: e.tradeId.toString(16),
    orderId: orderIdString(e.orderId, origin),
    marketId: e.marketId,
    marketDisplayName: spec.displayName,
    side: sideName(e.side),
    size: size(spec, e.size),
    price: price(spec, e.price),
    fee: usd(e.fee),
    role: e.role,
    createdAt: e.time,
  };
  if (e.accountIndex !== 0) record.accountIndex = e.accountIndex;
  record.address = e.address;
  if (ws && e.clientId !== undefined) record.clientId = e.clientId;
  record.closedPnl = usd(e.closedPnl);
  record.originalSize = size(spec, e.orderSize);
  record.remainingSize = size(spec, e.remaining);
  record.positionEffect = e.positionEffect;
  if (ws) record.sequenceNumber = e.accountSeq;
  if (e.liquidation !== undefined) record.liquidation = e.liquidation;
  return record;
}
