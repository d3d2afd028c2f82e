/**
 * The replayed order book of one market, kept outside the engine.
 *
 * Contract: levels are absolute sizes by price (ticks → quantums), updated by snapshots and
 * deltas exactly as recorded. Prices are kept in ascending arrays per side (best bid at the end,
 * best ask at the start), which is O(depth) per new level and O(1) for the best price — replayed
 * books change near the top. `consumed` is what the strategy's own taker fills took from a level:
 * the level shows `size - consumed` to the strategy until the recording next updates that level
 * (docs/decisions.md "Replayed liquidity").
 */
export class ReplaySide {
  readonly sizes = new Map<number, number>();
  /** Ascending prices. */
  readonly prices: number[] = [];
  readonly consumed = new Map<number, number>();

  constructor(readonly isBid: boolean) {}

  /** Sets a level's absolute size (0 removes it); the level's consumption resets. */
  set(price: number, size: number): void {
    if (this.consumed.size > 0) this.consumed.delete(price);
    const had = this.sizes.has(price);
    if (size <= 0) {
      if (!had) return;
      this.sizes.delete(price);
      this.prices.splice(this.search(price), 1);
      return;
    }
    this.sizes.set(price, size);
    if (!had) this.prices.splice(this.search(price), 0, price);
  }

  clear(): void {
    this.sizes.clear();
    this.prices.length = 0;
    this.consumed.clear();
  }

  /** What the strategy may still take at `price`. */
  visible(price: number): number {
    const size = this.sizes.get(price);
    if (size === undefined) return 0;
    return size - (this.consumed.get(price) ?? 0);
  }

  consume(price: number, qty: number): void {
    if (qty > 0) this.consumed.set(price, (this.consumed.get(price) ?? 0) + qty);
  }

  /** Best price with visible size, or 0 when none. */
  best(): number {
    const n = this.prices.length;
    if (this.isBid) {
      for (let i = n - 1; i >= 0; i--) if (this.visible(this.prices[i]!) > 0) return this.prices[i]!;
    } else {
      for (let i = 0; i < n; i++) if (this.visible(this.prices[i]!) > 0) return this.prices[i]!;
    }
    return 0;
  }

  /** Up to `n` visible levels, best first, as flat [price, size, …]. */
  top(n: number): number[] {
    const out: number[] = [];
    const count = this.prices.length;
    for (let k = 0; k < count && out.length < 2 * n; k++) {
      const price = this.prices[this.isBid ? count - 1 - k : k]!;
      const size = this.visible(price);
      if (size > 0) out.push(price, size);
    }
    return out;
  }

  /**
   * Visible levels that an order at `limit` on the other side would take, best first; only as
   * many as it takes to hold `need` in all.
   */
  crossing(limit: number, need = Infinity): number[] {
    const out: number[] = [];
    const count = this.prices.length;
    let held = 0;
    for (let k = 0; k < count && held < need; k++) {
      const price = this.prices[this.isBid ? count - 1 - k : k]!;
      if (this.isBid ? price < limit : price > limit) break;
      const size = this.visible(price);
      if (size > 0) {
        out.push(price, size);
        held += size;
      }
    }
    return out;
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
