/**
 * Which accounts a price move may have brought below maintenance margin, without scanning them.
 *
 * Each account with positions has a health slack S = equity − maintenance margin, separately for
 * its cross side and for each isolated position. The slack is split evenly over the k
 * positions that draw on it, and each position gets a trigger price: the mark at which that
 * position alone would use up its share S / k. While no mark has crossed any of an account's
 * triggers, every position has used less than its share, so the account is still above
 * maintenance — whatever the markets did together. When a mark crosses a trigger the account is
 * re-evaluated exactly: liquidated if it is below maintenance, otherwise given fresh triggers.
 * Triggers are computed in floating point and then moved one tick towards the current price,
 * so they can fire early (a harmless re-evaluation) but never late.
 *
 * Layout per market: two binary min-heaps in typed arrays, longs keyed by −trigger (they fire
 * when the mark falls to the trigger) and shorts by +trigger. Entries carry the account's id and
 * the position's `triggerVersion`; a new trigger bumps the version, which makes the old entry
 * stale. A recomputed trigger that would fire later than the one in force is not pushed: the
 * old, earlier one stays valid (it can only cause an early re-check). Stale entries are skipped
 * when they surface and dropped by rebuilding when they dominate.
 */
export interface TriggerHeap {
  keys: Float64Array;
  ids: Int32Array;
  versions: Int32Array;
  size: number;
}

export interface MarketTriggers {
  longs: TriggerHeap;
  shorts: TriggerHeap;
}

function createHeap(): TriggerHeap {
  return { keys: new Float64Array(64), ids: new Int32Array(64), versions: new Int32Array(64), size: 0 };
}

export function createMarketTriggers(): MarketTriggers {
  return { longs: createHeap(), shorts: createHeap() };
}

export function addTrigger(mt: MarketTriggers, long: boolean, price: number, accountId: number, version: number): void {
  push(long ? mt.longs : mt.shorts, long ? -price : price, accountId, version);
}

/**
 * Account ids whose trigger the mark has reached (each entry taken out of the heap; stale ones
 * are filtered by the caller through `isCurrent`). Ids come out in trigger order.
 */
export function crossedTriggers(mt: MarketTriggers, mark: number, isCurrent: (id: number, version: number) => boolean): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  drain(mt.longs, -mark, isCurrent, out, seen);
  drain(mt.shorts, mark, isCurrent, out, seen);
  return out;
}

function drain(heap: TriggerHeap, threshold: number, isCurrent: (id: number, version: number) => boolean, out: number[], seen: Set<number>): void {
  while (heap.size > 0 && heap.keys[0]! <= threshold) {
    const id = heap.ids[0]!;
    const version = heap.versions[0]!;
    pop(heap);
    if (isCurrent(id, version) && !seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  }
}

/** Drops stale entries once they outnumber `live` (the number of current entries). */
export function compactTriggers(mt: MarketTriggers, live: number, isCurrent: (id: number, version: number) => boolean): void {
  for (const heap of [mt.longs, mt.shorts]) {
    if (heap.size < 1024 || heap.size < 4 * live) continue;
    let n = 0;
    for (let i = 0; i < heap.size; i++) {
      if (!isCurrent(heap.ids[i]!, heap.versions[i]!)) continue;
      heap.keys[n] = heap.keys[i]!;
      heap.ids[n] = heap.ids[i]!;
      heap.versions[n] = heap.versions[i]!;
      n++;
    }
    heap.size = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(heap, i);
  }
}

/**
 * The trigger of one position: the price at which the position alone uses `budget` quote
 * quantums of slack. `perTick` is how much health one tick of adverse move costs (> 0).
 * Long positions trigger below `price`, shorts above; the result is moved one tick inwards.
 */
export function triggerPrice(long: boolean, price: number, budget: number, perTick: number): number {
  const ticks = budget / perTick;
  if (long) return Math.max(0, Math.ceil(price - ticks) + 1);
  return Math.floor(price + ticks) - 1;
}

function grow(heap: TriggerHeap): void {
  const n = heap.keys.length * 2;
  const keys = new Float64Array(n);
  const ids = new Int32Array(n);
  const versions = new Int32Array(n);
  keys.set(heap.keys);
  ids.set(heap.ids);
  versions.set(heap.versions);
  heap.keys = keys;
  heap.ids = ids;
  heap.versions = versions;
}

function push(heap: TriggerHeap, key: number, id: number, version: number): void {
  if (heap.size === heap.keys.length) grow(heap);
  let i = heap.size++;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap.keys[parent]! <= key) break;
    heap.keys[i] = heap.keys[parent]!;
    heap.ids[i] = heap.ids[parent]!;
    heap.versions[i] = heap.versions[parent]!;
    i = parent;
  }
  heap.keys[i] = key;
  heap.ids[i] = id;
  heap.versions[i] = version;
}

function pop(heap: TriggerHeap): void {
  const last = --heap.size;
  if (last === 0) return;
  heap.keys[0] = heap.keys[last]!;
  heap.ids[0] = heap.ids[last]!;
  heap.versions[0] = heap.versions[last]!;
  siftDown(heap, 0);
}

function siftDown(heap: TriggerHeap, start: number): void {
  const n = heap.size;
  const key = heap.keys[start]!;
  const id = heap.ids[start]!;
  const version = heap.versions[start]!;
  let i = start;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && heap.keys[r]! < heap.keys[l]! ? r : l;
    if (heap.keys[c]! >= key) break;
    heap.keys[i] = heap.keys[c]!;
    heap.ids[i] = heap.ids[c]!;
    heap.versions[i] = heap.versions[c]!;
    i = c;
  }
  heap.keys[i] = key;
  heap.ids[i] = id;
  heap.versions[i] = version;
}
