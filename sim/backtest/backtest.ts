/**
 * `Backtest`: one strategy against perpsim's engine on simulated time, fed by the seeded
 * simulator or by recorded market data.
 *
 * Contract:
 * - Time is the exchange's (unix µs). Market data is applied at its exchange time; the strategy
 *   hears of it `feed` latency later; its writes reach the exchange `order` / `cancel` latency
 *   after it sends them. Everything waiting is ordered by (time, sequence of scheduling), so
 *   ties resolve in the order things were caused (nautilus_trader's rule). A data event and a
 *   scheduled item at the same time: the data event goes first.
 * - The strategy's writes run the gateway's operation handlers (client.ts) and so the engine's
 *   commands: fees, margin, funding, liquidation, TPSL and rejections are the engine's own.
 * - Replayed liquidity lives in a light book per market (replay-book.ts), not in the engine. A
 *   strategy order that could take liquidity meets it through two replay accounts — a long one
 *   that sells, a short one that buys, both with reduce-only orders, so any recorded size is a
 *   valid order — whose orders for exactly the crossing levels are placed just before the
 *   strategy's command and withdrawn just after it. The same happens around every oracle price
 *   the engine takes and every funding settlement: the best replayed bid and ask (the mark's
 *   book mid), the levels that would close the strategy's positions and those its untriggered
 *   TPSL orders would take, so a triggered TPSL or a liquidation fills against the replayed book
 *   at its prices and consumes it. Fills of the strategy's resting orders (by replayed trades,
 *   per the queue model, or by a replayed book crossing them) are executed as reduce-only IOC
 *   orders of those accounts against the strategy's orders. The engine therefore
 *   only ever holds the strategy's own resting orders between commands, and a strategy with no
 *   orders and no position costs the engine nothing (the replay's fast path): oracle prices and
 *   funding rates of such markets are applied when the strategy next acts there.
 * - Deterministic: no wall clock, no Math.random; hooks may await the client's promises, which
 *   settle at scheduled simulated times, and the loop lets every such continuation run before
 *   it moves on.
 */
import {
  bestLevel,
  findAccount,
  formatUnits,
  priceToTicks,
  type Engine,
  type EngineEvent,
  type FillEvent,
  type MarketDef,
  type MarketSpec,
  type OrderEvent,
} from '../../engine/index.ts';
import { TERMINAL_ORDER_STATUSES } from '../../engine/spec.ts';
import { createExchange, type Exchange } from '../../gateway/exchange.ts';
import { formatFill, formatOrder, usd } from '../../gateway/format.ts';
import { fundingRateString } from '../../gateway/funding-rates-store.ts';
import { statSync } from 'node:fs';
import { DEFAULT_AGENTS } from '../agents.ts';
import { DEFAULT_PRICES, defaultMarkets } from '../markets.ts';
import { startMarket } from '../server.ts';
import { BacktestClient, DEFAULT_GTT_US, InProcessGateway, WRITE_KINDS, type Reply } from './client.ts';
import type { MarketDataSource, ReplayEvent } from './data-format.ts';
import { openMarketData } from './open-market-data.ts';
import { isZeroLatency, latencyModel, type LatencyModel } from './latency.ts';
import { createQueueModel, tradeAgainst, type OwnOrder, type QueueModel } from './queue-model.ts';
import { ReplayBook } from './replay-book.ts';
import { Recorder, type BacktestResult } from './summary.ts';
import type { BacktestConfig, BookUpdate, Strategy, StrategyContext, StrategyModule } from './types.ts';

/** The strategy's account. */
export const STRATEGY_ADDRESS = '0x5157000000000000000000000000000000000001';
/** The replay accounts: the long one sells replayed asks, the short one buys replayed bids. */
const REPLAY_LONG = '0x5157000000000000000000000000000000000a5c';
const REPLAY_SHORT = '0x5157000000000000000000000000000000000b1d';
const USD = 1_000_000_000n;
/** 2025-01-01T00:00:00Z, where simulator runs start unless told otherwise. */
export const DEFAULT_SIM_START_US = 1_735_689_600_000_000;
const HOUR_US = 3_600_000_000;
/** Notional of each replay account's opening position: large against any strategy, below the venue's position cap. */
const REPLAY_POSITION_USD = 400_000_000;

