/**
 * The replayed order book of one market, kept outside the engine.
 *
 * Contract: levels are absolute sizes by price (ticks → quantums), updated by snapshots and
 * deltas exactly as recorded. Prices are kept in ascending arrays per side (best bid at the end,
 * best ask at the start), which is O(depth) per new level and O(1) for the best price — replayed
 * books change near the top; readers walk a side by rank from the best (`priceAt`, `visibleAt`). `consumed` is what the strategy's own taker fills took from a level:
 * the level shows `size - consumed` to the strategy until the recording next updates that level
 * (docs/decisions.md "Replayed liquidity").
 */
export class ReplaySide {
  /**
   * Ascending prices, with each level's recorded size and what own fills consumed of it at the
   * same index: plain arrays shifted in place (a level changes near the top of a few dozen), so a
   * book event allocates nothing — Maps keyed by price rehashed under the churn of levels and
   * splice returned an array per call, garbage the young generation copied.
   */
  private readonly prices: number[] = [];
  private readonly sizes: number[] = [];
  private readonly taken: number[] = [];

  constructor(readonly isBid: boolean) {}

  /** Levels held (some may show nothing: all their size consumed). */
  get count(): number {
    return this.prices.length;
  }

  /** The price of the level `rank` places from the best (0: the best). */
  priceAt(rank: number): number {
    return this.prices[this.isBid ? this.prices.length - 1 - rank : rank]!;
  }

  /** What the strategy may still take at the level `rank` places from the best. */
  visibleAt(rank: number): number {
    const i = this.isBid ? this.prices.length - 1 - rank : rank;
    return this.sizes[i]! - this.taken[i]!;
  }

  /** Sets a level's absolute size (0 removes it); the level's consumption resets. */
  set(price: number, size: number): void {
    const i = this.search(price);
    const had = i < this.prices.length && this.prices[i] === price;
    if (size <= 0) {
      if (had) this.remove(i);
      return;
    }
    if (had) {
      this.sizes[i] = size;
      this.taken[i] = 0;
    } else this.insert(i, price, size);
  }

  clear(): void {
    this.prices.length = 0;
    this.sizes.length = 0;
    this.taken.length = 0;
  }

  /** What the strategy may still take at `price`. */
  visible(price: number): number {
    const i = this.indexOf(price);
    return i < 0 ? 0 : this.sizes[i]! - this.taken[i]!;
  }

  /** Own fills took `qty` at `price` (a level the book does not hold has nothing to show: no-op). */
  consume(price: number, qty: number): void {
    if (qty <= 0) return;
    const i = this.indexOf(price);
    if (i >= 0) this.taken[i] = this.taken[i]! + qty;
  }

  /** Best price with visible size, or 0 when none. */
  best(): number {
    const n = this.prices.length;
    for (let k = 0; k < n; k++) if (this.visibleAt(k) > 0) return this.priceAt(k);
    return 0;
  }

  /** Up to `n` visible levels, best first, as flat [price, size, …]. */
  top(n: number): number[] {
    const out: number[] = [];
    const count = this.prices.length;
    for (let k = 0; k < count && out.length < 2 * n; k++) {
      const size = this.visibleAt(k);
      if (size > 0) out.push(this.priceAt(k), size);
    }
    return out;
  }

  /**
   * Visible levels that an order at `limit` on the other side would take, best first; only as
   * many as it takes to hold `need` in all.
   */
  crossing(limit: number, need = Infinity): number[] {
    const out: number[] = [];
    this.crossingInto(limit, need, out);
    return out;
  }

  /**
   * `crossing` written into `out` from its start; answers how many values it wrote (what `out`
   * holds past them is stale). For a caller that reuses one array: its length is never cut, so
   * V8 never trims its store.
   */
  crossingInto(limit: number, need: number, out: number[]): number {
    const count = this.prices.length;
    let held = 0;
    let n = 0;
    for (let k = 0; k < count && held < need; k++) {
      const price = this.priceAt(k);
      if (this.isBid ? price < limit : price > limit) break;
      const size = this.visibleAt(k);
      if (size > 0) {
        if (n + 1 < out.length) {
          out[n] = price;
          out[n + 1] = size;
        } else if (n < out.length) {
          out[n] = price;
          out.push(size);
        } else out.push(price, size);
        n += 2;
        held += size;
      }
    }
    return n;
  }

  private indexOf(price: number): number {
    const i = this.search(price);
    return i < this.prices.length && this.prices[i] === price ? i : -1;
  }

  private insert(i: number, price: number, size: number): void {
    const p = this.prices;
    const s = this.sizes;
    const t = this.taken;
    p.push(price);
    s.push(size);
    t.push(0);
    for (let k = p.length - 1; k > i; k--) {
      p[k] = p[k - 1]!;
      s[k] = s[k - 1]!;
      t[k] = t[k - 1]!;
    }
    p[i] = price;
    s[i] = size;
    t[i] = 0;
  }

  private remove(i: number): void {
    const p = this.prices;
    const s = this.sizes;
    const t = this.taken;
    const n = p.length - 1;
    for (let k = i; k < n; k++) {
      p[k] = p[k + 1]!;
      s[k] = s[k + 1]!;
      t[k] = t[k + 1]!;
    }
    p.pop();
    s.pop();
    t.pop();
  }

  private search(price: number): number {
    let lo = 0;
    let hi = this.prices.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.prices[mid]! < price) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class ReplayBook {
  readonly bids = new ReplaySide(true);
  readonly asks = new ReplaySide(false);

  side(side: 0 | 1): ReplaySide {
    return side === 0 ? this.bids : this.asks;
  }

  /** Applies a recorded snapshot or delta (flat [price, size, …] per side). */
  apply(snapshot: boolean, bids: readonly number[], asks: readonly number[]): void {
    if (snapshot) {
      this.bids.clear();
      this.asks.clear();
    }
    for (let i = 0; i < bids.length; i += 2) this.bids.set(bids[i]!, bids[i + 1]!);
    for (let i = 0; i < asks.length; i += 2) this.asks.set(asks[i]!, asks[i + 1]!);
  }
}
