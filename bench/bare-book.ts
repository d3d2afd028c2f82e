/**
 * The speed ceiling the engine is measured against: a price-time-priority book over several
 * markets, held entirely in typed arrays, with no events, no validation, no accounts and no
 * allocation per operation. Anything the engine does beyond this (validation, events,
 * sequencing, per-account bookkeeping) shows up as the gap between the two.
 *
 * Orders are addressed by a caller-chosen dense integer `ref` (the stream's order index), so
 * no id map is needed. Price levels are tick-indexed: level index = market * span + price.
 * Each level is a FIFO doubly linked list threaded through the order arrays.
 *
 * The stream generator also uses this book as its model of the exchange, which is what keeps
 * cancels and modifies pointed at live orders and the book in a steady state.
 */

export const SIDE_BUY = 0;
export const SIDE_SELL = 1;

/** place() outcomes, shared with the generator's expectations. */
export const PLACED_OPEN = 0;
export const PLACED_PARTIAL = 1;
export const PLACED_FILLED = 2;
/** An IOC (limit or market) that did not fill completely: the rest is dropped. */
export const PLACED_IOC_CANCELED = 3;
export const PLACED_POST_ONLY_REJECTED = 4;

export const TIF_GTT = 0;
export const TIF_IOC = 2;
export const TIF_ALO = 3;

const NIL = -1;

export class BareBook {
  readonly markets: number;
  /** Levels per market: valid prices are 0 .. span-1 ticks. */
  readonly span: number;

  // Per order, indexed by ref.
  readonly price: Int32Array;
  /** 0 when the order is not on the book. */
  readonly remaining: Int32Array;
  /** Filled so far: a modify's new total size is filled + new remaining on the venue. */
  readonly filled: Int32Array;
  readonly side: Uint8Array;
  readonly market: Uint8Array;
  private readonly next: Int32Array;
  private readonly prev: Int32Array;

  // Per level, indexed by market * span + price.
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  private readonly levelQty: Float64Array;

  // Per market. NIL best price means an empty side.
  readonly bestBid: Int32Array;
  readonly bestAsk: Int32Array;
  readonly bidOrders: Int32Array;
  readonly askOrders: Int32Array;

  /** Maker orders touched by a fill (one per trade). */
  trades = 0;
  tradedQty = 0;

  constructor(markets: number, span: number, orderCapacity: number) {
    this.markets = markets;
    this.span = span;
    this.price = new Int32Array(orderCapacity);
    this.remaining = new Int32Array(orderCapacity);
    this.filled = new Int32Array(orderCapacity);
    this.side = new Uint8Array(orderCapacity);
    this.market = new Uint8Array(orderCapacity);
    this.next = new Int32Array(orderCapacity);
    this.prev = new Int32Array(orderCapacity);
    this.head = new Int32Array(markets * span).fill(NIL);
    this.tail = new Int32Array(markets * span).fill(NIL);
    this.levelQty = new Float64Array(markets * span);
    this.bestBid = new Int32Array(markets).fill(NIL);
    this.bestAsk = new Int32Array(markets).fill(NIL);
    this.bidOrders = new Int32Array(markets);
    this.askOrders = new Int32Array(markets);
  }

  /** Bytes held by the typed arrays (they live outside the V8 heap). */
  byteSize(): number {
    let total = 0;
    for (const a of [
      this.price, this.remaining, this.filled, this.side, this.market, this.next, this.prev,
      this.head, this.tail, this.levelQty,
    ]) total += a.byteLength;
    return total;
  }

  isLive(ref: number): boolean {
    return this.remaining[ref]! > 0;
  }

  /** Total quantity resting at one price (0 when empty). */
  levelSize(m: number, price: number): number {
    return this.levelQty[m * this.span + price]!;
  }

  /**
   * New order. GTT matches then rests, IOC matches then drops the rest, ALO rests only when it
   * would not cross. `price` is the limit (for a MARKET IOC, the worst acceptable price).
   */
  place(ref: number, m: number, side: number, price: number, size: number, tif: number): number {
    if (tif === TIF_ALO) {
      if (this.crosses(m, side, price)) return PLACED_POST_ONLY_REJECTED;
      this.append(ref, m, side, price, size);
      return PLACED_OPEN;
    }
    const left = this.match(m, side, price, size);
    if (tif === TIF_IOC) return left === 0 ? PLACED_FILLED : PLACED_IOC_CANCELED;
    if (left === 0) return PLACED_FILLED;
    this.append(ref, m, side, price, left);
    this.filled[ref] = size - left;
    return left === size ? PLACED_OPEN : PLACED_PARTIAL;
  }

