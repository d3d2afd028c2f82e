/**
 * The price-level book of one market.
 *
 * Layout: each side keeps its levels as struct-of-arrays records addressed by a dense integer
 * handle (price, Σ remaining, order count in typed arrays; the FIFO queue's first and last order
 * in two plain arrays), a free list of handles, the handles sorted from worst to best price with
 * their sort keys in step (the best level is the last element: activity at the top is a push or
 * pop at the end), and an integer hash from price to handle (price-index.ts). A level is a FIFO
 * doubly-linked list of orders (Order.prev / next); an order names its level by handle
 * (Order.level, NO_LEVEL when it does not rest). Nothing is allocated per level or per order:
 * the arrays double when full.
 *
 * Ordering invariant: within a level, orders are in arrival order (price-time priority); an
 * order that loses priority is removed and appended again. The book is never crossed: matching
 * happens before anything rests.
 *
 * Complexity: insert into an existing level O(1); a new level O(log L) search plus a shift that
 * is short when the price is near the top; remove O(1) except when a level empties away from
 * the top (shift). Best level O(1).
 *
 * Callers see named readers (bestPrice, bestSize, levelSizeAt, levelsBestFirst, levelOrders),
 * never handles. Measured alternatives (docs/decisions.md): functional-red-black-tree allocated
 * a path of nodes per insert and was slower than the sorted array for books whose activity sits
 * near the top.
 */
import type { Order } from './records.ts';
import { createPriceIndex, NO_LEVEL, priceDelete, priceGet, priceSet, type PriceIndex } from './price-index.ts';
import type { SideCode } from './types.ts';
import { plainRecord } from './plain-record.ts';

export { NO_LEVEL } from './price-index.ts';

/** A level as readers outside the book see it (a copy: the book keeps no such record). */
export interface LevelView {
  price: number;
  /** Σ remaining of the orders at this level, in quantums. */
  size: number;
  count: number;
}

export interface BookSide {
  side: SideCode;
  // Per level handle.
  price: Float64Array;
  size: Float64Array;
  count: Int32Array;
  head: (Order | null)[];
  tail: (Order | null)[];
  /** Free handles, a stack: the first `freeCount` are current. */
  free: Int32Array;
  freeCount: number;
  /**
   * Handles of the live levels sorted worst to best (the first `length`), and their sort keys in
   * step: price on the bid side, -price on the ask side (ascending = worse to better).
   */
  sorted: Int32Array;
  keys: Float64Array;
  length: number;
  byPrice: PriceIndex;
}

export interface Book {
  bids: BookSide;
  asks: BookSide;
}

const INITIAL_LEVELS = 64;

const buildBookSide = plainRecord<BookSide>();

export function createBookSide(side: SideCode, capacity = INITIAL_LEVELS): BookSide {
  const free = new Int32Array(capacity);
  // Handle 0 on top of the stack, so that a fresh side hands out 0, 1, 2, ...
  for (let i = 0; i < capacity; i++) free[i] = capacity - 1 - i;
  return buildBookSide({
    side,
    price: new Float64Array(capacity),
    size: new Float64Array(capacity),
    count: new Int32Array(capacity),
    head: new Array<Order | null>(capacity).fill(null),
    tail: new Array<Order | null>(capacity).fill(null),
    free,
    freeCount: capacity,
    sorted: new Int32Array(capacity),
    keys: new Float64Array(capacity),
    length: 0,
    byPrice: createPriceIndex(),
  });
}

const buildBook = plainRecord<Book>();

export function createBook(): Book {
  return buildBook({ bids: createBookSide(0), asks: createBookSide(1) });
}

export function bookSide(book: Book, side: SideCode): BookSide {
  return side === 0 ? book.bids : book.asks;
}

/** The number of price levels on a side. */
export function levelCount(side: BookSide): number {
  return side.length;
}

/** The best price of a side, 0 when it is empty (a price is at least one tick). */
export function bestPrice(side: BookSide): number {
  return side.length === 0 ? 0 : side.price[side.sorted[side.length - 1]!]!;
}

/** The size at the best price of a side, 0 when it is empty. */
export function bestSize(side: BookSide): number {
  return side.length === 0 ? 0 : side.size[side.sorted[side.length - 1]!]!;
}

/** The best level as a copy, for readers outside the hot path (gateway, tests). */
export function bestLevel(side: BookSide): LevelView | undefined {
  return side.length === 0 ? undefined : view(side, side.sorted[side.length - 1]!);
}

/** The level at `price` as a copy, or undefined. */
export function levelAt(side: BookSide, price: number): LevelView | undefined {
  const h = priceGet(side.byPrice, price);
  return h === NO_LEVEL ? undefined : view(side, h);
}

/** The size resting at `price`, 0 when there is no level. */
export function levelSizeAt(side: BookSide, price: number): number {
  const h = priceGet(side.byPrice, price);
  return h === NO_LEVEL ? 0 : side.size[h]!;
}

function view(side: BookSide, h: number): LevelView {
  return { price: side.price[h]!, size: side.size[h]!, count: side.count[h]! };
}

/** A side's levels, best first (copies). */
export function* levelsBestFirst(side: BookSide): Generator<LevelView> {
  for (let i = side.length - 1; i >= 0; i--) yield view(side, side.sorted[i]!);
}

/** The orders resting at `price`, front of the queue first (empty when there is no level). */
export function levelOrders(side: BookSide, price: number): Order[] {
  const out: Order[] = [];
  const h = priceGet(side.byPrice, price);
  if (h === NO_LEVEL) return out;
  for (let o = side.head[h] as Order | null; o !== null; o = o.next) out.push(o);
  return out;
}

