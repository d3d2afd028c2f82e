/**
 * Expiry of resting GTT orders at their goodTilTime.
 *
 * Layout: orders are bucketed by goodTilTime to the second; a bucket is an intrusive
 * doubly-linked list through the orders (`expPrev`/`expNext`), so adding and removing an order
 * allocates nothing and costs O(1). Bucket keys sit in a binary min-heap; a key whose bucket
 * emptied stays in the heap until it reaches the top, where it is skipped.
 *
 * Determinism: `due` returns orders in (goodTilTime, orderId) order.
 */
import type { Order } from './order.ts';

const BUCKET_US = 1_000_000;

export interface ExpiryBucket {
  second: number;
  head: Order | null;
  count: number;
}

export interface Expiry {
  buckets: Map<number, ExpiryBucket>;
  heap: number[];
}

export function createExpiry(): Expiry {
  return { buckets: new Map(), heap: [] };
}

export function addExpiry(expiry: Expiry, order: Order): void {
  const second = Math.floor(order.goodTilTime / BUCKET_US);
  let bucket = expiry.buckets.get(second);
  if (bucket === undefined) {
    bucket = { second, head: null, count: 0 };
    expiry.buckets.set(second, bucket);
    heapPush(expiry.heap, second);
  }
  order.expBucket = bucket;
  order.expPrev = null;
  order.expNext = bucket.head;
  if (bucket.head !== null) bucket.head.expPrev = order;
  bucket.head = order;
  bucket.count++;
}

export function removeExpiry(expiry: Expiry, order: Order): void {
  const bucket = order.expBucket;
  if (bucket === null) return;
  if (order.expPrev === null) bucket.head = order.expNext;
  else order.expPrev.expNext = order.expNext;
  if (order.expNext !== null) order.expNext.expPrev = order.expPrev;
  order.expBucket = null;
  order.expPrev = null;
  order.expNext = null;
  if (--bucket.count === 0) expiry.buckets.delete(bucket.second);
}

/** The earliest goodTilTime second that still holds orders, or Infinity. */
function nextSecond(expiry: Expiry): number {
  const heap = expiry.heap;
  while (heap.length > 0) {
    const top = heap[0]!;
    if (expiry.buckets.has(top)) return top;
    heapPop(heap);
  }
  return Infinity;
}

/** Orders whose goodTilTime is at or before `time`, earliest first (ties by orderId). */
export function dueOrders(expiry: Expiry, time: number): Order[] {
  const out: Order[] = [];
  const limitSecond = Math.floor(time / BUCKET_US);
  // Walk buckets in key order without popping the one that may be only partly due.
  const visited: number[] = [];
  for (;;) {
    const second = nextSecond(expiry);
    if (second > limitSecond) break;
    // A bucket emptied and refilled leaves its key in the heap twice; visit it once.
    if (visited.length > 0 && visited[visited.length - 1] === second) {
      heapPop(expiry.heap);
      continue;
    }
    const bucket = expiry.buckets.get(second)!;
    for (let o = bucket.head; o !== null; o = o.expNext) if (o.goodTilTime <= time) out.push(o);
    visited.push(heapPop(expiry.heap));
  }
  for (const second of visited) if (expiry.buckets.has(second)) heapPush(expiry.heap, second);
  if (out.length > 1) out.sort((a, b) => a.goodTilTime - b.goodTilTime || a.id - b.id);
  return out;
}

/** Cheap test run before every command. */
export function hasDue(expiry: Expiry, time: number): boolean {
  return nextSecond(expiry) <= Math.floor(time / BUCKET_US);
}

function heapPush(heap: number[], value: number): void {
  let i = heap.length;
  heap.push(value);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]! <= value) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap: number[]): number {
  const top = heap[0]!;
  const last = heap.pop()!;
  const n = heap.length;
  if (n > 0) {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && heap[r]! < heap[l]! ? r : l;
      if (heap[c]! >= last) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
  }
  return top;
}