  cancel(ref: number): boolean {
    if (this.remaining[ref]! <= 0) return false;
    this.unlink(ref);
    return true;
  }

  /**
   * Venue rules: a pure size decrease keeps the order's place in the queue; a price change or
   * a size increase sends it to the back of the (new) level. Moves never cross in the stream.
   */
  modify(ref: number, newPrice: number, newRemaining: number): boolean {
    const rem = this.remaining[ref]!;
    if (rem <= 0) return false;
    const m = this.market[ref]!;
    if (newPrice === this.price[ref]! && newRemaining <= rem) {
      this.remaining[ref] = newRemaining;
      this.levelQty[m * this.span + newPrice]! -= rem - newRemaining;
      return true;
    }
    const side = this.side[ref]!;
    this.unlink(ref);
    this.append(ref, m, side, newPrice, newRemaining);
    return true;
  }

  private crosses(m: number, side: number, price: number): boolean {
    if (side === SIDE_BUY) {
      const ask = this.bestAsk[m]!;
      return ask !== NIL && price >= ask;
    }
    const bid = this.bestBid[m]!;
    return bid !== NIL && price <= bid;
  }

  /** Takes liquidity from the opposite side up to `limit`; returns the unfilled size. */
  private match(m: number, takerSide: number, limit: number, size: number): number {
    const base = m * this.span;
    let left = size;
    if (takerSide === SIDE_BUY) {
      let p = this.bestAsk[m]!;
      while (left > 0 && p !== NIL && p <= limit) {
        left = this.takeLevel(base + p, left);
        p = this.bestAsk[m]!;
      }
    } else {
      let p = this.bestBid[m]!;
      while (left > 0 && p !== NIL && p >= limit) {
        left = this.takeLevel(base + p, left);
        p = this.bestBid[m]!;
      }
    }
    return left;
  }

  private takeLevel(level: number, want: number): number {
    let left = want;
    let o = this.head[level]!;
    while (left > 0 && o !== NIL) {
      const rem = this.remaining[o]!;
      const next = this.next[o]!;
      this.trades++;
      if (rem <= left) {
        left -= rem;
        this.tradedQty += rem;
        this.filled[o]! += rem;
        this.unlink(o);
      } else {
        this.remaining[o] = rem - left;
        this.filled[o]! += left;
        this.levelQty[level]! -= left;
        this.tradedQty += left;
        left = 0;
      }
      o = next;
    }
    return left;
  }

  private append(ref: number, m: number, side: number, price: number, size: number): void {
    const level = m * this.span + price;
    this.price[ref] = price;
    this.remaining[ref] = size;
    this.side[ref] = side;
    this.market[ref] = m;
    const t = this.tail[level]!;
    this.prev[ref] = t;
    this.next[ref] = NIL;
    if (t === NIL) this.head[level] = ref;
    else this.next[t] = ref;
    this.tail[level] = ref;
    this.levelQty[level]! += size;
    if (side === SIDE_BUY) {
      this.bidOrders[m]!++;
      const best = this.bestBid[m]!;
      if (best === NIL || price > best) this.bestBid[m] = price;
    } else {
      this.askOrders[m]!++;
      const best = this.bestAsk[m]!;
      if (best === NIL || price < best) this.bestAsk[m] = price;
    }
  }

  private unlink(ref: number): void {
    const m = this.market[ref]!;
    const price = this.price[ref]!;
    const base = m * this.span;
    const level = base + price;
    const p = this.prev[ref]!;
    const n = this.next[ref]!;
    if (p === NIL) this.head[level] = n;
    else this.next[p] = n;
    if (n === NIL) this.tail[level] = p;
    else this.prev[n] = p;
    this.levelQty[level]! -= this.remaining[ref]!;
    this.remaining[ref] = 0;
    const buy = this.side[ref] === SIDE_BUY;
    const sideOrders = buy ? --this.bidOrders[m]! : --this.askOrders[m]!;
    if (this.head[level] !== NIL) return;
    // The level emptied: if it was the best, walk outwards to the next non-empty one.
    if (buy) {
      if (sideOrders === 0) this.bestBid[m] = NIL;
      else if (price === this.bestBid[m]) {
        let q = price - 1;
        while (this.head[base + q] === NIL) q--;
        this.bestBid[m] = q;
      }
    } else {
      if (sideOrders === 0) this.bestAsk[m] = NIL;
      else if (price === this.bestAsk[m]) {
        let q = price + 1;
        while (this.head[base + q] === NIL) q++;
        this.bestAsk[m] = q;
      }
    }
  }
}
