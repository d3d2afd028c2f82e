/**
 * The strategy's side of a backtest: its context (`ctx`), the delivery of market data and
 * account events to its hooks after the feed latency, and the bookkeeping of what its async
 * hooks still have in flight.
 *
 * Contract: hooks may await the client's promises, which settle at scheduled simulated times;
 * `pendingAsync` says a continuation may still run, and the loop calls `settle()` to let every
 * one run before it moves on. A hook's failure fails the run (the first one is rethrown).
 */
import { formatUnits, plainRecord, type EngineEvent, type FillEvent, type MarketSpec, type OrderEvent } from '../../engine/index.ts';
import { formatFill, formatOrder, usd } from '../../gateway/contract/format.ts';
import { fundingRateString } from '../../gateway/read-models/funding-rates-store.ts';
import type { Agenda } from './agenda.ts';
import { pow10 } from './decimal-units.ts';
import type { BacktestClient } from './client.ts';
import type { LatencyModel } from './latency.ts';
import type { OwnFills } from './own-fills.ts';
import type { ReplaySide } from './replay-book.ts';
import { STRATEGY_ADDRESS, type MarketRuntime, type ReplayLiquidity, type SimTime } from './replay-liquidity.ts';
import type { Recorder } from './summary.ts';
import type { BookUpdate, ParamValue, Strategy, StrategyContext } from './types.ts';

export interface BridgeParts {
  strategy: Strategy;
  client: BacktestClient;
  agenda: Agenda;
  time: SimTime;
  markets: ReadonlyMap<number, MarketRuntime>;
  byName: ReadonlyMap<string, number>;
  recorder: Recorder;
  liquidity: ReplayLiquidity;
  ownFills: OwnFills;
  /** Latency of market data and account events; `feedZero`: none at all (delivered inline). */
  feedLatency: LatencyModel;
  feedZero: boolean;
  bookDepth: number;
  /** BacktestConfig.bookView: 'reused' hands onBook pooled views (see BookUpdate), 'copy' a fresh one per call. */
  bookView: 'reused' | 'copy';
  /** The strategy's parameters (a sweep's), exposed as `ctx.params`. */
  params: Readonly<Record<string, ParamValue>>;
  /** Counts a simulator market-data event. */
  countEvent: () => void;
}

/** The strategy's context is built once per run and read by its hooks: built, not a literal (engine/plain-record.ts). */
const buildContext = plainRecord<StrategyContext>();

export class StrategyBridge {
  readonly ctx: StrategyContext;
  /** A hook's continuation may still run: the loop must `settle()`. */
  pendingAsync = false;
  /** The run has ended: timers no longer fire. */
  stopped = false;
  private failure: unknown = undefined;
  private readonly strategy: Strategy;

  constructor(private readonly parts: BridgeParts) {
    this.strategy = parts.strategy;
    const specs = (id: number): MarketSpec => this.spec(id);
    this.ctx = buildContext({
      client: parts.client,
      now: () => parts.time.now,
      markets: parts.byName,
      params: parts.params,
      formatPrice: (id, price, side) => formatTicks(specs(id), price, side === 'BUY' ? Math.floor : Math.ceil),
      formatSize: (id, size) => formatSteps(specs(id), size),
      setTimer: (delayMs, name) => {
        if (!this.stopped) parts.agenda.push(parts.time.now + Math.max(0, Math.round(delayMs * 1000)), () => this.hook(this.strategy.onTimer, { time: parts.time.now, name }), true);
      },
    });
  }

  spec(id: number): MarketSpec {
    const m = this.parts.markets.get(id);
    if (m === undefined) throw new Error(`market ${id} is not configured in this backtest`);
    return m.spec;
  }

  /** Calls onStart or onEnd. */
  lifecycle(which: 'onStart' | 'onEnd'): void {
    const fn = this.strategy[which];
    if (fn === undefined) return;
    const r = fn.call(this.strategy, this.ctx);
    if (isThenable(r)) this.watch(r);
  }

  /** Lets every promise continuation the last step caused run (they may schedule more). */
  async settle(): Promise<void> {
    while (this.pendingAsync) {
      this.pendingAsync = false;
      await new Promise<void>(nextTurn);
    }
    if (this.failure !== undefined) throw this.failure;
  }

  /** Hands `update` to `hook` after the feed latency (`localTime - time` is the recording's own). */
  deliver<T>(time: number, localTime: number, hook: ((update: T, ctx: StrategyContext) => void | Promise<void>) | undefined, update: T): void {
    if (hook === undefined) return;
    if (this.parts.feedZero) {
      this.hook(hook, update);
      return;
    }
    this.parts.agenda.push(time + this.parts.feedLatency(localTime - time), () => this.hook(hook, update));
  }

