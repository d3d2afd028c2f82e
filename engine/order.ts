/**
 * Orders: the live record and its state machine.
 *
 * Contract: an `Order` is mutable engine state, owned by exactly one account and one market.
 * While it rests it is linked into one book level (`prev`/`next`/`level`) and into its
 * account's list of live orders (`aPrev`/`aNext`); nothing outside `book.ts` and `account.ts`
 * touches those links. Public shapes are built from it by the event translator in
 * `emit.ts`, never by handing the record out. A record is valid while its order is live and
 * until the end of the command that ends it; after that the engine reuses it for another order
 * (`newOrder` / `spareOrder`), so readers outside the engine (the gateway's open-order lists)
 * copy what they need within the call and keep no reference.
 *
 * `ORDER_TRANSITIONS` is the one table of status moves the engine makes; tests check every
 * emitted update against it.
 */
import type { OrderStatus } from './spec.ts';
import type { OrderTypeCode, SideCode, TifCode } from './types.ts';
import { createAccountIndex, getOrCreateAccount } from './account.ts';
import { NO_LEVEL } from './price-index.ts';
import type { Account, Order } from './records.ts';
import { OrderRecord, REDUCE_ONLY } from './order-record.ts';

const ORDER_PROTOTYPE = OrderRecord.prototype;

export type { Order } from './records.ts';
export { OrderRecord } from './order-record.ts';

/**
 * Ended orders, kept for reuse. A resting order lives long enough to survive two scavenges and
 * be promoted, so a new object per placement was copied twice and later freed by a full GC;
 * reusing records keeps the young generation to short-lived garbage (docs/decisions.md,
 * "Engine throughput"). Module-level rather than engine state: it is a cache of dead records,
 * shared by every engine in the process, detached from their accounts.
 */
const SPARE: OrderRecord[] = [];
const SPARE_MAX = 4096;

/** A fresh order record (reused when one is spare); the fields not passed take their defaults. */
export function newOrder(
  id: number,
  account: Account,
  marketId: number,
  slot: number,
  side: SideCode,
  orderType: OrderTypeCode,
  tif: TifCode,
  reduceOnly: boolean,
  clientId: string | undefined,
  price: number,
  size: number,
  goodTilTime: number,
  time: number,
): Order {
  const bits = side | (orderType << 1) | (tif << 2) | (reduceOnly ? REDUCE_ONLY : 0);
  const o = SPARE.pop();
  if (o === undefined) {
    // A literal rather than `new`: V8 pretenures literals whose objects live long (a resting
    // order outlives two scavenges), not constructor calls; same fields in the same order.
    return {
      __proto__: ORDER_PROTOTYPE, id, account, marketId, slot, clientId, price, size, remaining: size, filled: 0, filledValue: 0,
      goodTilTime, createdAt: time, status: 'PENDING', level: NO_LEVEL, prev: null, next: null, aPrev: null, aNext: null, bits, x: undefined,
    } as unknown as OrderRecord;
  }
  o.id = id;
  o.account = account;
  o.marketId = marketId;
  o.slot = slot;
  o.bits = bits;
  o.clientId = clientId;
  o.price = price;
  o.size = size;
  o.remaining = size;
  o.filled = 0;
  o.filledValue = 0;
  o.goodTilTime = goodTilTime;
  o.createdAt = time;
  o.status = 'PENDING';
  o.level = NO_LEVEL;
  o.prev = o.next = o.aPrev = o.aNext = null;
  o.x = undefined;
  return o;
}

/**
 * Hands an ended order back for reuse. Only for an order nothing refers to any more: off the
 * book and the order table, its events already built (they copy fields), its command's
 * result already taken (engine.ts calls this at the end of a command).
 */
export function spareOrder(order: Order): void {
  if (!(order instanceof OrderRecord) || order.spare || SPARE.length >= SPARE_MAX) return;
  order.spare = true;
  // Detached, so that a spare record keeps no engine alive.
  order.account = DETACHED;
  order.clientId = undefined;
  SPARE.push(order);
}

const DETACHED: Account = getOrCreateAccount(createAccountIndex(), '', 0);

/**
 * Every status move the engine makes. `null` stands for "new": the first update an order gets.
 * Unusual rows carry the rule they come from.
 */
export const ORDER_TRANSITIONS: ReadonlyMap<OrderStatus | null, ReadonlySet<OrderStatus>> = new Map<
  OrderStatus | null,
  ReadonlySet<OrderStatus>
>([
  // A new order rests, fills on arrival, or is refused; an IOC/FOK remainder is canceled
  // (CANCELED with filledSize > 0, interface.md "Other order facts").
  // New TPSL orders report TPSL_PLACED (or are REJECTED); the engine's liquidation and ADL
  // orders end LIQUIDATED / ADL in their only update.
  [null, new Set<OrderStatus>(['OPEN', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED', 'TPSL_PLACED', 'LIQUIDATED', 'ADL'])],
  // Resting orders fill, get canceled, or expire at goodTilTime (REJECTED/EXPIRED, supplement
  // §10). An in-place modify re-reports OPEN/PARTIALLY_FILLED; a crossing modify of an ALO
  // order is REJECTED (interface.md: "a crossing modify gives a fill then PLACED or REJECTED").
  // MARGIN_CANCELED: resting orders that no longer fit initial margin, and orders of an account
  // being liquidated (docs/decisions.md).
  ['OPEN', new Set<OrderStatus>(['OPEN', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED', 'MARGIN_CANCELED'])],
  ['PARTIALLY_FILLED', new Set<OrderStatus>(['PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED', 'MARGIN_CANCELED'])],
  // Cancel-replace (interface.md States and transitions): CANCELED with MODIFY_CANCELED, then
  // the replacement lives on under the same orderId and starts over.
  ['CANCELED', new Set<OrderStatus>(['OPEN', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED'])],
  // A TPSL order waits (reported TPSL_PLACED, stored UNTRIGGERED) until the mark crosses its
  // trigger, then runs as an ordinary order and keeps its trigger metadata to the end.
  ['TPSL_PLACED', new Set<OrderStatus>(['TPSL_TRIGGERED', 'TPSL_CANCELED'])],
  ['TPSL_TRIGGERED', new Set<OrderStatus>(['OPEN', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED'])],
]);

export function isTransitionAllowed(from: OrderStatus | null, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS.get(from)?.has(to) ?? false;
}

/** True while the order rests on the book or waits for a trigger. */
export function isLive(order: Order): boolean {
  return order.status === 'OPEN' || order.status === 'PARTIALLY_FILLED' || order.status === 'UNTRIGGERED';
}
