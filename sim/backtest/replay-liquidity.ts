/**
 * Replayed liquidity in the engine (docs/decisions.md "Replayed liquidity").
 *
 * Replayed books live in a light book per market (replay-book.ts), not in the engine. A
 * strategy order that could take liquidity meets it through two replay accounts — a long one
 * that sells, a short one that buys, both with reduce-only orders, so any recorded size is a
 * valid order — whose orders for exactly the crossing levels are placed just before the
 * strategy's command and withdrawn just after it. The same happens around every oracle price
 * the engine takes and every funding settlement: the best replayed bid and ask (the mark's book
 * mid), the levels that would close the strategy's positions and those its untriggered TPSL
 * orders would take, so a triggered TPSL or a liquidation fills against the replayed book at its
 * prices and consumes it. Oracle prices and funding rates of markets where the strategy has no
 * order and no position are applied when it next acts there (the replay's fast path).
 */
import { activeMarkets, bestLevel, eventAt, eventTypeAt, findAccount, marketOf, priceToTicks, useEventRecords, type Engine, type MarketSpec, type OrderEvent } from '../../engine/index.ts';
// An account event's address is its first reference (the records' documented layout).
import { REF } from '../../engine/event-records.ts';
import { TERMINAL_ORDER_STATUSES } from '../../engine/spec.ts';
import type { Exchange } from '../../gateway/read-models/exchange.ts';
import { accountKeyOf } from '../../gateway/shared/account-key.ts';
import { DEFAULT_GTT_US } from './client.ts';
import type { OwnOrder } from './queue-model.ts';
import type { ReplayBook } from './replay-book.ts';

/** The strategy's account. */
export const STRATEGY_ADDRESS = '0x5157000000000000000000000000000000000001';
/** The replay accounts: the long one sells replayed asks, the short one buys replayed bids. */
export const REPLAY_LONG = '0x5157000000000000000000000000000000000a5c';
export const REPLAY_SHORT = '0x5157000000000000000000000000000000000b1d';
export const HOUR_US = 3_600_000_000;
const REPLAY_KEYS = [accountKeyOf(REPLAY_LONG, 0), accountKeyOf(REPLAY_SHORT, 0)];
const USD = 1_000_000_000n;
/** Notional of each replay account's opening position: large against any strategy, below the venue's position cap. */
const REPLAY_POSITION_USD = 400_000_000;

/** Simulated time, shared by the backtest's parts (the exchange's clock reads it). */
export interface SimTime {
  now: number;
}

/** A configured market's replay state. */
export interface MarketRuntime {
  spec: MarketSpec;
  book: ReplayBook;
  /** Own resting orders, placement order. */
  own: OwnOrder[];
  /** Latest replayed oracle price and funding rate, and whether the engine has them. */
  oracle: number;
  oracleSynced: boolean;
  funding: bigint | undefined;
  fundingHour: number;
  fundingSynced: boolean;
  /** Replayed trade volume by price not yet matched by a book delta (probabilistic queue model). */
  traded: Map<number, number>;
  replayOpened: boolean;
  /** The strategy's untriggered TPSL orders: side, size (0: a position TPSL, the whole position), trigger and its direction. */
  tpsl: Map<number, { side: 0 | 1; size: number; trigger: number; below: boolean }>;
}

/** A replayed level placed in the engine as a replay-account order for the length of one command. */
interface Materialized {
  m: MarketRuntime;
  /** The replay order's side: 0 a bid (replayed bids), 1 an ask. */
  side: 0 | 1;
  price: number;
  size: number;
  orderId: number;
}

export class ReplayLiquidity {
  private readonly engine: Engine;

  /** What each replay-account order filled since the last withdrawal, from the fill events (parallel lists; a few entries). */
  private readonly filledIds: number[] = [];
  private readonly filledSizes: number[] = [];

  constructor(
    private readonly exchange: Exchange,
    private readonly markets: ReadonlyMap<number, MarketRuntime>,
    private readonly time: SimTime,
    /** False for the simulator: its liquidity is the engine's own. */
    readonly replay: boolean,
  ) {
    this.engine = exchange.engine;
    if (replay) this.filterEngineEvents();
  }