  hook<T>(hook: ((update: T, ctx: StrategyContext) => void | Promise<void>) | undefined, update: T): void {
    if (hook === undefined) return;
    const r = hook.call(this.strategy, update, this.ctx);
    if (isThenable(r)) this.watch(r);
  }

  /**
   * A hook's promise: settle() must let its continuations run. Its fulfilment needs no round of
   * its own: a native promise's reaction runs inside the round that ran the hook's last
   * continuation, which drains every microtask before it ends (another thenable may call back
   * from anywhere, so it asks for one more round). A rejection asks for one, so settle() throws it.
   */
  private watch(r: PromiseLike<unknown>): void {
    this.pendingAsync = true;
    r.then(r instanceof Promise ? undefined : this.onThenableDone, this.onHookFailed);
  }

  // Bound once: watch() runs per async hook call.
  private readonly onThenableDone = (): void => {
    this.pendingAsync = true;
  };

  private readonly onHookFailed = (err: unknown): void => {
    this.failure ??= err;
    this.pendingAsync = true;
  };

  /**
   * Hands onBook the view of `m`'s book as it is now, after the feed latency. Runs per book
   * event: with `bookView: 'reused'` the view comes from a pool and goes back once the hook's
   * call has returned (BookUpdate's contract), so a run allocates no view per event; with
   * 'copy', a fresh one.
   */
  deliverBook(m: MarketRuntime, time: number, localTime: number): void {
    const hook = this.strategy.onBook;
    if (hook === undefined) return;
    if (this.parts.bookView === 'copy') {
      this.deliver(time, localTime, hook, bookSnapshot(m, time, this.parts.bookDepth));
      return;
    }
    const view = this.views.pop() ?? new BookView();
    view.fill(m, time, this.parts.bookDepth);
    if (this.parts.feedZero) {
      this.hookWithView(hook, view);
      return;
    }
    this.parts.agenda.push(time + this.parts.feedLatency(localTime - time), () => this.hookWithView(hook, view));
  }

  /** Views not lent out (one suffices without feed latency; with it, one per delivery in flight). */
  private readonly views: BookView[] = [];

  private hookWithView(hook: (update: BookUpdate, ctx: StrategyContext) => void | Promise<void>, view: BookView): void {
    this.hook(hook, view.update);
    this.views.push(view);
  }

  // -------------------------------------------------------------------------------------------
  // Engine events → own-order tracking, statistics, hooks.

  onEngineEvents(events: readonly EngineEvent[]): void {
    const recorder = this.parts.recorder;
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
            recorder.funding(e.payment);
            const spec = this.spec(e.marketId);
            if (this.strategy.onFunding !== undefined) this.deliver(e.time, e.time, this.strategy.onFunding, { market: spec.displayName, marketId: spec.id, time: e.time, rate: fundingRateString(e.rate), payment: usd(e.payment) });
          }
          break;
        case 'interest':
          if (e.address === STRATEGY_ADDRESS) recorder.interest(e.payment);
          break;
        case 'rejected':
          if (e.address === STRATEGY_ADDRESS) recorder.rejection(e.rejectionReason);
          break;
        default:
          if (!this.parts.liquidity.replay) this.onSimMarketEvent(e);
      }
    }
  }

  private onOwnOrder(e: OrderEvent): void {
    const spec = this.spec(e.marketId);
    if (e.status === 'REJECTED') this.parts.recorder.rejection(e.rejectionReason ?? 'REJECTED');
    if (this.parts.liquidity.replay) {
      const m = this.parts.markets.get(e.marketId)!;
      this.parts.liquidity.trackTpsl(m, e);
      this.parts.ownFills.track(m, e);
    }
    if (this.strategy.onOrderUpdate !== undefined) this.deliver(e.time, e.time, this.strategy.onOrderUpdate, formatOrder(e, spec, true));
  }

  private onOwnFill(e: FillEvent): void {
    const spec = this.spec(e.marketId);
    this.parts.recorder.fill(e, spec);
    if (this.strategy.onFill !== undefined) this.deliver(e.time, e.time, this.strategy.onFill, formatFill(e, spec, undefined, true));
  }

  /** The simulator's public events: the strategy's market data. */
  private onSimMarketEvent(e: EngineEvent): void {
    const s = this.strategy;
    switch (e.type) {
      case 'book': {
        const m = this.parts.markets.get(e.marketId)!;
        m.book.apply(false, e.bids, e.asks);
        this.parts.countEvent();
        if (s.onBook !== undefined) this.deliverBook(m, e.time, e.time);
        break;
      }
      case 'trades': {
        const m = this.parts.markets.get(e.marketId)!;
        for (const entry of e.entries) {
          this.parts.countEvent();
          this.parts.recorder.lastTrade(e.marketId, entry.price);
          if (s.onTrade !== undefined) {
            this.deliver(e.time, e.time, s.onTrade, { market: m.spec.displayName, marketId: m.spec.id, time: e.time, side: e.takerSide === 0 ? 'BUY' : 'SELL', price: toNumber(m.spec.tick, entry.price), size: toNumber(m.spec.step, entry.size) });
          }
        }
        break;
      }
      case 'prices': {
        const m = this.parts.markets.get(e.marketId)!;
        m.oracle = e.oraclePrice;
        this.parts.countEvent();
        if (s.onOraclePrice !== undefined) {
          this.deliver(e.time, e.time, s.onOraclePrice, { market: m.spec.displayName, marketId: m.spec.id, time: e.time, price: toNumber(m.spec.tick, e.oraclePrice), markPrice: toNumber(m.spec.tick, e.markPrice) });
        }
        break;
      }
      case 'fundingRate': {
        const m = this.parts.markets.get(e.marketId)!;
        if (s.onFunding !== undefined) this.deliver(e.time, e.time, s.onFunding, { market: m.spec.displayName, marketId: m.spec.id, time: e.time, rate: fundingRateString(e.rate) });
        break;
      }
      default:
        break;
    }
  }
}

