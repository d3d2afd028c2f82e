/**
 * The order record's storage: `OrderRecord` implements `Order` (records.ts) with the rarely set
 * and small fields packed into one small integer (`bits`) and the TPSL-only fields in an extra
 * record created on first write (`x`), read and written through accessors, so callers keep
 * reading `order.side`, `order.tpslType`, ... while a resting order carries 20 fields instead of
 * 32 (heap per resting order: docs/benchmarks.md, "Engine core: order and book storage").
 *
 * `bits`: side (bit 0), orderType (1), tif (2-3), reduceOnly (4), isPositionTpsl (5),
 * hasChildren (6), spare (7), origin (8-9), tpslType (10-11), cancelReason (12),
 * rejectionReason (13-17); each enum is stored as 1 + its index in the spec's list, 0 for
 * undefined. The hot fields (ids, prices, sizes, times, status, links) stay plain fields.
 *
 * A structured clone (an engine image) keeps the own fields and loses the class: restore.ts
 * gives images their prototype back (`adoptOrder`).
 */
import type { Account, Order } from './records.ts';
import { CANCEL_REASONS, REJECTION_REASONS, TPSL_TYPES, type CancelReason, type OrderStatus, type RejectionReason, type TpslType } from './spec.ts';
import type { OrderTypeCode, SideCode, TifCode } from './types.ts';

export const REDUCE_ONLY = 1 << 4;
const POSITION_TPSL = 1 << 5;
const HAS_CHILDREN = 1 << 6;
const SPARE = 1 << 7;
const ORIGIN_SHIFT = 8;
const TPSL_SHIFT = 10;
const CANCEL_SHIFT = 12;
const REJECTION_SHIFT = 13;
const ORIGINS = ['LIQUIDATION', 'ADL'] as const;
// The bit widths above hold each list with 0 left for undefined.
if (REJECTION_REASONS.length > 31 || TPSL_TYPES.length > 3 || CANCEL_REASONS.length > 1) throw new Error('order-record.ts: a spec list outgrew its bits');

/** The fields only TPSL orders set. */
export interface OrderExtra {
  triggerPrice: number | undefined;
  parentOrderId: number | undefined;
}

function code<T>(list: readonly T[], value: T | undefined): number {
  if (value === undefined) return 0;
  const i = list.indexOf(value);
  if (i < 0) throw new Error(`not a known value: ${String(value)}`);
  return i + 1;
}

export class OrderRecord implements Order {
  // Own fields, in this order (newOrder's literal makes every instance: see there).
  declare id: number;
  declare account: Account;
  declare marketId: number;
  declare slot: number;
  declare clientId: string | undefined;
  declare price: number;
  declare size: number;
  declare remaining: number;
  declare filled: number;
  declare filledValue: number;
  declare goodTilTime: number;
  declare createdAt: number;
  declare status: OrderStatus;
  declare level: number;
  declare prev: Order | null;
  declare next: Order | null;
  declare aPrev: Order | null;
  declare aNext: Order | null;
  declare bits: number;
  declare x: OrderExtra | undefined;

