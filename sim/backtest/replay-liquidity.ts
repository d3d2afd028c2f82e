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
import { activeMarkets, bestPrice, eventAt, eventTypeAt, findAccount, marketOf, priceToTicks, useEventRecords, type Account, type AdvanceTimeCommand, type CancelAllCommand, type Command, type Engine, type MarketSpec, type OrderEvent, type PlaceOrderCommand, type ResultOf, type SetOraclePriceCommand } from '../../engine/index.ts';
// An account event's address is its first reference (the records' documented layout).
import { REF } from '../../engine/event-records.ts';
import { TERMINAL_ORDER_STATUSES } from '../../engine/spec.ts';
import type { Exchange, Submission } from '../../gateway/read-models/exchange.ts';
import { accountKeyOf } from '../../gateway/shared/account-key.ts';
import { ringAt, ringClear, ringLength } from '../../gateway/shared/ring.ts';
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

  /**
   * The commands this class hands the engine around every replayed oracle price (replay-account
   * orders and their withdrawal, the oracle price, a funding settlement), each one record reused
   * for every command of its kind: `run` stamps it with the clock's time and applies it, and
   * neither the engine nor the exchange keeps a command it applied (only a buffered modify's is
   * kept, and none is sent here). They were a large share of what a replayed run allocated.
   */
  private readonly placeCommand: PlaceOrderCommand = { type: 'placeOrder', address: REPLAY_LONG, accountIndex: 0, marketId: 0, side: 0, orderType: 0, tif: 0, price: 0, size: 0, reduceOnly: true, goodTilTime: 0, time: 0 };
  private readonly cancelAllCommand: CancelAllCommand = { type: 'cancelAll', address: REPLAY_LONG, accountIndex: 0, marketId: 0, time: 0 };
  private readonly oracleCommand: SetOraclePriceCommand = { type: 'setOraclePrice', marketId: 0, price: 0, time: 0 };
  private readonly advanceCommand: AdvanceTimeCommand = { type: 'advanceTime', time: 0 };
  /** Spare `Materialized` records (handed back by `withdraw`). */
  private readonly spare: Materialized[] = [];
  /** `markRange`'s answer. */
  private low = 0;
  private high = 0;

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

  /**
   * `exchange.submit` of a reused command record: stamped with the clock's time and applied
   * without the copy `submit` makes (through `submit` when a journal listens: it copies).
   */
  private run<C extends Command>(command: C): ResultOf<C> {
    const exchange = this.exchange;
    command.time = exchange.clock();
    if (exchange.onCommand !== undefined) return exchange.submit(command as unknown as Submission) as ResultOf<C>;
    return exchange.applyStamped(command);
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
      const c = this.oracleCommand;
      c.marketId = m.spec.id;
      c.price = m.oracle;
      this.around(m, false, c);
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
    this.around(undefined, true, this.advanceCommand);
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
   * what falls due (funding, expiries) runs in `command`, with them there. `command` is one of
   * the reused records (`run`).
   */
  private around(m: MarketRuntime | undefined, allPositions: boolean, command: SetOraclePriceCommand | AdvanceTimeCommand): void {
    const account = findAccount(this.engine.accounts, STRATEGY_ADDRESS, 0);
    if (!this.replay || account === undefined || (m !== undefined && !m.replayOpened)) {
      this.run(command);
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
      // (bestPrice: 0 for an empty side; prices are positive ticks.)
      const bid = m.book.bids.best();
      const ask = m.book.asks.best();
      if (bid > bestPrice(ms.book.bids)) this.materialize(m, 1, 0, placed, 1);
      const ownAsk = bestPrice(ms.book.asks);
      if (ask > 0 && (ownAsk === 0 || ask < ownAsk)) this.materialize(m, 0, Number.MAX_SAFE_INTEGER, placed, 1);
      // Deeper levels only where the new mark may reach a trigger.
      this.markRange(m);
      const low = this.low;
      const high = this.high;
      const am = marketOf(account, ms.slot);
      const size = am?.size ?? 0;
      // What each taker side needs: 0 buys the replayed asks, 1 sells into the bids.
      let need0 = 0;
      let need1 = 0;
      if (size !== 0 && (size > 0 ? !(am!.trigger < low) : !(am!.trigger > high))) {
        if (size > 0) need1 = size;
        else need0 = -size;
        allPositions ||= account.active.length > 1;
      }
      if (m.tpsl.size > 0) {
        for (const t of m.tpsl.values()) {
          if (!(t.below ? t.trigger >= low : t.trigger <= high)) continue;
          const want = t.size > 0 ? t.size : Math.abs(size);
          if (t.side === 0) need0 = Math.max(need0, want);
          else need1 = Math.max(need1, want);
        }
      }
      if (need0 > 0) this.materialize(m, 0, Number.MAX_SAFE_INTEGER, placed, need0);
      if (need1 > 0) this.materialize(m, 1, 0, placed, need1);
    }
    if (allPositions) {
      for (const am of activeMarkets(account)) {
        const other = this.markets.get(am.marketId);
        if (other === undefined || other === m || am.size === 0 || !other.replayOpened) continue;
        this.materialize(other, am.size > 0 ? 1 : 0, am.size > 0 ? 0 : Number.MAX_SAFE_INTEGER, placed, Math.abs(am.size));
      }
    }
    this.time.now = now;
    this.run(command);
    if (placed.length > 0) this.withdraw(placed);
  }

  /**
   * Where the mark the new oracle price makes can land. The engine's mark is the median of the
   * oracle, the oracle plus the average basis (which moves towards the book mid) and the book
   * mid, rounded to a tick, so it lies between the lowest and the highest of the oracle, the
   * oracle plus the basis so far, and the best bid and ask of the engine's book as the command
   * will find it (the placed levels and the strategy's orders), give or take a tick. Answers in
   * `low` and `high`.
   */
  private markRange(m: MarketRuntime): void {
    const ms = this.engine.markets.get(m.spec.id)!;
    let low = m.oracle;
    let high = m.oracle;
    const bid = bestPrice(ms.book.bids);
    const ask = bestPrice(ms.book.asks);
    if (bid > 0 && ask > 0) {
      const basis = ms.basisAt >= 0 ? m.oracle + ms.basisEma : bid;
      low = Math.min(low, basis, bid);
      high = Math.max(high, basis, ask);
    }
    this.low = low - 1;
    this.high = high + 1;
  }

  /**
   * Places the replayed levels an order at `limit` on `side` could take (best first, as many as
   * hold `need`), as replay-account orders. A level already placed is not placed twice, and one
   * that would cross a level placed on the other side (a crossed recording) is left out: the
   * replay accounts never trade each other.
   */
  private materialize(m: MarketRuntime, side: 0 | 1, limit: number, placed: Materialized[], need = Infinity): void {
    // One level buffer per nesting depth: a listener of a placed order's events could, in
    // principle, come back here before this loop is done with its buffer.
    const depth = this.materializing++;
    try {
      this.materializeLevels(m, side, limit, placed, need, (this.levelBuffers[depth] ??= []));
    } finally {
      this.materializing--;
    }
  }

  /** Reused `crossingInto` buffers, by `materialize`'s nesting depth. */
  private readonly levelBuffers: number[][] = [];
  private materializing = 0;

  private materializeLevels(m: MarketRuntime, side: 0 | 1, limit: number, placed: Materialized[], need: number, levels: number[]): void {
    const other = side === 0 ? m.book.asks : m.book.bids;
    const count = other.crossingInto(limit, need, levels);
    if (count === 0) return;
    this.openReplayAccounts(m);
    const gtt = this.time.now + DEFAULT_GTT_US;
    const mine = side === 0 ? 1 : 0;
    const c = this.placeCommand;
    for (let i = 0; i < count; i += 2) {
      const price = levels[i]!;
      if (this.isPlaced(placed, m, mine, price)) continue;
      const size = levels[i + 1]!;
      c.address = side === 0 ? REPLAY_LONG : REPLAY_SHORT;
      c.marketId = m.spec.id;
      c.side = mine;
      c.price = price;
      c.size = size;
      c.goodTilTime = gtt;
      const result = this.run(c);
      if (result.kind === 'order' && result.status !== 'REJECTED') {
        const p = this.spare.pop() ?? { m, side: mine, price, size, orderId: result.orderId };
        p.m = m;
        p.side = mine;
        p.price = price;
        p.size = size;
        p.orderId = result.orderId;
        placed.push(p);
      }
    }
  }

  /** A level at `price` on `side` is placed already, or one on the other side it would cross. */
  private isPlaced(placed: readonly Materialized[], m: MarketRuntime, side: 0 | 1, price: number): boolean {
    for (let k = 0; k < placed.length; k++) {
      const p = placed[k]!;
      if (p.m === m && (p.side === side ? p.price === price : side === 1 ? p.price >= price : p.price <= price)) return true;
    }
    return false;
  }

  /** After the strategy's command: what it took from each materialized level is consumed; the rest is withdrawn. */
  private withdraw(placed: Materialized[]): void {
    for (let k = 0; k < placed.length; k++) {
      const p = placed[k]!;
      (p.side === 0 ? p.m.book.bids : p.m.book.asks).consume(p.price, this.filledOf(p.orderId));
    }
    this.filledIds.length = 0;
    this.filledSizes.length = 0;
    // Each market touched, in the order first touched; a replay account with no live order there
    // is skipped: its cancelAll would cancel nothing and emit nothing (after the command just
    // applied at the same time, nothing else falls due in it).
    for (let k = 0; k < placed.length; k++) {
      const m = placed[k]!.m;
      let seen = false;
      for (let j = 0; j < k && !seen; j++) seen = placed[j]!.m === m;
      if (seen) continue;
      this.cancelReplayOrders(REPLAY_LONG, m);
      this.cancelReplayOrders(REPLAY_SHORT, m);
    }
    for (let k = 0; k < placed.length; k++) this.spare.push(placed[k]!);
    placed.length = 0;
    this.forgetClosedReplayOrders();
  }

  private cancelReplayOrders(address: string, m: MarketRuntime): void {
    const account = findAccount(this.engine.accounts, address, 0);
    if (account === undefined || !hasOrderIn(account, m.spec.id)) return;
    const c = this.cancelAllCommand;
    c.address = address;
    c.marketId = m.spec.id;
    this.run(c);
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
      if (closed === undefined) continue;
      for (let i = 0, n = ringLength(closed); i < n; i++) exchange.orders.delete(ringAt(closed, i));
      ringClear(closed);
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

/** The account has a live order in the market (what `cancelAll` for that market would cancel). */
function hasOrderIn(account: Account, marketId: number): boolean {
  for (let o = account.head; o !== null; o = o.aNext) if (o.marketId === marketId) return true;
  return false;
}
