/**
 * `Backtest`: one strategy against perpsim's engine on simulated time, fed by the seeded
 * simulator or by recorded market data.
 *
 * Contract:
 * - Time is the exchange's (unix µs). Market data is applied at its exchange time; the strategy
 *   hears of it `feed` latency later; its writes reach the exchange `order` / `cancel` latency
 *   after it sends them. Everything waiting is on the agenda (agenda.ts), ordered by (time,
 *   sequence of scheduling). A data event and a scheduled item at the same time: the data event
 *   goes first.
 * - The strategy's writes run the gateway's operation handlers (client.ts) and so the engine's
 *   commands: fees, margin, funding, liquidation, TPSL and rejections are the engine's own.
 * - Replayed liquidity meets the strategy's orders through replay accounts (replay-liquidity.ts);
 *   replayed flow fills its resting orders per the queue model (own-fills.ts); its hooks and
 *   context are the strategy bridge's (strategy-bridge.ts).
 * - Deterministic: no wall clock, no Math.random; hooks may await the client's promises, which
 *   settle at scheduled simulated times, and the loop lets every such continuation run before
 *   it moves on.
 */
import { plainRecord, priceToTicks, type Engine, type MarketDef, type MarketSpec } from '../../engine/index.ts';
import type { Exchange } from '../../gateway/read-models/exchange.ts';
import { fundingRateString } from '../../gateway/read-models/funding-rates-store.ts';
import { statSync } from 'node:fs';
import { DEFAULT_AGENTS } from '../agents.ts';
import { startMarket } from '../market.ts';
import { DEFAULT_PRICES, defaultMarkets } from '../markets.ts';
import { Agenda } from './agenda.ts';
import { BacktestClient, InProcessGateway, WRITE_KINDS, type Reply, type WriteTransport } from './client.ts';
import type { MarketDataSource, ReplayEvent } from './data-format.ts';
import { isZeroLatency, latencyModel, type LatencyModel } from './latency.ts';
import { openMarketData } from './open-market-data.ts';
import { OwnFills } from './own-fills.ts';
import { createQueueModel } from './queue-model.ts';
import { ReplayBook } from './replay-book.ts';
import { HOUR_US, ReplayLiquidity, STRATEGY_ADDRESS, type MarketRuntime, type SimTime } from './replay-liquidity.ts';
import { StrategyBridge, toNumber, type BridgeParts } from './strategy-bridge.ts';
import { Recorder, type BacktestResult } from './summary.ts';
import type { BacktestConfig, Strategy, StrategyModule } from './types.ts';
import type { SchemaValidator } from '../../gateway/contract/validator.ts';

/**
 * What backtests run one after another in one thread may share (a sweep thread's runs): the
 * validator that compiles the operations' request schemas, so that each is compiled once per
 * thread. Shared code, no shared state: a validator keeps only compiled schemas.
 */
export interface BacktestShared {
  validator?: SchemaValidator;
}

export { STRATEGY_ADDRESS };
/** 2025-01-01T00:00:00Z, where simulator runs start unless told otherwise. */
export const DEFAULT_SIM_START_US = 1_735_689_600_000_000;

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

/**
 * A backtest run. `new Backtest(config, strategy).run()` answers the summary, the fills and the
 * sampled series; `writeOutputs` (summary.ts) writes summary.json and report.html.
 */
// Records a backtest builds once per run and reads in its loop: built, not literals (engine/plain-record.ts).
const buildMarketRuntime = plainRecord<MarketRuntime>();
const buildSimTime = plainRecord<SimTime>();
const buildBridgeParts = plainRecord<BridgeParts>();

export class Backtest implements WriteTransport {
  readonly config: BacktestConfig;
  private readonly strategy: Strategy;
  private readonly exchange: Exchange;
  private readonly engine: Engine;
  private readonly gateway: InProcessGateway;
  readonly client: BacktestClient;
  private readonly markets = new Map<number, MarketRuntime>();
  private readonly agenda = new Agenda();
  private readonly time: SimTime;
  private readonly orderLatency: LatencyModel;
  private readonly cancelLatency: LatencyModel;
  private readonly recorder: Recorder;
  private readonly liquidity: ReplayLiquidity;
  private readonly ownFills: OwnFills;
  private readonly bridge: StrategyBridge;
  private readonly replay: boolean;
  private readonly from: number;
  private readonly to: number | undefined;
  private events = 0;

