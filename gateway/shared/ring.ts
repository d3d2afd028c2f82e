/**
 * A capped list as a ring: the newest `cap` entries of a key's history, oldest dropped first,
 * without moving the others. `Array#shift` on a full list is O(1) only while V8 may trim the
 * array's start; while a major GC marks it may not, and moves every element (~1.3 µs an order
 * under perf with every list at its cap; docs/decisions.md). Plain data: `items` holds the entries, `start` the
 * index of the oldest once the ring has wrapped (0 before). Readers go through the functions
 * below, never `items` directly; images hold `ringToArray`'s oldest-first arrays (the layout of
 * the plain lists the ring replaced) and come back through `ringOf`.
 *
 * Contract: `ringPush(ring, v, cap)` leaves the ring equal to `push(v)` then, past `cap`,
 * `shift()` on the oldest-first array, and returns what that `shift` returned (a list already
 * longer than `cap`, from an image written with a larger cap, keeps its length, as it did).
 * A leaf: it imports nothing.
 */

export interface Ring<T> {
  items: T[];
  /** Index in `items` of the oldest entry. */
  start: number;
}

/** A ring over an oldest-first array (taken, not copied). */
export function ringOf<T>(items: T[]): Ring<T> {
  return { items, start: 0 };
}

/** An empty ring. */
export function newRing<T>(): Ring<T> {
  return { items: [], start: 0 };
}

/** Appends `value`; past `cap` drops the oldest entry and returns it. */
export function ringPush<T>(ring: Ring<T>, value: T, cap: number): T | undefined {
  const items = ring.items;
  const n = items.length;
  if (n < cap) {
    // Only a ring that wrapped under a smaller cap has start > 0 here: unwrap it first.
    if (ring.start !== 0) unwrap(ring);
    ring.items.push(value);
    return undefined;
  }
  if (n === 0) return value;
  const start = ring.start;
  const dropped = items[start];
  items[start] = value;
  ring.start = start + 1 === n ? 0 : start + 1;
  return dropped;
}

export function ringLength(ring: Ring<unknown>): number {
  return ring.items.length;
}

/** The `i`-th oldest entry (0 ≤ i < length). */
export function ringAt<T>(ring: Ring<T>, i: number): T {
  const items = ring.items;
  const j = ring.start + i;
  return items[j < items.length ? j : j - items.length]!;
}

/** The entries, oldest first, as a new array. */
export function ringToArray<T>(ring: Ring<T>): T[] {
  const items = ring.items;
  const start = ring.start;
  if (start === 0) return items.slice();
  const out = items.slice(start);
  for (let i = 0; i < start; i++) out.push(items[i]!);
  return out;
}

export function ringClear(ring: Ring<unknown>): void {
  ring.items.length = 0;
  ring.start = 0;
}

/**
 * The newest entry that matches, walking back from the newest; undefined when none does.
 */
export function ringFindNewest<T>(ring: Ring<T>, matches: (entry: T) => boolean): T | undefined {
  for (let i = ring.items.length - 1; i >= 0; i--) {
    const e = ringAt(ring, i);
    if (matches(e)) return e;
  }
  return undefined;
}

/**
 * The entries newest first, stopping at the first one older than `from` (entries are in time
 * order) and skipping those newer than `to`: a time window read lazily.
 */
export function* ringNewestInWindow<T extends { time: number }>(ring: Ring<T>, from: number, to: number): Generator<T, void, undefined> {
  for (let i = ring.items.length - 1; i >= 0; i--) {
    const e = ringAt(ring, i);
    if (e.time < from) return;
    if (e.time <= to) yield e;
  }
}

/** Newest first, the entries that match, up to `limit`; `total` counts every match (window.ts `newestFirst` over the ring). */
export function ringNewestFirst<T>(ring: Ring<T>, matches: (entry: T) => boolean, limit: number): { rows: T[]; total: number } {
  const rows: T[] = [];
  let total = 0;
  for (let i = ring.items.length - 1; i >= 0; i--) {
    const entry = ringAt(ring, i);
    if (!matches(entry)) continue;
    total++;
    if (rows.length < limit) rows.push(entry);
  }
  return { rows, total };
}

function unwrap(ring: Ring<unknown>): void {
  ring.items = ringToArray(ring);
  ring.start = 0;
}