interface Scheduled {
  time: number;
  seq: number;
  run: () => void;
  /** Timers are dropped once the run has ended; writes and deliveries still complete. */
  timer: boolean;
}

/** Binary min-heap on (time, seq). */
class Agenda {
  private readonly items: Scheduled[] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  peekTime(): number {
    return this.items.length === 0 ? Infinity : this.items[0]!.time;
  }

  push(time: number, run: () => void, timer = false): void {
    const items = this.items;
    const item = { time, seq: this.seq++, run, timer };
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(item, items[parent]!)) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  pop(): Scheduled | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= items.length) break;
      const r = l + 1;
      const child = r < items.length && before(items[r]!, items[l]!) ? r : l;
      if (!before(items[child]!, last)) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

function before(a: Scheduled, b: Scheduled): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}

function resolveMarkets(config: BacktestConfig): MarketDef[] {
  const universe = defaultMarkets();
  const wanted = config.markets ?? ['BTC-USD', 'ETH-USD'];
  return wanted.map((m) => {
    if (typeof m !== 'string') return m;
    const def = universe.find((d) => d.displayName === m);
    if (def === undefined) throw new Error(`unknown market ${m}; known: ${universe.map((d) => d.displayName).join(', ')}`);
    return def;
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

interface MarketRuntime {
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

/**
 * A backtest run. `new Backtest(config, strategy).run()` answers the summary, the fills and the
 * sampled series; `writeOutputs` (summary.ts) writes summary.json and report.html.
 */
export class Backtest {
  readonly config: BacktestConfig;
  private readonly strategy: Strategy;
  private readonly exchange: Exchange;
  private readonly engine: Engine;
  private readonly gateway: InProcessGateway;
  readonly client: BacktestClient;
  private readonly markets = new Map<number, MarketRuntime>();
  private readonly byName = new Map<string, number>();
  private readonly agenda = new Agenda();
  private readonly orderLatency: LatencyModel;
  private readonly cancelLatency: LatencyModel;
  private readonly feedLatency: LatencyModel;
  private readonly feedZero: boolean;
  private readonly queue: QueueModel;
  private readonly recorder: Recorder;
  private readonly ctx: StrategyContext;
  private readonly replay: boolean;
  private now: number;
  private readonly from: number;
  private readonly to: number | undefined;
  private pendingAsync = false;
  private failure: unknown = undefined;
  private stopped = false;
  private events = 0;
  private ownSeq = 0;
  private readonly bookDepth: number;

  constructor(config: BacktestConfig, strategy: StrategyModule) {
    this.config = config;
    this.strategy = typeof strategy === 'function' ? strategy(config) : strategy;
    const seed = config.seed ?? 1;
    this.replay = config.data !== 'sim';
    const defs = resolveMarkets(config);
    this.from = config.from ?? (this.replay ? -Infinity : DEFAULT_SIM_START_US);
    this.to = config.to ?? (this.replay ? undefined : this.from + HOUR_US);
    this.now = Number.isFinite(this.from) ? this.from : 0;
    this.exchange = createExchange({ markets: defs, ...(config.feeTiers && { risk: { feeTiers: config.feeTiers } }) }, () => this.now);
    this.engine = this.exchange.engine;
    for (const def of defs) {
      const ms = this.engine.markets.get(def.id)!;
      this.byName.set(def.displayName, def.id);
      this.markets.set(def.id, {
        spec: ms.spec,
        book: new ReplayBook(),
        own: [],
        oracle: 0,
        oracleSynced: true,
        funding: undefined,
        fundingHour: -1,
        fundingSynced: true,
        traded: new Map(),
        replayOpened: false,
        tpsl: new Map(),
      });
    }
    this.orderLatency = latencyModel(config.latency?.order, seed * 3 + 1);
    this.cancelLatency = latencyModel(config.latency?.cancel ?? config.latency?.order, seed * 3 + 2);
    this.feedLatency = latencyModel(config.latency?.feed, seed * 3 + 3);
    this.feedZero = isZeroLatency(config.latency?.feed);
    this.queue = createQueueModel(config.queueModel ?? 'conservative', seed);
    this.bookDepth = config.bookDepth ?? 5;
    this.gateway = new InProcessGateway(this.exchange, STRATEGY_ADDRESS);
    this.client = new BacktestClient(this.gateway, (op, body, kind) => this.write(op, body, kind), STRATEGY_ADDRESS, 0);
    this.recorder = new Recorder(this.engine, STRATEGY_ADDRESS, 0, config.sampleMs ?? 60_000);
    this.exchange.listeners.add((events) => this.onEngineEvents(events));
    const markets = this.byName;
    const specs = (id: number): MarketSpec => this.spec(id);
    this.ctx = {
      client: this.client,
      now: () => this.now,
      markets,
      formatPrice: (id, price, side) => formatTicks(specs(id), price, side === 'BUY' ? Math.floor : Math.ceil),
      formatSize: (id, size) => formatSteps(specs(id), size),
      setTimer: (delayMs, name) => {
        if (!this.stopped) this.agenda.push(this.now + Math.max(0, Math.round(delayMs * 1000)), () => this.hook(this.strategy.onTimer, { time: this.now, name }), true);
      },
    };
  }

  private spec(id: number): MarketSpec {
    const m = this.markets.get(id);
    if (m === undefined) throw new Error(`market ${id} is not configured in this backtest`);
    return m.spec;
  }

  /** Runs the backtest to the end of its data or window. */
  async run(): Promise<BacktestResult> {
    let reader: MarketDataSource | undefined;
    let first: ReplayEvent | undefined;
    if (this.replay) {
      const { file, parse } = this.config.data as Exclude<BacktestConfig['data'], 'sim'>;
      const specs = new Map<string, MarketSpec>();
      for (const m of this.markets.values()) specs.set(m.spec.displayName, m.spec);
      reader = openMarketData(file, specs, this.from, this.to ?? Infinity, parse ?? 'fast');
      const size = statSync(file).size;
      const r = reader;
      this.fraction = () => (size > 0 ? r.bytesRead / size : undefined);
      try {
        first = reader.next();
      } catch (err) {
        reader.close();
        throw err;
      }
      this.now = Number.isFinite(this.from) ? this.from : first?.ts ?? 0;
    }
    try {
      this.primeFundingClock();
      const balance = BigInt(Math.round(Number(this.config.balance ?? '100000') * 1e6)) * 1000n;
      this.exchange.submit({ type: 'deposit', address: STRATEGY_ADDRESS, accountIndex: 0, amount: balance });
      this.recorder.start(this.now, balance);
      if (reader !== undefined) return await this.runReplay(reader, first);
      return await this.runSim();
    } finally {
      // The data's end closes it; a failing strategy or hook must not leave the file or the reader thread open.
      reader?.close();
    }
  }

  /**
   * Runs one funding settlement at the whole hour before the start, so every market's funding
   * hour is anchored: the engine's accrued-funding figure (accountView) counts the hour's
   * elapsed time from the last settlement, which does not exist before the first one.
   */
  private primeFundingClock(): void {
    const start = this.now;
    const hour = Math.floor(start / HOUR_US) * HOUR_US;
    this.now = hour - 1;
    this.exchange.submit({ type: 'advanceTime' });
    this.now = hour;
    this.exchange.submit({ type: 'advanceTime' });
    this.now = start;
  }

  // -------------------------------------------------------------------------------------------
  // The loop.

  /** Runs every scheduled item due strictly before `time` (or at it, when `inclusive`). */
  private async drainUntil(time: number, inclusive: boolean): Promise<void> {
    while (this.agenda.size > 0) {
      const next = this.agenda.peekTime();
      if (inclusive ? next > time : next >= time) return;
      const item = this.agenda.pop()!;
      if (item.timer && this.stopped) continue;
      this.advance(item.time);
      item.run();
      if (this.pendingAsync) await this.settle();
    }
  }

  /** Lets every promise continuation the last step caused run (they may schedule more). */
  private async settle(): Promise<void> {
    while (this.pendingAsync) {
      this.pendingAsync = false;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (this.failure !== undefined) throw this.failure;
  }

  private advance(time: number): void {
    if (time > this.now) this.now = time;
    this.recorder.sampleUntil(this.now, this.sampler);
  }

  /** `sampleAt` bound once: `advance` runs per replayed event and must not allocate. */
  private readonly sampler = (time: number): void => this.sampleAt(time);

  private sampleAt(time: number): void {
    // Expiries, switches and funding hours fire on the engine's next command: give it one.
    if (this.hasExposure()) {
      this.syncAll();
      // It may settle funding, and a payment may liquidate the strategy.
      this.withReplayedLiquidity(undefined, true, () => this.exchange.submit({ type: 'advanceTime' }));
    }
    this.recorder.sample(time, (id) => this.markPrice(id));
  }

  private markPrice(id: number): number {
    const m = this.markets.get(id)!;
    const ms = this.engine.markets.get(id)!;
    return m.oracle > 0 ? m.oracle : ms.oraclePrice;
  }

  private startTimers(): void {
    const period = (this.config.timerMs ?? 0) * 1000;
    if (period <= 0 || this.strategy.onTimer === undefined) return;
    const tick = (): void => {
      this.hook(this.strategy.onTimer, { time: this.now, name: 'interval' });
      this.agenda.push(this.now + period, tick, true);
    };
    this.agenda.push(this.now + period, tick, true);
  }

  private async finish(endTime: number): Promise<BacktestResult> {
    await this.drainUntil(endTime, true);
    this.advance(endTime);
    this.stopped = true;
    if (this.strategy.onEnd !== undefined) {
      const r = this.strategy.onEnd(this.ctx);
      if (isThenable(r)) this.watch(r);
      if (this.pendingAsync) await this.settle();
    }
    // What the strategy sent in onEnd still arrives; no new timers start.
    await this.drainUntil(Infinity, true);
    this.syncAll();
    this.recorder.finish(endTime, this.now, (id) => this.markPrice(id));
    this.progress(true);
    return this.recorder.result(this.config, this.events, [...this.markets.values()].map((m) => m.spec));
  }

  private async begin(): Promise<void> {
    this.startTimers();
    if (this.strategy.onStart !== undefined) {
      const r = this.strategy.onStart(this.ctx);
      if (isThenable(r)) this.watch(r);
    }
    if (this.pendingAsync) await this.settle();
  }

  private progress(done: boolean): void {
    const onProgress = this.config.onProgress;
    if (onProgress === undefined) return;
    onProgress({ events: this.events, time: this.now, from: this.from, to: this.to, fraction: this.fraction(), done });
  }

  private fraction: () => number | undefined = () => undefined;

  // -------------------------------------------------------------------------------------------
  // Replayed data.

  private async runReplay(reader: MarketDataSource, first: ReplayEvent | undefined): Promise<BacktestResult> {
    const every = this.config.progressEvery ?? 100_000;
    await this.begin();
    let last = this.now;
    for (let e = first; e !== undefined; e = reader.next()) {
      if (this.agenda.size > 0 && this.agenda.peekTime() < e.ts) await this.drainUntil(e.ts, false);
      if (e.ts > this.now) this.advance(e.ts);
      this.applyReplayed(e);
      if (this.pendingAsync) await this.settle();
      last = e.ts;
      if (++this.events % every === 0) this.progress(false);
    }
    return this.finish(this.to ?? last);
  }

  private applyReplayed(e: ReplayEvent): void {
    const m = this.markets.get(e.marketId)!;
    switch (e.type) {
      case 'oracle': {
        m.oracle = e.price;
        if (this.isLive(m)) this.syncOracle(m);
        else m.oracleSynced = false;
        if (this.strategy.onOraclePrice !== undefined) {
          const spec = m.spec;
          const update = { market: spec.displayName, marketId: spec.id, time: e.ts, price: toNumber(spec.tick, e.price), markPrice: toNumber(spec.tick, this.engine.markets.get(spec.id)!.markPrice || e.price) };
          this.deliver(e.ts, e.lts, this.strategy.onOraclePrice, update);
        }
        return;
      }
      case 'funding': {
        m.funding = e.rateE12;
        m.fundingHour = Math.floor(e.ts / HOUR_US);
        if (this.isLive(m)) this.syncFunding(m);
        else m.fundingSynced = false;
        if (this.strategy.onFunding !== undefined) {
          this.deliver(e.ts, e.lts, this.strategy.onFunding, { market: m.spec.displayName, marketId: m.spec.id, time: e.ts, rate: fundingRateString(e.rateE12) });
        }
        return;
      }
      case 'trade': {
        if (m.own.length > 0) this.tradeAgainstOwn(m, e.side, e.price, e.size);
        if (this.queue.name === 'probabilistic' && m.own.length > 0) m.traded.set(e.price, (m.traded.get(e.price) ?? 0) + e.size);
        this.recorder.lastTrade(e.marketId, e.price);
        if (this.strategy.onTrade !== undefined) {
          const spec = m.spec;
          this.deliver(e.ts, e.lts, this.strategy.onTrade, { market: spec.displayName, marketId: spec.id, time: e.ts, side: e.side === 0 ? 'BUY' : 'SELL', price: toNumber(spec.tick, e.price), size: toNumber(spec.step, e.size) });
        }
        return;
      }
      case 'book': {
        if (m.own.length > 0) this.shrinkQueues(m, e.snapshot, e.bids, e.asks);
        m.book.apply(e.snapshot, e.bids, e.asks);
        if (m.own.length > 0) this.crossOwn(m);
        if (this.strategy.onBook !== undefined) this.deliver(e.ts, e.lts, this.strategy.onBook, this.bookUpdate(m, e.ts));
        return;
      }
    }
  }

  private bookUpdate(m: MarketRuntime, time: number): BookUpdate {
    const spec = m.spec;
    const pairs = (flat: number[]): [number, number][] => {
      const out: [number, number][] = [];
      for (let i = 0; i < flat.length; i += 2) out.push([toNumber(spec.tick, flat[i]!), toNumber(spec.step, flat[i + 1]!)]);
      return out;
    };
    return { market: spec.displayName, marketId: spec.id, time, bids: pairs(m.book.bids.top(this.bookDepth)), asks: pairs(m.book.asks.top(this.bookDepth)) };
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

  private tradeAgainstOwn(m: MarketRuntime, aggressor: 0 | 1, price: number, size: number): void {
    const resting = this.ownByPriority(m, aggressor === 0 ? 1 : 0);
    if (resting.length === 0) return;
    const owed = new Map<number, number>();
    const total = tradeAgainst(resting, aggressor, price, size, owed);
    if (total > 0) this.fillOwn(m, aggressor, resting, owed, total);
  }

  /** A replayed book that now crosses own resting orders fills them from the crossing levels. */
  private crossOwn(m: MarketRuntime): void {
    for (const ownSide of [0, 1] as const) {
      const other = ownSide === 0 ? m.book.asks : m.book.bids;
      const best = other.best();
      if (best === 0) continue;
      const resting = this.ownByPriority(m, ownSide);
      if (resting.length === 0 || (ownSide === 0 ? resting[0]!.price < best : resting[0]!.price > best)) continue;
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
  }

  /**
   * Executes what replayed flow owes own resting orders: one reduce-only IOC of the replay
   * account on the aggressor's side, limited to the worst owed price; the engine fills own
   * orders best first.
   */
  private fillOwn(m: MarketRuntime, aggressor: 0 | 1, resting: readonly OwnOrder[], owed: ReadonlyMap<number, number>, total: number): void {
    let limit = 0;
    for (const order of resting) if (owed.has(order.orderId)) limit = order.price;
    this.settleFundingDue();
    this.syncMarket(m);
    this.openReplayAccounts(m);
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
      goodTilTime: this.now + DEFAULT_GTT_US,
    });
  }

  /**
   * The replay accounts' opening positions in a market: the long one buys from the short one at
   * the oracle price, before the strategy has any order there (so nothing else can match).
   */
  private openReplayAccounts(m: MarketRuntime): void {
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
    const gtt = this.now + DEFAULT_GTT_US;
    this.exchange.submit({ type: 'placeOrder', address: REPLAY_SHORT, accountIndex: 0, marketId: m.spec.id, side: 1, orderType: 0, tif: 0, price, size, reduceOnly: false, goodTilTime: gtt });
    this.exchange.submit({ type: 'placeOrder', address: REPLAY_LONG, accountIndex: 0, marketId: m.spec.id, side: 0, orderType: 0, tif: 2, price, size, reduceOnly: false, goodTilTime: gtt });
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
    const gtt = this.now + DEFAULT_GTT_US;
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
      const event = this.exchange.orders.get(p.orderId);
      const filled = event === undefined ? 0 : event.filled;
      (p.side === 0 ? p.m.book.bids : p.m.book.asks).consume(p.price, filled);
      touched.add(p.m);
    }
    for (const m of touched) {
      for (const address of [REPLAY_LONG, REPLAY_SHORT]) this.exchange.submit({ type: 'cancelAll', address, accountIndex: 0, marketId: m.spec.id });
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

  // -------------------------------------------------------------------------------------------
  // Engine sync for markets the strategy is exposed in.

  private isLive(m: MarketRuntime): boolean {
    const account = findAccount(this.engine.accounts, STRATEGY_ADDRESS, 0);
    const am = account?.markets[this.engine.markets.get(m.spec.id)!.slot];
    return am !== undefined && (am.size !== 0 || am.openOrders > 0);
  }

  private hasExposure(): boolean {
    const account = findAccount(this.engine.accounts, STRATEGY_ADDRESS, 0);
    return account !== undefined && account.active.length > 0;
  }

  /** Hands the engine the latest replayed oracle price: the mark moves, TPSL and liquidations may fire. */
  private syncOracle(m: MarketRuntime): void {
    m.oracleSynced = true;
    if (m.oracle > 0 && this.engine.markets.get(m.spec.id)!.oraclePrice !== m.oracle) {
      this.withReplayedLiquidity(m, false, () => this.exchange.submit({ type: 'setOraclePrice', marketId: m.spec.id, price: m.oracle }));
    }
  }

  /**
   * Runs an engine command that can set off the strategy's TPSL orders or its liquidation with
   * the replayed liquidity they would take placed in the engine as replay-account orders
   * (docs/decisions.md "Replayed liquidity"), withdrawn after it; what was taken is consumed.
   * `m`: the market of a new oracle price — its best replayed bid and ask, where better than the
   * strategy's own, so the mark's book mid is the replayed one; where the new mark may reach a
   * trigger, the levels an untriggered TPSL order would take, or those that close the position
   * (and the strategy's other positions: a cross liquidation closes them all). `allPositions`
   * (a command that may settle funding): every position gets the levels that close it. The
   * levels are placed at the engine's own time, so what falls due (funding, expiries) runs in
   * `command`, with them there.
   */
  private withReplayedLiquidity(m: MarketRuntime | undefined, allPositions: boolean, command: () => void): void {
    const account = findAccount(this.engine.accounts, STRATEGY_ADDRESS, 0);
    if (!this.replay || account === undefined || (m !== undefined && !m.replayOpened)) {
      command();
      return;
    }
    if (!allPositions) this.settleFundingDue();
    const placed: Materialized[] = [];
    const now = this.now;
    this.now = this.engine.time;
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
      const am = account.markets[ms.slot];
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
      for (const am of account.active) {
        const other = this.markets.get(am.marketId);
        if (other === undefined || other === m || am.size === 0 || !other.replayOpened) continue;
        this.materialize(other, am.size > 0 ? 1 : 0, am.size > 0 ? 0 : Number.MAX_SAFE_INTEGER, placed, Math.abs(am.size));
      }
    }
    this.now = now;
    command();
    if (placed.length > 0) this.withdraw(placed);
  }

  /** A funding settlement that has fallen due runs first, with the closing levels of every position (a payment may liquidate). */
  private settleFundingDue(): void {
    if (this.replay && this.engine.nextSettlementAt <= this.now && this.hasExposure()) {
      this.withReplayedLiquidity(undefined, true, () => this.exchange.submit({ type: 'advanceTime' }));
    }
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

  private syncFunding(m: MarketRuntime): void {
    m.fundingSynced = true;
    // A recorded rate fixes only the hour it was published in.
    if (m.funding !== undefined && m.fundingHour === Math.floor(this.now / HOUR_US)) this.exchange.submit({ type: 'setFundingRate', marketId: m.spec.id, rate: m.funding });
  }

  private syncMarket(m: MarketRuntime): void {
    if (!m.oracleSynced) this.syncOracle(m);
    if (!m.fundingSynced) this.syncFunding(m);
  }

  private syncAll(): void {
    for (const m of this.markets.values()) this.syncMarket(m);
  }

  // -------------------------------------------------------------------------------------------
  // The strategy's writes.

  private write(op: string, body: Record<string, unknown>, kind: 'order' | 'cancel'): Promise<Reply> {
    const latency = (WRITE_KINDS[op] ?? kind) === 'cancel' ? this.cancelLatency(0) : this.orderLatency(0);
    return new Promise<Reply>((resolve) => {
      this.agenda.push(this.now + latency, () => {
        resolve(this.execute(op, body));
        this.pendingAsync = true;
      });
    });
  }

  private execute(op: string, body: Record<string, unknown>): Reply {
    this.settleFundingDue();
    this.syncAll();
    const placed: Materialized[] = [];
    if (this.replay) {
      const takers = this.takers(op, body);
      // Every market's replay accounts open before any level is placed, so none can meet another's opening trade.
      for (const t of takers) this.openReplayAccounts(t.m);
      for (const t of takers) this.materialize(t.m, t.side, t.limit, placed);
    }
    const reply = this.gateway.call(op, body);
    if (placed.length > 0) this.withdraw(placed);
    this.recorder.reply(op, reply);
    return reply;
  }

  // -------------------------------------------------------------------------------------------
  // Engine events → own-order tracking, statistics, hooks.

  private onEngineEvents(events: readonly EngineEvent[]): void {
    for (const e of events) {
      switch (e.type) {
        case 'order':
          if (e.address === STRATEGY_ADDRESS) this.onOwnOrder(e);
          break;
        case 'fill':
          if (e.address === STRATEGY_ADDRESS) this.onOwnFill(e);
          break;
        case 'funding':
          if (e.address === STRATEGY_ADDRESS) {
            this.recorder.funding(e.payment);
            const spec = this.spec(e.marketId);
            if (this.strategy.onFunding !== undefined) this.deliver(e.time, e.time, this.strategy.onFunding, { market: spec.displayName, marketId: spec.id, time: e.time, rate: fundingRateString(e.rate), payment: usd(e.payment) });
          }
          break;
        case 'interest':
          if (e.address === STRATEGY_ADDRESS) this.recorder.interest(e.payment);
          break;
        case 'rejected':
          if (e.address === STRATEGY_ADDRESS) this.recorder.rejection(e.rejectionReason);
          break;
        default:
          if (!this.replay) this.onSimMarketEvent(e);
      }
    }
  }

  private onOwnOrder(e: OrderEvent): void {
    const spec = this.spec(e.marketId);
    if (e.status === 'REJECTED') this.recorder.rejection(e.rejectionReason ?? 'REJECTED');
    if (this.replay) {
      const m = this.markets.get(e.marketId)!;
      // Reported TPSL_PLACED when placed, UNTRIGGERED on later updates (a modify).
      if (e.status === 'TPSL_PLACED' || e.status === 'UNTRIGGERED') {
        // A sell stop-loss (protecting a long) and a buy take-profit fire as the mark falls to the trigger.
        const below = e.side === 1 ? e.tpslType === 'STOP_LOSS' : e.tpslType === 'TAKE_PROFIT';
        m.tpsl.set(e.orderId, { side: e.side, size: e.isPositionTpsl ? 0 : e.remaining, trigger: e.triggerPrice ?? 0, below });
      }
      else if (m.tpsl.size > 0) m.tpsl.delete(e.orderId);
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
    if (this.strategy.onOrderUpdate !== undefined) this.deliver(e.time, e.time, this.strategy.onOrderUpdate, formatOrder(e, spec, true));
  }

  private onOwnFill(e: FillEvent): void {
    const spec = this.spec(e.marketId);
    this.recorder.fill(e, spec);
    if (this.strategy.onFill !== undefined) this.deliver(e.time, e.time, this.strategy.onFill, formatFill(e, spec, undefined, true));
  }

  /** The simulator's public events: the strategy's market data. */
  private onSimMarketEvent(e: EngineEvent): void {
    switch (e.type) {
      case 'book': {
        const m = this.markets.get(e.marketId)!;
        m.book.apply(false, e.bids, e.asks);
        this.events++;
        if (this.strategy.onBook !== undefined) this.deliver(e.time, e.time, this.strategy.onBook, this.bookUpdate(m, e.time));
        break;
      }
      case 'trades': {
        const m = this.markets.get(e.marketId)!;
        for (const entry of e.entries) {
          this.events++;
          this.recorder.lastTrade(e.marketId, entry.price);
          if (this.strategy.onTrade !== undefined) {
            this.deliver(e.time, e.time, this.strategy.onTrade, { market: m.spec.displayName, marketId: m.spec.id, time: e.time, side: e.takerSide === 0 ? 'BUY' : 'SELL', price: toNumber(m.spec.tick, entry.price), size: toNumber(m.spec.step, entry.size) });
          }
        }
        break;
      }
      case 'prices': {
        const m = this.markets.get(e.marketId)!;
        m.oracle = e.oraclePrice;
        this.events++;
        if (this.strategy.onOraclePrice !== undefined) {
          this.deliver(e.time, e.time, this.strategy.onOraclePrice, { market: m.spec.displayName, marketId: m.spec.id, time: e.time, price: toNumber(m.spec.tick, e.oraclePrice), markPrice: toNumber(m.spec.tick, e.markPrice) });
        }
        break;
      }
      case 'fundingRate': {
        const m = this.markets.get(e.marketId)!;
        if (this.strategy.onFunding !== undefined) this.deliver(e.time, e.time, this.strategy.onFunding, { market: m.spec.displayName, marketId: m.spec.id, time: e.time, rate: fundingRateString(e.rate) });
        break;
      }
      default:
        break;
    }
  }

  // -------------------------------------------------------------------------------------------
  // The simulator.

  private async runSim(): Promise<BacktestResult> {
    const seed = this.config.seed ?? 1;
    const prices = this.config.prices ?? DEFAULT_PRICES;
    for (const m of this.markets.values()) {
      const text = prices[m.spec.displayName];
      const ticks = text === undefined ? null : priceToTicks(m.spec, text);
      if (ticks !== null && m.spec.status === 'ONLINE') this.exchange.submit({ type: 'setOraclePrice', marketId: m.spec.id, price: ticks });
    }
    const feedMs = this.config.sim?.feedMs ?? 1000;
    const stepper = startMarket(this.exchange, { seed, feedMs, walk: this.config.sim?.walk ?? {}, walkByMarket: {}, replays: new Map() }, { ...DEFAULT_AGENTS, ...this.config.sim?.agents });
    const end = this.to!;
    const stepUs = feedMs * 1000;
    const every = this.config.progressEvery ?? 100_000;
    this.fraction = () => (end > this.from ? (this.now - this.from) / (end - this.from) : undefined);
    await this.begin();
    let reported = 0;
    for (let t = this.from + stepUs; t < end; t += stepUs) {
      await this.drainUntil(t, false);
      this.advance(t);
      stepper(t);
      if (this.pendingAsync) await this.settle();
      if (this.events - reported >= every) {
        reported = this.events;
        this.progress(false);
      }
    }
    return this.finish(end);
  }

  // -------------------------------------------------------------------------------------------
  // Hooks.

  /** Hands `update` to `hook` after the feed latency (`localTime - time` is the recording's own). */
  private deliver<T>(time: number, localTime: number, hook: ((update: T, ctx: StrategyContext) => void | Promise<void>) | undefined, update: T): void {
    if (hook === undefined) return;
    if (this.feedZero) {
      this.hook(hook, update);
      return;
    }
    this.agenda.push(time + this.feedLatency(localTime - time), () => this.hook(hook, update));
  }

  private hook<T>(hook: ((update: T, ctx: StrategyContext) => void | Promise<void>) | undefined, update: T): void {
    if (hook === undefined) return;
    const r = hook.call(this.strategy, update, this.ctx);
    if (isThenable(r)) this.watch(r);
  }

  private watch(r: PromiseLike<unknown>): void {
    this.pendingAsync = true;
    r.then(
      () => {
        this.pendingAsync = true;
      },
      (err: unknown) => {
        this.failure ??= err;
        this.pendingAsync = true;
      },
    );
  }
}

function toNumber(unit: { mantissa: number; scale: number }, count: number): number {
  return (count * unit.mantissa) / 10 ** unit.scale;
}

function formatTicks(spec: MarketSpec, price: number, round: (x: number) => number): string {
  let ticks = Math.max(1, round((price * 10 ** spec.tick.scale) / spec.tick.mantissa - (round === Math.floor ? -1e-9 : 1e-9)));
  // A coarser tier tick: move to the nearest valid price on the same side.
  for (const band of spec.bands) {
    if (ticks < band.upTo) {
      const r = ticks % band.multiple;
      if (r !== 0) ticks = round === Math.floor ? ticks - r : ticks + band.multiple - r;
      break;
    }
  }
  return formatUnits(ticks, spec.tick);
}

function formatSteps(spec: MarketSpec, size: number): string {
  const quantums = Math.floor((size * 10 ** spec.step.scale) / spec.step.mantissa + 1e-9);
  return formatUnits(quantums, spec.step);
}