  /**
   * A replayed backtest's engine events: the engine writes them as numeric records
   * (engine/event-records.ts) and the exchange's sink gets each as the object it had before
   * (`eventAt`) but for the book and bbo events and the replay accounts' order events, which
   * nothing reads here: replayed books live in ReplayBook; the strategy's book reads (bbo,
   * l2OrderBook) read the engine's book; no WebSocket fans events out; the strategy's reads are
   * its own account's. `withdraw` takes what a placed level filled from the fill events (which
   * still pass) instead of the exchange's copy of the order. Those events were most of what a
   * run allocated and kept: the replayed levels placed and withdrawn around every oracle price.
   * A command whose events are all left out hands one on (a bbo one when there is one, which
   * every read model ignores; else a replay order's, whose closed order forgetClosedReplayOrders
   * drops), so the exchange's listeners run after the same commands.
   */
  private filterEngineEvents(): void {
    const sink = this.engine.wiring.sink;
    useEventRecords(this.engine, (records) => {
      let passed = 0;
      // The cheapest event left out, should none pass: a bbo, else a replay order's, else a book.
      let bbo = -1;
      let order = -1;
      for (let i = 0; i < records.count; i++) {
        const type = eventTypeAt(records, i);
        if (type === 'bbo') {
          if (bbo < 0) bbo = i;
          continue;
        }
        if (type === 'book') continue;
        if (type === 'order') {
          const address = records.ref[i * REF];
          if (address === REPLAY_LONG || address === REPLAY_SHORT) {
            if (order < 0) order = i;
            continue;
          }
        }
        const e = eventAt(records, i);
        if (e.type === 'fill' && (e.address === REPLAY_LONG || e.address === REPLAY_SHORT)) this.replayFilled(e.orderId, e.size);
        sink(e);
        passed++;
      }
      if (passed === 0 && records.count > 0) sink(eventAt(records, bbo >= 0 ? bbo : order >= 0 ? order : 0));
    });
  }

  private replayFilled(orderId: number, size: number): void {
    const ids = this.filledIds;
    for (let k = 0; k < ids.length; k++) {
      if (ids[k] === orderId) {
        this.filledSizes[k]! += size;
        return;
      }
    }
    ids.push(orderId);
    this.filledSizes.push(size);
  }

  private filledOf(orderId: number): number {
    const k = this.filledIds.indexOf(orderId);
    return k < 0 ? 0 : this.filledSizes[k]!;
  }

  /** Runs a strategy write (`call`) with the replayed levels its orders could take placed in the engine. */
  aroundWrite<T>(op: string, body: Record<string, unknown>, call: () => T): T {
    this.settleFundingDue();
    this.syncAll();
    const placed: Materialized[] = [];
    if (this.replay) {
      const takers = this.takers(op, body);
      // Every market's replay accounts open before any level is placed, so none can meet another's opening trade.
      for (const t of takers) this.openReplayAccounts(t.m);
      for (const t of takers) this.materialize(t.m, t.side, t.limit, placed);
    }
    const reply = call();
    if (placed.length > 0) this.withdraw(placed);
    return reply;
  }

  /** Keeps the strategy's untriggered TPSL orders (their triggers decide which levels an oracle price needs). */
  trackTpsl(m: MarketRuntime, e: OrderEvent): void {
    // Reported TPSL_PLACED when placed, UNTRIGGERED on later updates (a modify).
    if (e.status === 'TPSL_PLACED' || e.status === 'UNTRIGGERED') {
      // A sell stop-loss (protecting a long) and a buy take-profit fire as the mark falls to the trigger.
      const below = e.side === 1 ? e.tpslType === 'STOP_LOSS' : e.tpslType === 'TAKE_PROFIT';
      m.tpsl.set(e.orderId, { side: e.side, size: e.isPositionTpsl ? 0 : e.remaining, trigger: e.triggerPrice ?? 0, below });
    } else if (m.tpsl.size > 0) m.tpsl.delete(e.orderId);
  }