/** Resolves at the event loop's next turn, once every microtask queued before it has run. */
function nextTurn(resolve: () => void): void {
  setImmediate(resolve);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** `bookView: 'copy'`: a fresh view, its own arrays and pairs. */
function bookSnapshot(m: MarketRuntime, time: number, depth: number): BookUpdate {
  const spec = m.spec;
  return { market: spec.displayName, marketId: spec.id, time, bids: levelPairs(m.book.bids, depth, spec, [], []), asks: levelPairs(m.book.asks, depth, spec, [], []) };
}

/**
 * A pooled onBook view: `update` is what the strategy gets; its `bids` and `asks` arrays and
 * their pairs are refilled in place (the pairs ever used stay in `bidPairs` / `askPairs`, so a
 * shorter book and a longer one after it reuse them).
 */
class BookView {
  readonly update: BookUpdate = { market: '', marketId: 0, time: 0, bids: [], asks: [] };
  private readonly bidPairs: [number, number][] = [];
  private readonly askPairs: [number, number][] = [];

  fill(m: MarketRuntime, time: number, depth: number): void {
    const spec = m.spec;
    const u = this.update;
    u.market = spec.displayName;
    u.marketId = spec.id;
    u.time = time;
    levelPairs(m.book.bids, depth, spec, u.bids, this.bidPairs);
    levelPairs(m.book.asks, depth, spec, u.asks, this.askPairs);
  }
}

/**
 * Up to `depth` visible levels of `side`, best first, as [price, size] in USD / base units
 * (ReplaySide.top's levels), written into `out` (its length set to the count) with the pairs
 * taken from `pairs` (extended when short).
 */
function levelPairs(side: ReplaySide, depth: number, spec: MarketSpec, out: [number, number][], pairs: [number, number][]): [number, number][] {
  const count = side.count;
  let n = 0;
  for (let k = 0; k < count && n < depth; k++) {
    const size = side.visibleAt(k);
    if (size <= 0) continue;
    const p = toNumber(spec.tick, side.priceAt(k));
    const s = toNumber(spec.step, size);
    let pair = pairs[n];
    if (pair === undefined) {
      pair = [p, s];
      pairs.push(pair);
    } else {
      pair[0] = p;
      pair[1] = s;
    }
    if (n < out.length) out[n] = pair;
    else out.push(pair);
    n++;
  }
  if (out.length !== n) out.length = n;
  return out;
}

/** A count of ticks or steps as USD / base units. */
export function toNumber(unit: { mantissa: number; scale: number }, count: number): number {
  return (count * unit.mantissa) / pow10(unit.scale);
}

function formatTicks(spec: MarketSpec, price: number, round: (x: number) => number): string {
  let ticks = Math.max(1, round((price * pow10(spec.tick.scale)) / spec.tick.mantissa - (round === Math.floor ? -1e-9 : 1e-9)));
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
  const quantums = Math.floor((size * pow10(spec.step.scale)) / spec.step.mantissa + 1e-9);
  return formatUnits(quantums, spec.step);
}
