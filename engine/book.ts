/**
 * The price-level book of one market.
 *
 * Layout: each side keeps its levels in an array sorted from worst to best price, so the best
 * level is the last element (push/pop at the end for the common case of activity at the top),
 * plus a Map from price to level for O(1) lookup. A level is a FIFO doubly-linked list of orders
 * with the sum of their remaining sizes.
 *
 * Ordering invariant: within a level, orders are in arrival order (price-time priority); an
 * order that loses priority is removed and appended again. The book is never crossed: matching
 * happens before anything rests.
 *
 * Complexity: insert into an existing level O(1); a new level O(log L) search plus a splice
 * that is short when the price is near the top; remove O(1) except when a level empties away
 * from the top (splice). Best level O(1).
 *
 * Measured alternatives (docs/decisions.md): functional-red-black-tree allocates a path of nodes
 * per insert and was slower than this array for books whose activity sits near the top; the
 * price lookup is an integer hash table (price-index.ts) rather than a Map.
 */
import type { Level, Order } from './records.ts';
import { createPriceIndex, priceDelete, priceGet, priceSet, type PriceIndex } from './price-index.ts';
import type { SideCode } from './types.ts';

export type { Level } from './records.ts';

export interface BookSide {
  side: SideCode;
  /** Worst to best. */
  levels: Level[];
  /**
   * The levels' sort keys, in step with `levels`: the binary searches of addLevel / dropLevel
   * probe this small-integer array instead of ~9 level records scattered over the heap.
   */
  keys: number[];
  byPrice: PriceIndex<Level>;
}

export interface Book {
  bids: BookSide;
  asks: BookSide;
}

export function createBook(): Book {
  return {
    bids: { side: 0, levels: [], keys: [], byPrice: createPriceIndex() },
    asks: { side: 1, levels: [], keys: [], byPrice: createPriceIndex() },
  };
}

export function bookSide(book: Book, side: SideCode): BookSide {
  return side === 0 ? book.bids : book.asks;
}

export function bestLevel(side: BookSide): Level | undefined {
  const levels = side.levels;
  // Never index -1: a miss there is a slow named-property lookup, not an array read.
  return levels.length === 0 ? undefined : levels[levels.length - 1];
}

export function levelAt(side: BookSide, price: number): Level | undefined {
  return priceGet(side.byPrice, price);
}

/** Appends a resting order at the back of its price level. */
export function insertOrder(book: Book, order: Order): void {
  const side = order.side === 0 ? book.bids : book.asks;
  let level = priceGet(side.byPrice, order.price);
  if (level === undefined) level = addLevel(side, order.price);
  order.level = level;
  order.next = null;
  order.prev = level.tail;
  if (level.tail === null) level.head = order;
  else level.tail.next = order;
  level.tail = order;
  level.size += order.remaining;
  level.count++;
}

/** Unlinks an order from its level, dropping the level when it empties. */
export function removeOrder(book: Book, order: Order): void {
  const level = order.level;
  if (level === null) return;
  if (order.prev === null) level.head = order.next;
  else order.prev.next = order.next;
  if (order.next === null) level.tail = order.prev;
  else order.next.prev = order.prev;
  level.size -= order.remaining;
  level.count--;
  order.level = null;
  order.prev = null;
  order.next = null;
  if (level.count === 0) dropLevel(order.side === 0 ? book.bids : book.asks, level);
}

/** Takes `qty` off a resting order (a fill, or an in-place size decrease); keeps its place. */
export function reduceOrder(book: Book, order: Order, qty: number): void {
  const level = order.level;
  if (level !== null) level.size -= qty;
  order.remaining -= qty;
  if (order.remaining === 0) removeOrder(book, order);
}

function addLevel(side: BookSide, price: number): Level {
  const key = side.side === 0 ? price : -price;
  const level: Level = { price, key, side: side.side, size: 0, count: 0, head: null, tail: null };
  const levels = side.levels;
  const keys = side.keys;
  const n = keys.length;
  if (n === 0 || keys[n - 1]! < key) {
    levels.push(level);
    keys.push(key);
  } else {
    const at = searchKey(keys, key);
    levels.splice(at, 0, level);
    keys.splice(at, 0, key);
  }
  priceSet(side.byPrice, price, level);
  return level;
}

function dropLevel(side: BookSide, level: Level): void {
  priceDelete(side.byPrice, level.price);
  const levels = side.levels;
  const n = levels.length;
  if (levels[n - 1] === level) {
    levels.pop();
    side.keys.pop();
    return;
  }
  const at = searchKey(side.keys, level.key);
  levels.splice(at, 1);
  side.keys.splice(at, 1);
}

/** The first index whose key is not below `key` (keys ascending). */
function searchKey(keys: number[], key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The best `n` levels of a side as [price, size] pairs, best first. */
export function topLevels(side: BookSide, n: number): [number, number][] {
  const out: [number, number][] = [];
  const levels = side.levels;
  for (let i = levels.length - 1; i >= 0 && out.length < n; i--) {
    const level = levels[i]!;
    out.push([level.price, level.size]);
  }
  return out;
}

/** True when a `side` order at `price` would trade with the best opposite level. */
export function crosses(book: Book, side: SideCode, price: number): boolean {
  const best = bestLevel(side === 0 ? book.asks : book.bids);
  if (best === undefined) return false;
  return side === 0 ? price >= best.price : price <= best.price;
}