  /** Hands the engine the latest replayed oracle price: the mark moves, TPSL and liquidations may fire. */
  syncOracle(m: MarketRuntime): void {
    m.oracleSynced = true;
    if (m.oracle > 0 && this.engine.markets.get(m.spec.id)!.oraclePrice !== m.oracle) {
      this.around(m, false, () => this.exchange.submit({ type: 'setOraclePrice', marketId: m.spec.id, price: m.oracle }));
    }
  }

  syncFunding(m: MarketRuntime): void {
    m.fundingSynced = true;
    // A recorded rate fixes only the hour it was published in.
    if (m.funding !== undefined && m.fundingHour === Math.floor(this.time.now / HOUR_US)) this.exchange.submit({ type: 'setFundingRate', marketId: m.spec.id, rate: m.funding });
  }

  syncMarket(m: MarketRuntime): void {
    if (!m.oracleSynced) this.syncOracle(m);
    if (!m.fundingSynced) this.syncFunding(m);
  }

  syncAll(): void {
    for (const m of this.markets.values()) this.syncMarket(m);
  }

  /** The strategy has an order or a position in `m`: replayed prices must reach the engine at once. */
  isLive(m: MarketRuntime): boolean {
    const account = findAccount(this.engine.accounts, STRATEGY_ADDRESS, 0);
    const am = account === undefined ? undefined : marketOf(account, this.engine.markets.get(m.spec.id)!.slot);
    return am !== undefined && (am.size !== 0 || am.openOrders > 0);
  }

  hasExposure(): boolean {
    const account = findAccount(this.engine.accounts, STRATEGY_ADDRESS, 0);
    return account !== undefined && account.active.length > 0;
  }

  /** A command that may settle funding (the engine's advanceTime), with the closing levels of every position. */
  advanceTime(): void {
    this.around(undefined, true, () => this.exchange.submit({ type: 'advanceTime' }));
  }

  /** A funding settlement that has fallen due runs first, with the closing levels of every position (a payment may liquidate). */
  settleFundingDue(): void {
    if (this.replay && this.engine.nextSettlementAt <= this.time.now && this.hasExposure()) this.advanceTime();
  }

  /**
   * The replay accounts' opening positions in a market: the long one buys from the short one at
   * the oracle price, before the strategy has any order there (so nothing else can match).
   */
  openReplayAccounts(m: MarketRuntime): void {
    if (m.replayOpened || !this.replay) return;
    const ms = this.engine.markets.get(m.spec.id)!;
    let price = ms.oraclePrice;
    if (price <= 0) {
      const bid = m.book.bids.best();
      const ask = m.book.asks.best();
      price = bid > 0 && ask > 0 ? Math.round((bid + ask) / 2) : bid || ask;
      if (price <= 0) return;
      m.oracle = price;
      this.syncOracle(m);
    }
    m.replayOpened = true;
    const usdPerQuantum = (price * Number(m.spec.valueMul)) / 1e9;
    const size = Math.min(m.spec.maxSize, Math.floor(REPLAY_POSITION_USD / usdPerQuantum));
    for (const address of [REPLAY_LONG, REPLAY_SHORT]) {
      if (findAccount(this.engine.accounts, address, 0) === undefined) this.exchange.submit({ type: 'deposit', address, accountIndex: 0, amount: 1_000_000_000_000n * USD });
    }
    const gtt = this.time.now + DEFAULT_GTT_US;
    this.exchange.submit({ type: 'placeOrder', address: REPLAY_SHORT, accountIndex: 0, marketId: m.spec.id, side: 1, orderType: 0, tif: 0, price, size, reduceOnly: false, goodTilTime: gtt });
    this.exchange.submit({ type: 'placeOrder', address: REPLAY_LONG, accountIndex: 0, marketId: m.spec.id, side: 0, orderType: 0, tif: 2, price, size, reduceOnly: false, goodTilTime: gtt });
  }

