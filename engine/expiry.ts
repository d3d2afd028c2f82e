/**
 * Expiry of resting GTT orders at their goodTilTime.
 *
 * Layout: a binary min-heap of (goodTilTime, orderId) in two growable Float64Arrays. Entries
 * are never removed on cancel: an entry is stale when its order is no longer live or now has
 * another goodTilTime (cancel-replace), and stale entries are skipped when they reach the top.
 * When stale entries outnumber live orders the heap is rebuilt from the live ones, so memory
 * follows the live set.
 *
 * Cost: new orders carry "now + a month or more", almost always the largest key, so a push
 * stops at once; a pop is O(log n). Nothing is allocated per order.
 *
 * Determinism: `dueOrders` returns orders in (goodTilTime, orderId) order.
 */
import type { Order } from './order.ts';
import { getOrder, type OrderTable } from './order-table.ts';
import { plainRecord } from './plain-record.ts';

export interface Expiry {
  times: Float64Array;
  ids: Float64Array;
  size: number;
}

const buildExpiry = plainRecord<Expiry>();

export function createExpiry(): Expiry {
  return buildExpiry({ times: new Float64Array(1024), ids: new Float64Array(1024), size: 0 });
}

export function addExpiry(expiry: Expiry, order: Order): void {
  if (expiry.size === expiry.times.length) grow(expiry);
  push(expiry, order.goodTilTime, order.id);
}

/** True when the earliest entry (live or stale) is due: the cheap test before every command. */
export function hasDue(expiry: Expiry, time: number): boolean {
  return expiry.size > 0 && expiry.times[0]! <= time;
}

/**
 * Live orders whose goodTilTime is at or before `time`, earliest first (ties by orderId).
 * `orders` answers the live order for an id (undefined once it ended).
 */
export function dueOrders(expiry: Expiry, time: number, orders: OrderTable): Order[] {
  const out: Order[] = [];
  while (expiry.size > 0 && expiry.times[0]! <= time) {
    const gtt = expiry.times[0]!;
    const id = expiry.ids[0]!;
    pop(expiry);
    const order = getOrder(orders, id);
    // Duplicates (an order re-rested with the same goodTilTime) resolve to one entry here.
    if (order !== undefined && order.goodTilTime === gtt && (out.length === 0 || out[out.length - 1] !== order)) out.push(order);
  }
  return out;
}

/** Rebuilds the heap from the live orders of `orders` when stale entries dominate. */
export function compactExpiry(expiry: Expiry, orders: OrderTable): void {
  if (expiry.size < 65_536 || expiry.size < 4 * orders.size) return;
  const times = expiry.times;
  const ids = expiry.ids;
  let n = 0;
  for (let i = 0; i < expiry.size; i++) {
    const order = getOrder(orders, ids[i]!);
    if (order !== undefined && order.goodTilTime === times[i]) {
      times[n] = times[i]!;
      ids[n] = ids[i]!;
      n++;
    }
  }
  expiry.size = n;
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(expiry, i);
}

function grow(expiry: Expiry): void {
  const times = new Float64Array(expiry.times.length * 2);
  const ids = new Float64Array(expiry.ids.length * 2);
  times.set(expiry.times);
  ids.set(expiry.ids);
  expiry.times = times;
  expiry.ids = ids;
}

function less(t1: number, id1: number, t2: number, id2: number): boolean {
  return t1 < t2 || (t1 === t2 && id1 < id2);
}

function push(expiry: Expiry, time: number, id: number): void {
  const times = expiry.times;
  const ids = expiry.ids;
  let i = expiry.size++;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!less(time, id, times[parent]!, ids[parent]!)) break;
    times[i] = times[parent]!;
    ids[i] = ids[parent]!;
    i = parent;
  }
  times[i] = time;
  ids[i] = id;
}

function pop(expiry: Expiry): void {
  const last = --expiry.size;
  if (last === 0) return;
  expiry.times[0] = expiry.times[last]!;
  expiry.ids[0] = expiry.ids[last]!;
  siftDown(expiry, 0);
}

function siftDown(expiry: Expiry, start: number): void {
  const times = expiry.times;
  const ids = expiry.ids;
  const n = expiry.size;
  const time = times[start]!;
  const id = ids[start]!;
  let i = start;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && less(times[r]!, ids[r]!, times[l]!, ids[l]!) ? r : l;
    if (!less(times[c]!, ids[c]!, time, id)) break;
    times[i] = times[c]!;
    ids[i] = ids[c]!;
    i = c;
  }
  times[i] = time;
  ids[i] = id;
}
