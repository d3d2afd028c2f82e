/**
 * Fills of the strategy's resting orders by replayed flow. Each own order keeps its place in the
 * replayed level's queue (queue-model.ts); a replayed trade through it, or a replayed book that
 * crosses it, owes it a fill, which is executed as one reduce-only IOC order of a replay account
 * against the strategy's orders (the engine fills them best first, so fees, margin and
 * liquidation are the engine's own).
 */
import type { OrderEvent } from '../../engine/index.ts';
import type { Exchange } from '../../gateway/read-models/exchange.ts';
import { DEFAULT_GTT_US } from './client.ts';
import { tradeAgainst, type OwnOrder, type QueueModel } from './queue-model.ts';
import { REPLAY_LONG, REPLAY_SHORT, type MarketRuntime, type ReplayLiquidity, type SimTime } from './replay-liquidity.ts';

export class OwnFills {
  private ownSeq = 0;

  constructor(
    private readonly exchange: Exchange,
    private readonly liquidity: ReplayLiquidity,
    private readonly queue: QueueModel,
    private readonly time: SimTime,
  ) {}

  /** Keeps `m.own` in step with the strategy's order events. */
  track(m: MarketRuntime, e: OrderEvent): void {
    const index = m.own.findIndex((o) => o.orderId === e.orderId);
    const resting = (e.status === 'OPEN' || e.status === 'PARTIALLY_FILLED') && e.remaining > 0;
    if (!resting) {
      if (index >= 0) m.own.splice(index, 1);
    } else if (index < 0 || m.own[index]!.price !== e.price || m.own[index]!.remaining < e.remaining) {
      // New, repriced or grown: the back of the replayed level.
      const side = e.side === 0 ? m.book.bids : m.book.asks;
      const order: OwnOrder = { orderId: e.orderId, marketId: e.marketId, side: e.side, price: e.price, remaining: e.remaining, ahead: side.visible(e.price), seq: this.ownSeq++ };
      if (index >= 0) m.own[index] = order;
      else m.own.push(order);
    } else {
      m.own[index]!.remaining = e.remaining;
    }
  }

  /** A replayed trade: it may fill own orders, and the probabilistic model remembers its volume. */
  onTrade(m: MarketRuntime, aggressor: 0 | 1, price: number, size: number): void {
    if (m.own.length > 0) this.tradeAgainstOwn(m, aggressor, price, size);
    if (this.queue.name === 'probabilistic' && m.own.length > 0) m.traded.set(price, (m.traded.get(price) ?? 0) + size);
  }

  /** Applies a replayed book update to `m.book`, with what it does to own orders' queues before and the own orders it crosses after. */
  onBook(m: MarketRuntime, snapshot: boolean, bids: readonly number[], asks: readonly number[]): void {
    if (m.own.length > 0) this.shrinkQueues(m, snapshot, bids, asks);
    m.book.apply(snapshot, bids, asks);
    if (m.own.length > 0) this.crossOwn(m);
  }

  /** The queue model's view of levels about to change under own orders. */
  private shrinkQueues(m: MarketRuntime, snapshot: boolean, bids: readonly number[], asks: readonly number[]): void {
    for (const order of m.own) {
      const side = order.side === 0 ? m.book.bids : m.book.asks;
      const flat = order.side === 0 ? bids : asks;
      let after = snapshot ? 0 : -1;
      for (let i = 0; i < flat.length; i += 2) if (flat[i] === order.price) after = flat[i + 1]!;
      if (after < 0) continue;
      const before = side.visible(order.price);
      if (after >= before) continue;
      const traded = Math.min(before - after, m.traded.get(order.price) ?? 0);
      this.queue.onShrink(order, before, after, traded);
    }
    if (m.traded.size > 0) {
      for (let i = 0; i < bids.length; i += 2) m.traded.delete(bids[i]!);
      for (let i = 0; i < asks.length; i += 2) m.traded.delete(asks[i]!);
      if (snapshot) m.traded.clear();
    }
  }

  /** Own orders best first (FIFO at a price). */
  private ownByPriority(m: MarketRuntime, side: 0 | 1): OwnOrder[] {
    return m.own.filter((o) => o.side === side).sort((a, b) => (a.price !== b.price ? (side === 0 ? b.price - a.price : a.price - b.price) : a.seq - b.seq));
  }

  /** Runs per replayed trade with own orders: allocates nothing unless the trade reaches an own order's price. */
  private tradeAgainstOwn(m: MarketRuntime, aggressor: 0 | 1, price: number, size: number): void {
    const restingSide = aggressor === 0 ? 1 : 0;
    let reached = false;
    // tradeAgainst's test: a sell meets bids at or above its price, a buy asks at or below.
    for (let i = 0; i < m.own.length && !reached; i++) {
      const o = m.own[i]!;
      reached = o.side === restingSide && o.remaining > 0 && (aggressor === 1 ? o.price >= price : o.price <= price);
    }
    if (!reached) return;
    const resting = this.ownByPriority(m, restingSide);
    if (resting.length === 0) return;
    const owed = new Map<number, number>();
    const total = tradeAgainst(resting, aggressor, price, size, owed);
    if (total > 0) this.fillOwn(m, aggressor, resting, owed, total);
  }

  /** A replayed book that now crosses own resting orders fills them from the crossing levels. */
  private crossOwn(m: MarketRuntime): void {
    this.crossOwnSide(m, 0);
    this.crossOwnSide(m, 1);
  }

  /** Runs per replayed book event with own orders: allocates nothing unless an own order on `ownSide` is crossed. */
  private crossOwnSide(m: MarketRuntime, ownSide: 0 | 1): void {
    const other = ownSide === 0 ? m.book.asks : m.book.bids;
    const best = other.best();
    if (best === 0) return;
    let crossed = false;
    for (let i = 0; i < m.own.length && !crossed; i++) {
      const o = m.own[i]!;
      crossed = o.side === ownSide && (ownSide === 0 ? o.price >= best : o.price <= best);
    }
    if (!crossed) return;
    const resting = this.ownByPriority(m, ownSide);
    const owed = new Map<number, number>();
    let total = 0;
    for (const order of resting) {
      let want = order.remaining;
      const levels = other.crossing(order.price);
      for (let i = 0; i < levels.length && want > 0; i += 2) {
        const take = Math.min(want, levels[i + 1]!);
        other.consume(levels[i]!, take);
        want -= take;
        total += take;
        owed.set(order.orderId, (owed.get(order.orderId) ?? 0) + take);
      }
    }
    if (total > 0) this.fillOwn(m, ownSide === 0 ? 1 : 0, resting, owed, total);
  }

  /**
   * Executes what replayed flow owes own resting orders: one reduce-only IOC of the replay
   * account on the aggressor's side, limited to the worst owed price; the engine fills own
   * orders best first.
   */
  private fillOwn(m: MarketRuntime, aggressor: 0 | 1, resting: readonly OwnOrder[], owed: ReadonlyMap<number, number>, total: number): void {
    let limit = 0;
    for (const order of resting) if (owed.has(order.orderId)) limit = order.price;
    this.liquidity.settleFundingDue();
    this.liquidity.syncMarket(m);
    this.liquidity.openReplayAccounts(m);
    this.exchange.submit({
      type: 'placeOrder',
      address: aggressor === 1 ? REPLAY_LONG : REPLAY_SHORT,
      accountIndex: 0,
      marketId: m.spec.id,
      side: aggressor,
      orderType: 0,
      tif: 2,
      price: limit,
      size: total,
      reduceOnly: true,
      goodTilTime: this.time.now + DEFAULT_GTT_US,
    });
  }
}