  constructor(config: BacktestConfig, strategy: StrategyModule, shared: BacktestShared = {}) {
    this.config = config;
    this.strategy = typeof strategy === 'function' ? strategy(config) : strategy;
    // JavaScript callers get no type check: a missing strategy is named here, not a TypeError deep in the run.
    if (typeof this.strategy !== 'object' || this.strategy === null) {
      throw new TypeError(
        `Backtest needs a strategy: new Backtest(config, strategy), where strategy is an object of hooks ` +
          `or a function of the config that returns one (got ${typeof strategy === 'function' ? `a function returning ${String(this.strategy)}` : String(strategy)})`,
      );
    }
    const seed = config.seed ?? 1;
    this.replay = config.data !== 'sim';
    const defs = resolveMarkets(config);
    this.from = config.from ?? (this.replay ? -Infinity : DEFAULT_SIM_START_US);
    this.to = config.to ?? (this.replay ? undefined : this.from + HOUR_US);
    const time = buildSimTime({ now: Number.isFinite(this.from) ? this.from : 0 });
    this.time = time;
    this.gateway = new InProcessGateway({ markets: defs, ...(config.feeTiers && { risk: { feeTiers: config.feeTiers } }) }, () => time.now, STRATEGY_ADDRESS, shared.validator);
    this.exchange = this.gateway.state.exchange;
    this.engine = this.exchange.engine;
    const byName = new Map<string, number>();
    for (const def of defs) {
      const ms = this.engine.markets.get(def.id)!;
      byName.set(def.displayName, def.id);
      this.markets.set(def.id, buildMarketRuntime({
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
      }));
    }
    this.orderLatency = latencyModel(config.latency?.order, seed * 3 + 1);
    this.cancelLatency = latencyModel(config.latency?.cancel ?? config.latency?.order, seed * 3 + 2);
    this.client = new BacktestClient(this.gateway, this, STRATEGY_ADDRESS, 0);
    this.recorder = new Recorder(this.engine, STRATEGY_ADDRESS, 0, config.sampleMs ?? 60_000);
    this.liquidity = new ReplayLiquidity(this.exchange, this.markets, time, this.replay);
    this.ownFills = new OwnFills(this.exchange, this.liquidity, createQueueModel(config.queueModel ?? 'conservative', seed), time);
    this.bridge = new StrategyBridge(buildBridgeParts({
      strategy: this.strategy,
      client: this.client,
      agenda: this.agenda,
      time,
      markets: this.markets,
      byName,
      recorder: this.recorder,
      liquidity: this.liquidity,
      ownFills: this.ownFills,
      feedLatency: latencyModel(config.latency?.feed, seed * 3 + 3),
      feedZero: isZeroLatency(config.latency?.feed),
      bookDepth: config.bookDepth ?? 5,
      bookView: config.bookView ?? 'reused',
      params: config.params ?? {},
      countEvent: () => void this.events++,
    }));
    this.exchange.listeners.add((events) => this.bridge.onEngineEvents(events));
  }

  private get now(): number {
    return this.time.now;
  }