  get side(): SideCode {
    return (this.bits & 1) as SideCode;
  }
  set side(v: SideCode) {
    this.bits = (this.bits & ~1) | v;
  }
  get orderType(): OrderTypeCode {
    return ((this.bits >> 1) & 1) as OrderTypeCode;
  }
  set orderType(v: OrderTypeCode) {
    this.bits = (this.bits & ~2) | (v << 1);
  }
  get tif(): TifCode {
    return ((this.bits >> 2) & 3) as TifCode;
  }
  set tif(v: TifCode) {
    this.bits = (this.bits & ~12) | (v << 2);
  }
  get reduceOnly(): boolean {
    return (this.bits & REDUCE_ONLY) !== 0;
  }
  set reduceOnly(v: boolean) {
    this.bits = v ? this.bits | REDUCE_ONLY : this.bits & ~REDUCE_ONLY;
  }
  get isPositionTpsl(): boolean {
    return (this.bits & POSITION_TPSL) !== 0;
  }
  set isPositionTpsl(v: boolean) {
    this.bits = v ? this.bits | POSITION_TPSL : this.bits & ~POSITION_TPSL;
  }
  get hasChildren(): boolean {
    return (this.bits & HAS_CHILDREN) !== 0;
  }
  set hasChildren(v: boolean) {
    this.bits = v ? this.bits | HAS_CHILDREN : this.bits & ~HAS_CHILDREN;
  }
  get spare(): boolean {
    return (this.bits & SPARE) !== 0;
  }
  set spare(v: boolean) {
    this.bits = v ? this.bits | SPARE : this.bits & ~SPARE;
  }
  get origin(): 'LIQUIDATION' | 'ADL' | undefined {
    const c = (this.bits >> ORIGIN_SHIFT) & 3;
    return c === 0 ? undefined : ORIGINS[c - 1];
  }
  set origin(v: 'LIQUIDATION' | 'ADL' | undefined) {
    this.bits = (this.bits & ~(3 << ORIGIN_SHIFT)) | (code(ORIGINS, v) << ORIGIN_SHIFT);
  }
  get tpslType(): TpslType | undefined {
    const c = (this.bits >> TPSL_SHIFT) & 3;
    return c === 0 ? undefined : TPSL_TYPES[c - 1];
  }
  set tpslType(v: TpslType | undefined) {
    this.bits = (this.bits & ~(3 << TPSL_SHIFT)) | (code(TPSL_TYPES, v) << TPSL_SHIFT);
  }
  get cancelReason(): CancelReason | undefined {
    return (this.bits >> CANCEL_SHIFT) & 1 ? CANCEL_REASONS[0] : undefined;
  }
  set cancelReason(v: CancelReason | undefined) {
    this.bits = (this.bits & ~(1 << CANCEL_SHIFT)) | (code(CANCEL_REASONS, v) << CANCEL_SHIFT);
  }
  get rejectionReason(): RejectionReason | undefined {
    const c = (this.bits >> REJECTION_SHIFT) & 31;
    return c === 0 ? undefined : REJECTION_REASONS[c - 1];
  }
  set rejectionReason(v: RejectionReason | undefined) {
    this.bits = (this.bits & ~(31 << REJECTION_SHIFT)) | (code(REJECTION_REASONS, v) << REJECTION_SHIFT);
  }
  get triggerPrice(): number | undefined {
    return this.x === undefined ? undefined : this.x.triggerPrice;
  }
  set triggerPrice(v: number | undefined) {
    if (this.x !== undefined) this.x.triggerPrice = v;
    else if (v !== undefined) this.x = { triggerPrice: v, parentOrderId: undefined };
  }
  get parentOrderId(): number | undefined {
    return this.x === undefined ? undefined : this.x.parentOrderId;
  }
  set parentOrderId(v: number | undefined) {
    if (this.x !== undefined) this.x.parentOrderId = v;
    else if (v !== undefined) this.x = { triggerPrice: undefined, parentOrderId: v };
  }
}

/**
 * Field names of `Order` as a plain record: what an image written before OrderRecord holds, less
 * `updatedAt`, which it also held (written on every change, read by nothing: dropped).
 */
export const ORDER_FIELDS = [
  'id', 'account', 'marketId', 'slot', 'side', 'orderType', 'tif', 'reduceOnly', 'clientId', 'price', 'size', 'remaining', 'filled',
  'filledValue', 'goodTilTime', 'createdAt', 'status', 'rejectionReason', 'cancelReason', 'origin', 'tpslType',
  'triggerPrice', 'isPositionTpsl', 'parentOrderId', 'hasChildren', 'level', 'prev', 'next', 'aPrev', 'aNext', 'spare',
] as const;

/**
 * Gives an order of a cloned image its class back, in place (identity matters: the book, the
 * account lists and the order table share it). An image written before OrderRecord has every
 * field of `Order` as an own field: those are read, removed and written back through the
 * accessors.
 */
export function adoptOrder(order: object): Order {
  if (order instanceof OrderRecord) return order;
  const plain = order as Record<string, unknown>;
  if (!('bits' in plain)) {
    const values = new Map<string, unknown>();
    for (const key of ORDER_FIELDS) {
      values.set(key, plain[key]);
      delete plain[key];
    }
    delete plain.updatedAt;
    Object.setPrototypeOf(order, OrderRecord.prototype);
    const o = order as OrderRecord;
    o.bits = 0;
    o.x = undefined;
    const target = o as unknown as Record<string, unknown>;
    for (const [key, value] of values) target[key] = value;
    return o;
  }
  Object.setPrototypeOf(order, OrderRecord.prototype);
  return order as OrderRecord;
}

/** Prototypes whose instances an image may hold as plain fields: `graftEngine` restores them. */
export const RESTORED_BY_GRAFT: ReadonlySet<object> = new Set([OrderRecord.prototype]);