  /**
   * Runs an engine command that can set off the strategy's TPSL orders or its liquidation with
   * the replayed liquidity they would take placed in the engine as replay-account orders,
   * withdrawn after it; what was taken is consumed. `m`: the market of a new oracle price — its
   * best replayed bid and ask, where better than the strategy's own, so the mark's book mid is
   * the replayed one; where the new mark may reach a trigger, the levels an untriggered TPSL
   * order would take, or those that close the position (and the strategy's other positions: a
   * cross liquidation closes them all). `allPositions` (a command that may settle funding): every
   * position gets the levels that close it. The levels are placed at the engine's own time, so
   * what falls due (funding, expiries) runs in `command`, with them there.
   */
  private around(m: MarketRuntime | undefined, allPositions: boolean, command: () => void): void {
    const account = findAccount(this.engine.accounts, STRATEGY_ADDRESS, 0);
    if (!this.replay || account === undefined || (m !== undefined && !m.replayOpened)) {
      command();
      return;
    }
    if (!allPositions) this.settleFundingDue();
    const placed: Materialized[] = [];
    const now = this.time.now;
    this.time.now = this.engine.time;
    if (m !== undefined) {
      const ms = this.engine.markets.get(m.spec.id)!;
      // The mark's book mid: a replayed best price better than the strategy's own goes in (taker
      // sides: 0 buys the replayed asks, 1 sells into the bids).
      const bid = m.book.bids.best();
      const ask = m.book.asks.best();
      if (bid > (bestLevel(ms.book.bids)?.price ?? 0)) this.materialize(m, 1, 0, placed, 1);
      if (ask > 0 && ask < (bestLevel(ms.book.asks)?.price ?? Infinity)) this.materialize(m, 0, Number.MAX_SAFE_INTEGER, placed, 1);
      // Deeper levels only where the new mark may reach a trigger.
      const [low, high] = this.markRange(m);
      const am = marketOf(account, ms.slot);
      const size = am?.size ?? 0;
      const need = [0, 0];
      if (size !== 0 && (size > 0 ? !(am!.trigger < low) : !(am!.trigger > high))) {
        need[size > 0 ? 1 : 0] = Math.abs(size);
        allPositions ||= account.active.length > 1;
      }
      for (const t of m.tpsl.values()) {
        if (t.below ? t.trigger >= low : t.trigger <= high) need[t.side] = Math.max(need[t.side]!, t.size > 0 ? t.size : Math.abs(size));
      }
      if (need[0]! > 0) this.materialize(m, 0, Number.MAX_SAFE_INTEGER, placed, need[0]);
      if (need[1]! > 0) this.materialize(m, 1, 0, placed, need[1]);
    }
    if (allPositions) {
      for (const am of activeMarkets(account)) {
        const other = this.markets.get(am.marketId);
        if (other === undefined || other === m || am.size === 0 || !other.replayOpened) continue;
        this.materialize(other, am.size > 0 ? 1 : 0, am.size > 0 ? 0 : Number.MAX_SAFE_INTEGER, placed, Math.abs(am.size));
      }
    }
    this.time.now = now;
    command();
    if (placed.length > 0) this.withdraw(placed);
  }

  /**
   * Where the mark the new oracle price makes can land. The engine's mark is the median of the
   * oracle, the oracle plus the average basis (which moves towards the book mid) and the book
   * mid, rounded to a tick, so it lies between the lowest and the highest of the oracle, the
   * oracle plus the basis so far, and the best bid and ask of the engine's book as the command
   * will find it (the placed levels and the strategy's orders), give or take a tick.
   */
  private markRange(m: MarketRuntime): [number, number] {
    const ms = this.engine.markets.get(m.spec.id)!;
    let low = m.oracle;
    let high = m.oracle;
    const bid = bestLevel(ms.book.bids)?.price;
    const ask = bestLevel(ms.book.asks)?.price;
    if (bid !== undefined && ask !== undefined) {
      const basis = ms.basisAt >= 0 ? m.oracle + ms.basisEma : bid;
      low = Math.min(low, basis, bid);
      high = Math.max(high, basis, ask);
    }
    return [low - 1, high + 1];
  }