  private set now(t: number) {
    this.time.now = t;
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
      if (item.timer && this.bridge.stopped) continue;
      this.advance(item.time);
      item.run();
      if (this.bridge.pendingAsync) await this.bridge.settle();
    }
  }

  private advance(time: number): void {
    if (time > this.now) this.now = time;
    this.recorder.sampleUntil(this.now, this.sampler);
  }

  /** `sampleAt` bound once: `advance` runs per replayed event and must not allocate. */
  private readonly sampler = (time: number): void => this.sampleAt(time);

  private sampleAt(time: number): void {
    // Expiries, switches and funding hours fire on the engine's next command: give it one.
    if (this.liquidity.hasExposure()) {
      this.liquidity.syncAll();
      // It may settle funding, and a payment may liquidate the strategy.
      this.liquidity.advanceTime();
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
      this.bridge.hook(this.strategy.onTimer, { time: this.now, name: 'interval' });
      this.agenda.push(this.now + period, tick, true);
    };
    this.agenda.push(this.now + period, tick, true);
  }

  private async finish(endTime: number): Promise<BacktestResult> {
    await this.drainUntil(endTime, true);
    this.advance(endTime);
    this.bridge.stopped = true;
    this.bridge.lifecycle('onEnd');
    if (this.bridge.pendingAsync) await this.bridge.settle();
    // What the strategy sent in onEnd still arrives; no new timers start.
    await this.drainUntil(Infinity, true);
    this.liquidity.syncAll();
    this.recorder.finish(endTime, this.now, (id) => this.markPrice(id));
    this.progress(true);
    return this.recorder.result(this.config, this.events, [...this.markets.values()].map((m) => m.spec));
  }

  private async begin(): Promise<void> {
    this.startTimers();
    this.bridge.lifecycle('onStart');
    if (this.bridge.pendingAsync) await this.bridge.settle();
  }

  private progress(done: boolean): void {
    const onProgress = this.config.onProgress;
    if (onProgress === undefined) return;
    onProgress({ events: this.events, time: this.now, from: this.from, to: this.to, fraction: this.fraction(), done });
  }

  private fraction: () => number | undefined = () => undefined;

  // -------------------------------------------------------------------------------------------
  // The strategy's writes.

  /** The client's transport: schedules a strategy write after the order or cancel latency. */
  write(op: string, body: Record<string, unknown>, kind: 'order' | 'cancel'): Promise<Reply> {
    const latency = (WRITE_KINDS[op] ?? kind) === 'cancel' ? this.cancelLatency(0) : this.orderLatency(0);
    return new Promise<Reply>((resolve) => {
      this.agenda.push(this.now + latency, () => {
        const reply = this.liquidity.aroundWrite(op, body, () => this.gateway.call(op, body));
        this.recorder.reply(op, reply);
        resolve(reply);
        this.bridge.pendingAsync = true;
      });
    });
  }

  // -------------------------------------------------------------------------------------------
  // Replayed data.

  private async runReplay(reader: MarketDataSource, first: ReplayEvent | undefined): Promise<BacktestResult> {
    const every = this.config.progressEvery ?? 100_000;
    await this.begin();
    this.lastTs = this.now;
    for (let e = first; e !== undefined; e = reader.next()) {
      if (this.agenda.size > 0 && this.agenda.peekTime() < e.ts) await this.drainUntil(e.ts, false);
      if (e.ts > this.now) this.advanceTo(e);
      this.applyReplayed(e);
      if (this.bridge.pendingAsync) await this.bridge.settle();
      this.lastTs = e.ts;
      if (++this.events % every === 0) this.progress(false);
    }
    return this.finish(this.to ?? this.lastTs);
  }

  /**
   * The time of the latest replayed event, and `advance` to an event's time: the loop above keeps
   * its times in fields and hands the event over, not a time. A time in microseconds is no small
   * integer: a local of the async loop, or an argument to a call V8 does not inline, holds it as a
   * heap number, one per replayed event.
   */
  private lastTs = 0;

  private advanceTo(e: ReplayEvent): void {
    const time = this.time;
    if (e.ts > time.now) time.now = e.ts;
    this.recorder.sampleUntilTime(time, this.sampler);
  }

  private applyReplayed(e: ReplayEvent): void {
    const m = this.markets.get(e.marketId)!;
    const s = this.strategy;
    const bridge = this.bridge;
    switch (e.type) {
      case 'oracle': {
        m.oracle = e.price;
        if (this.liquidity.isLive(m)) this.liquidity.syncOracle(m);
        else m.oracleSynced = false;
        if (s.onOraclePrice !== undefined) {
          const spec = m.spec;
          const update = { market: spec.displayName, marketId: spec.id, time: e.ts, price: toNumber(spec.tick, e.price), markPrice: toNumber(spec.tick, this.engine.markets.get(spec.id)!.markPrice || e.price) };
          bridge.deliver(e.ts, e.lts, s.onOraclePrice, update);
        }
        return;
      }
      case 'funding': {
        m.funding = e.rateE12;
        m.fundingHour = Math.floor(e.ts / HOUR_US);
        if (this.liquidity.isLive(m)) this.liquidity.syncFunding(m);
        else m.fundingSynced = false;
        if (s.onFunding !== undefined) {
          bridge.deliver(e.ts, e.lts, s.onFunding, { market: m.spec.displayName, marketId: m.spec.id, time: e.ts, rate: fundingRateString(e.rateE12) });
        }
        return;
      }
      case 'trade': {
        this.ownFills.onTrade(m, e.side, e.price, e.size);
        this.recorder.lastTrade(e.marketId, e.price);
        if (s.onTrade !== undefined) {
          const spec = m.spec;
          bridge.deliver(e.ts, e.lts, s.onTrade, { market: spec.displayName, marketId: spec.id, time: e.ts, side: e.side === 0 ? 'BUY' : 'SELL', price: toNumber(spec.tick, e.price), size: toNumber(spec.step, e.size) });
        }
        return;
      }
      case 'book': {
        this.ownFills.onBook(m, e.snapshot, e.bids, e.asks);
        if (s.onBook !== undefined) bridge.deliverBook(m, e.ts, e.lts);
        return;
      }
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
      if (this.bridge.pendingAsync) await this.bridge.settle();
      if (this.events - reported >= every) {
        reported = this.events;
        this.progress(false);
      }
    }
    return this.finish(end);
  }
}