/** The first order of the best level, or null when the side is empty. */
export function bestHead(side: BookSide): Order | null {
  return side.length === 0 ? null : (side.head[side.sorted[side.length - 1]!] as Order | null);
}

/** Appends a resting order at the back of its price level. */
export function insertOrder(book: Book, order: Order): void {
  const side = order.side === 0 ? book.bids : book.asks;
  let h = priceGet(side.byPrice, order.price);
  if (h === NO_LEVEL) h = addLevel(side, order.price);
  order.level = h;
  order.next = null;
  const tail = side.tail[h] as Order | null;
  order.prev = tail;
  if (tail === null) side.head[h] = order;
  else tail.next = order;
  side.tail[h] = order;
  side.size[h] = side.size[h]! + order.remaining;
  side.count[h] = side.count[h]! + 1;
}

/** Unlinks an order from its level, dropping the level when it empties. */
export function removeOrder(book: Book, order: Order): void {
  const h = order.level;
  if (h === NO_LEVEL) return;
  const side = order.side === 0 ? book.bids : book.asks;
  if (order.prev === null) side.head[h] = order.next;
  else order.prev.next = order.next;
  if (order.next === null) side.tail[h] = order.prev;
  else order.next.prev = order.prev;
  side.size[h] = side.size[h]! - order.remaining;
  order.level = NO_LEVEL;
  order.prev = null;
  order.next = null;
  const left = side.count[h]! - 1;
  side.count[h] = left;
  if (left === 0) dropLevel(side, h);
}

/** Takes `qty` off a resting order (a fill, or an in-place size decrease); keeps its place. */
export function reduceOrder(book: Book, order: Order, qty: number): void {
  const h = order.level;
  if (h !== NO_LEVEL) {
    const sizes = (order.side === 0 ? book.bids : book.asks).size;
    sizes[h] = sizes[h]! - qty;
  }
  order.remaining -= qty;
  if (order.remaining === 0) removeOrder(book, order);
}

function addLevel(side: BookSide, price: number): number {
  if (side.freeCount === 0) growSide(side);
  const h = side.free[--side.freeCount]!;
  side.price[h] = price;
  side.size[h] = 0;
  side.count[h] = 0;
  side.head[h] = null;
  side.tail[h] = null;
  const key = side.side === 0 ? price : -price;
  const sorted = side.sorted;
  const keys = side.keys;
  const n = side.length;
  if (n === 0 || keys[n - 1]! < key) {
    sorted[n] = h;
    keys[n] = key;
  } else {
    const at = searchKey(keys, n, key);
    sorted.copyWithin(at + 1, at, n);
    keys.copyWithin(at + 1, at, n);
    sorted[at] = h;
    keys[at] = key;
  }
  side.length = n + 1;
  priceSet(side.byPrice, price, h);
  return h;
}

function dropLevel(side: BookSide, h: number): void {
  const price = side.price[h]!;
  priceDelete(side.byPrice, price);
  side.head[h] = null;
  side.tail[h] = null;
  side.free[side.freeCount++] = h;
  const n = side.length - 1;
  side.length = n;
  if (side.sorted[n] === h) return;
  const at = searchKey(side.keys, n + 1, side.side === 0 ? price : -price);
  side.sorted.copyWithin(at, at + 1, n + 1);
  side.keys.copyWithin(at, at + 1, n + 1);
}

/** Doubles a side's level arrays; the new handles go on the free stack. */
function growSide(side: BookSide): void {
  const old = side.price.length;
  const capacity = old * 2;
  const widen = <T extends Float64Array | Int32Array>(a: T, make: (n: number) => T): T => {
    const b = make(capacity);
    b.set(a);
    return b;
  };
  side.price = widen(side.price, (n) => new Float64Array(n));
  side.size = widen(side.size, (n) => new Float64Array(n));
  side.count = widen(side.count, (n) => new Int32Array(n));
  side.sorted = widen(side.sorted, (n) => new Int32Array(n));
  side.keys = widen(side.keys, (n) => new Float64Array(n));
  for (let i = old; i < capacity; i++) {
    side.head.push(null);
    side.tail.push(null);
  }
  side.free = widen(side.free, (n) => new Int32Array(n));
  for (let i = capacity - 1; i >= old; i--) side.free[side.freeCount++] = i;
}

/** The first index below `n` whose key is not below `key` (keys ascending). */
function searchKey(keys: Float64Array, n: number, key: number): number {
  let lo = 0;
  let hi = n - 1;
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
  for (let i = side.length - 1; i >= 0 && out.length < n; i--) {
    const h = side.sorted[i]!;
    out.push([side.price[h]!, side.size[h]!]);
  }
  return out;
}

/** True when a `side` order at `price` would trade with the best opposite level. */
export function crosses(book: Book, side: SideCode, price: number): boolean {
  const opposite = side === 0 ? book.asks : book.bids;
  if (opposite.length === 0) return false;
  const best = opposite.price[opposite.sorted[opposite.length - 1]!]!;
  return side === 0 ? price >= best : price <= best;
}

/**
 * Rebuilds a side from levels listed worst to best, each with its queue front first: the
 * migration of images written when levels were linked records (restore.ts).
 */
export function rebuildSide(side: SideCode, levels: readonly { price: number; orders: readonly Order[] }[]): BookSide {
  let capacity = INITIAL_LEVELS;
  while (capacity < levels.length) capacity *= 2;
  const out = createBookSide(side, capacity);
  const book: Book = side === 0 ? { bids: out, asks: createBookSide(1, 1) } : { bids: createBookSide(0, 1), asks: out };
  for (const level of levels) {
    for (const order of level.orders) {
      order.level = NO_LEVEL;
      insertOrder(book, order);
    }
  }
  return out;
}