  /**
   * Places the replayed levels an order at `limit` on `side` could take (best first, as many as
   * hold `need`), as replay-account orders. A level already placed is not placed twice, and one
   * that would cross a level placed on the other side (a crossed recording) is left out: the
   * replay accounts never trade each other.
   */
  private materialize(m: MarketRuntime, side: 0 | 1, limit: number, placed: Materialized[], need = Infinity): void {
    const other = side === 0 ? m.book.asks : m.book.bids;
    const levels = other.crossing(limit, need);
    if (levels.length === 0) return;
    this.openReplayAccounts(m);
    const gtt = this.time.now + DEFAULT_GTT_US;
    const mine = side === 0 ? 1 : 0;
    for (let i = 0; i < levels.length; i += 2) {
      const price = levels[i]!;
      if (placed.some((p) => p.m === m && (p.side === mine ? p.price === price : mine === 1 ? p.price >= price : p.price <= price))) continue;
      const size = levels[i + 1]!;
      const result = this.exchange.submit({
        type: 'placeOrder',
        address: side === 0 ? REPLAY_LONG : REPLAY_SHORT,
        accountIndex: 0,
        marketId: m.spec.id,
        side: mine,
        orderType: 0,
        tif: 0,
        price,
        size,
        reduceOnly: true,
        goodTilTime: gtt,
      });
      if (result.kind === 'order' && result.status !== 'REJECTED') placed.push({ m, side: mine, price, size, orderId: result.orderId });
    }
  }

  /** After the strategy's command: what it took from each materialized level is consumed; the rest is withdrawn. */
  private withdraw(placed: readonly Materialized[]): void {
    const touched = new Set<MarketRuntime>();
    for (const p of placed) {
      (p.side === 0 ? p.m.book.bids : p.m.book.asks).consume(p.price, this.filledOf(p.orderId));
      touched.add(p.m);
    }
    this.filledIds.length = 0;
    this.filledSizes.length = 0;
    for (const m of touched) {
      for (const address of [REPLAY_LONG, REPLAY_SHORT]) this.exchange.submit({ type: 'cancelAll', address, accountIndex: 0, marketId: m.spec.id });
    }
    this.forgetClosedReplayOrders();
  }

  /**
   * Drops the replay accounts' closed orders from the exchange's memory read model (`orders` and
   * `closed`). Their order events do not reach it (filterEngineEvents) but for a command that had
   * no other event (a rejected replay order); nothing reads them, and the read model would keep
   * the last 1,000 of each account's.
   */
  forgetClosedReplayOrders(): void {
    const exchange = this.exchange;
    if (exchange.history.kind !== 'memory') return;
    for (const key of REPLAY_KEYS) {
      const closed = exchange.closed.get(key);
      if (closed === undefined || closed.length === 0) continue;
      for (const id of closed) exchange.orders.delete(id);
      closed.length = 0;
    }
  }

  /** The (market, side, limit) of every order a write could execute now. */
  private takers(op: string, body: Record<string, unknown>): { m: MarketRuntime; side: 0 | 1; limit: number }[] {
    const elements = op === 'placeOrder' || op === 'modifyOrder' ? [body] : op === 'batchPlaceOrders' ? (body.orders as Record<string, unknown>[]) : op === 'batchModifyOrders' ? (body.modifies as Record<string, unknown>[]) : [];
    const out: { m: MarketRuntime; side: 0 | 1; limit: number }[] = [];
    for (const el of elements) {
      if (el.stopPrice !== undefined || el.tpslType !== undefined || el.tpsl_type !== undefined) continue;
      const m = this.markets.get(Number(el.marketId));
      if (m === undefined || typeof el.price !== 'string') continue;
      const limit = priceToTicks(m.spec, el.price);
      if (limit === null) continue;
      const sideText = String(el.orderSide ?? el.side ?? this.ownSide(el) ?? '').toUpperCase();
      if (sideText === 'BUY' || sideText === '') out.push({ m, side: 0, limit });
      if (sideText === 'SELL' || sideText === '') out.push({ m, side: 1, limit });
    }
    return out;
  }

  private ownSide(el: Record<string, unknown>): string | undefined {
    const id = typeof el.orderId === 'string' ? Number.parseInt(el.orderId, 16) : undefined;
    for (const e of this.exchange.orders.values()) {
      if (e.address !== STRATEGY_ADDRESS) continue;
      if ((id !== undefined && e.orderId === id) || (el.clientId !== undefined && e.clientId === el.clientId && !TERMINAL_ORDER_STATUSES.has(e.status))) return e.side === 0 ? 'BUY' : 'SELL';
    }
    return undefined;
  }
}
