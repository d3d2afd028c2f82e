/**
 * Property tests of the matching engine over random command streams.
 *
 * Each stream mixes LIMIT and MARKET placements (GTT / IOC / FOK / ALO, some reduce-only, some
 * with clientIds), cancels by orderId and by clientId, modifies (in place, crossing, and
 * cancel-replace through a new goodTilTime; some naming targets that do not exist yet, so they
 * wait in the modify buffer), cancelAll, dead man's switches, advanceTime and setPrices, across
 * four subaccounts and two markets. Every stream ends with a cancelAll for every account and a
 * step past every goodTilTime (in either order, so sometimes everything expires).
 *
 * One `describe` per rule. Each rule keeps its own view of the world, built from the event
 * stream, and compares it with the engine's state after every command (the books through
 * engine/book.ts, live orders through `engine.orders.get` / `.size`; no other internals, so the
 * engine's data structures may change freely). A failing case is shrunk by fast-check to a
 * short command list, printed with the seed.
 *
 * Engine bugs these properties found are pinned at the bottom as minimal regressions.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bestLevel, type BookSide } from '../engine/book.ts';
import type { Order } from '../engine/order.ts';
import { priceGet } from '../engine/price-index.ts';
import type { Engine } from '../engine/engine.ts';
import { isTransitionAllowed } from '../engine/order.ts';
import { TERMINAL_ORDER_STATUSES, type OrderStatus } from '../engine/spec.ts';
import type { Command, CommandResult, EngineEvent, FillEvent, ModifyOrderCommand, OrderEvent, SideCode, TifCode, TradeEntry } from '../engine/types.ts';
import { ALICE, BOB, CAROL, DAY_US, harness, idOf, orderUpdates, testMarket, TEST_ACCOUNTS, type Harness } from './support/engine-fixture.ts';

// ---------------------------------------------------------------------------------------------
// The world: accounts, markets, client ids.

const ACCOUNTS = TEST_ACCOUNTS;

const MARKETS = [testMarket(), testMarket({ id: 2, displayName: 'TWO-USD', baseAsset: 'TWO' })];
const MARKET_IDS = MARKETS.map((m) => m.id);
const CLIENT_IDS = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'] as const;
const MONTH_US = 30 * DAY_US;

function accountKey(address: string, accountIndex: number): string {
  return address + '/' + accountIndex;
}

// ---------------------------------------------------------------------------------------------
// Abstract commands: generated up front, resolved when they run against what the events have
// shown so far (an orderId is picked among the ids the account has seen, a modify's "relative"
// price and size start from its target's last update), so shrinking keeps references valid.

type Op =
  | {
      k: 'place';
      acct: number;
      market: number;
      side: SideCode;
      orderType: 0 | 1;
      tif: TifCode;
      price: number;
      size: number;
      reduceOnly: boolean;
      /** Index into CLIENT_IDS, or -1 for none. */
      cid: number;
      /** goodTilTime = time + 30 days + gtt seconds; -1 is one microsecond short (invalid). */
      gtt: number;
      settle: boolean;
    }
  | { k: 'cancel'; acct: number; market: number; byClient: boolean; pick: number; settle: boolean }
  | {
      k: 'modify';
      acct: number;
      market: number;
      byClient: boolean;
      pick: number;
      price: number;
      size: number;
      gtt: 'omit' | 'same' | 'new' | 'bad';
      gttSeconds: number;
      /** 'abs': price and size as drawn; 'rel': the target's price + dPrice and size + dSize. */
      mode: 'abs' | 'rel';
      dPrice: number;
      dSize: number;
      immutable: 'omit' | 'same' | 'flip';
      settle: boolean;
    }
  | { k: 'cancelAll'; acct: number; market: number | null; settle: boolean }
  | { k: 'advance'; us: number }
  | { k: 'prices'; market: number; mark: number; settle: boolean }
  | { k: 'schedule'; acct: number; market: number | null; ahead: number | null; settle: boolean };

const acctArb = fc.integer({ min: 0, max: ACCOUNTS.length - 1 });
/** Mostly the two markets; now and then one that does not exist. */
const marketArb = fc.oneof({ weight: 60, arbitrary: fc.constantFrom(...MARKET_IDS) }, { weight: 1, arbitrary: fc.constant(3) });
/** Near the mark (1000) so orders cross often; now and then off-tick, far or tiered prices. */
const priceArb = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 993, max: 1007 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -5, 899, 1101, 9_999, 10_001, 10_005, 99_995, 100_005, 100_010) },
);
/** Quantums; 50 at price 1000 is the 5 USD minimum notional. */
const sizeArb = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 45, max: 220 }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 10 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 100_000_001) },
);
const settleArb = fc.boolean();

const placeArb: fc.Arbitrary<Op> = fc
  .record({
    acct: acctArb,
    market: marketArb,
    side: fc.constantFrom<SideCode>(0, 1),
    orderType: fc.oneof({ weight: 6, arbitrary: fc.constant<0 | 1>(0) }, { weight: 1, arbitrary: fc.constant<0 | 1>(1) }),
    tif: fc.oneof(
      { weight: 6, arbitrary: fc.constant<TifCode>(0) },
      { weight: 2, arbitrary: fc.constant<TifCode>(2) },
      { weight: 1, arbitrary: fc.constant<TifCode>(1) },
      { weight: 2, arbitrary: fc.constant<TifCode>(3) },
    ),
    price: priceArb,
    size: sizeArb,
    reduceOnly: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    cid: fc.oneof({ weight: 2, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: CLIENT_IDS.length - 1 }) }),
    gtt: fc.oneof({ weight: 40, arbitrary: fc.integer({ min: 0, max: 5 }) }, { weight: 1, arbitrary: fc.constant(-1) }),
    settle: settleArb,
  })
  .map((r) => ({ k: 'place' as const, ...r, tif: r.orderType === 1 && r.tif !== 2 && r.price % 3 !== 0 ? (2 as TifCode) : r.tif }));

const cancelArb: fc.Arbitrary<Op> = fc
  .record({ acct: acctArb, market: marketArb, byClient: fc.boolean(), pick: fc.nat(), settle: settleArb })
  .map((r) => ({ k: 'cancel' as const, ...r }));

const modifyArb: fc.Arbitrary<Op> = fc
  .record({
    acct: acctArb,
    market: marketArb,
    byClient: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    pick: fc.nat(),
    price: priceArb,
    size: fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 30, max: 260 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 30 }) }),
    mode: fc.constantFrom<'abs' | 'rel'>('abs', 'rel'),
    dPrice: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: -3, max: 3 }) }),
    dSize: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: -40, max: 40 }) }),
    gtt: fc.oneof(
      { weight: 8, arbitrary: fc.constant<'omit'>('omit') },
      { weight: 2, arbitrary: fc.constant<'same'>('same') },
      { weight: 3, arbitrary: fc.constant<'new'>('new') },
      { weight: 1, arbitrary: fc.constant<'bad'>('bad') },
    ),
    gttSeconds: fc.integer({ min: 0, max: 5 }),
    immutable: fc.oneof(
      { weight: 8, arbitrary: fc.constant<'omit'>('omit') },
      { weight: 2, arbitrary: fc.constant<'same'>('same') },
      { weight: 1, arbitrary: fc.constant<'flip'>('flip') },
    ),
    settle: settleArb,
  })
  .map((r) => ({ k: 'modify' as const, ...r }));

const cancelAllArb: fc.Arbitrary<Op> = fc
  .record({ acct: acctArb, market: fc.option(marketArb, { nil: null }), settle: settleArb })
  .map((r) => ({ k: 'cancelAll' as const, ...r }));

const advanceArb: fc.Arbitrary<Op> = fc
  .oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 2_000_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 7 }).map((s) => MONTH_US + s * 1_000_000) },
    { weight: 1, arbitrary: fc.integer({ min: 4_000_000, max: 400_000_000 }) },
  )
  .map((us) => ({ k: 'advance' as const, us }));

const pricesArb: fc.Arbitrary<Op> = fc
  .record({
    market: fc.constantFrom(...MARKET_IDS),
    mark: fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 950, max: 1050 }) }, { weight: 1, arbitrary: fc.constant(0) }),
    settle: settleArb,
  })
  .map((r) => ({ k: 'prices' as const, ...r }));

const scheduleArb: fc.Arbitrary<Op> = fc
  .record({
    acct: acctArb,
    market: fc.option(fc.constantFrom(...MARKET_IDS), { nil: null }),
    ahead: fc.option(fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 5_000_000, max: 300_000_000 }) }, { weight: 1, arbitrary: fc.constant(1_000_000) }), {
      nil: null,
      freq: 4,
    }),
    settle: settleArb,
  })
  .map((r) => ({ k: 'schedule' as const, ...r }));

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 45, arbitrary: placeArb },
  { weight: 12, arbitrary: cancelArb },
  { weight: 20, arbitrary: modifyArb },
  { weight: 2, arbitrary: cancelAllArb },
  { weight: 8, arbitrary: advanceArb },
  { weight: 4, arbitrary: pricesArb },
  { weight: 2, arbitrary: scheduleArb },
);

interface Scenario {
  /** Open orders per account and market; small values exercise OPEN_ORDER_CAP_EXCEEDED. */
  cap: number;
  /** How the stream ends: cancelAll for every account then a step past every goodTilTime, or the other way round (everything expires). */
  ending: 'cancelAll-then-expire' | 'expire-then-cancelAll';
  ops: Op[];
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  cap: fc.oneof({ weight: 3, arbitrary: fc.constant(1000) }, { weight: 1, arbitrary: fc.constant(4) }),
  ending: fc.constantFrom<Scenario['ending']>('cancelAll-then-expire', 'expire-then-cancelAll'),
  ops: fc.array(opArb, { minLength: 1, maxLength: 300, size: 'max' }),
});

/**
 * Runs per rule: about 1.5 s each, so the file stays well inside ~20 s. PERPSIM_PROPERTY_RUNS
 * raises it for a deeper local search.
 */
const NUM_RUNS = Number(process.env.PERPSIM_PROPERTY_RUNS ?? 400);

// ---------------------------------------------------------------------------------------------
// The runner: applies a scenario and hands each command's events to one rule.

interface Step {
  /** null for the events the harness emitted while it set up (initial prices). */
  command: Command | null;
  result: CommandResult | null;
  events: EngineEvent[];
  /** True when time had already been moved to the command's time, so no timer fired inside it. */
  settled: boolean;
}

interface Rule {
  step(step: Step, engine: Engine): void;
  end?(engine: Engine): void;
}

function fail(message: string): never {
  throw new Error(message);
}

function check(condition: boolean, message: () => string): asserts condition {
  if (!condition) fail(message());
}

class Runner {
  readonly h: Harness;
  readonly engine: Engine;
  // The generator's own view, from the events only (never the engine's internals): the ids
  // each account has seen, every id, each order's last update, and which orders are live.
  private readonly idsByAccount = new Map<string, number[]>();
  private readonly allIds: number[] = [];
  private readonly lastOrder = new Map<number, OrderEvent>();
  private readonly liveByAccount = new Map<string, Set<number>>();
  private maxOrderId = 0;
  private maxGoodTilTime = 0;

  constructor(
    private readonly rule: Rule,
    cap: number,
  ) {
    this.h = harness({ markets: MARKETS, limits: { openOrdersPerMarket: cap } });
    this.engine = this.h.engine;
    this.feed({ command: null, result: null, events: this.h.events.slice(), settled: true });
  }

  private feed(step: Step): void {
    for (const e of step.events) {
      if (e.type !== 'order') continue;
      const key = accountKey(e.address, e.accountIndex);
      if (!this.lastOrder.has(e.orderId)) {
        let ids = this.idsByAccount.get(key);
        if (ids === undefined) this.idsByAccount.set(key, (ids = []));
        ids.push(e.orderId);
        this.allIds.push(e.orderId);
      }
      this.lastOrder.set(e.orderId, e);
      let live = this.liveByAccount.get(key);
      if (live === undefined) this.liveByAccount.set(key, (live = new Set()));
      if (isResting(e.status)) live.add(e.orderId);
      else live.delete(e.orderId);
      if (e.orderId > this.maxOrderId) this.maxOrderId = e.orderId;
      if (e.goodTilTime > this.maxGoodTilTime) this.maxGoodTilTime = e.goodTilTime;
    }
    this.rule.step(step, this.engine);
  }

  /** Applies one command (it carries its time) and feeds its events to the rule. */
  apply(command: Command, settled: boolean): CommandResult {
    const result = this.h.run(command);
    this.feed({ command, result, events: this.h.take(), settled });
    return result;
  }

  run(op: Op): void {
    const h = this.h;
    if (op.k === 'advance') {
      this.apply({ type: 'advanceTime', time: h.time + op.us }, false);
      return;
    }
    const time = h.time + 1;
    // "Settled": move time first, so the command itself cannot fire timers.
    if (op.settle) this.apply({ type: 'advanceTime', time }, false);
    this.apply(this.build(op, time), op.settle);
  }

  /** Ends the stream: nothing may stay live after cancelAll for everyone and a step past every goodTilTime. */
  finish(ending: Scenario['ending']): void {
    const h = this.h;
    const cancelAll = () => {
      for (const a of ACCOUNTS) this.apply({ type: 'cancelAll', time: h.time + 1, ...a }, false);
    };
    const expire = () => this.apply({ type: 'advanceTime', time: Math.max(this.maxGoodTilTime, h.time) + 2 * this.engine.limits.modifyBufferUs }, false);
    if (ending === 'cancelAll-then-expire') {
      cancelAll();
      expire();
    } else {
      expire();
      cancelAll();
    }
    this.rule.end?.(this.engine);
  }

  private live(acct: number): number[] {
    const a = ACCOUNTS[acct]!;
    return [...(this.liveByAccount.get(accountKey(a.address, a.accountIndex)) ?? [])];
  }

  /**
   * An orderId for a cancel or modify: mostly one of the account's live orders, else one it
   * saw before (likely ended), anyone's, or one not issued yet (a modify of it waits).
   */
  private pickOrderId(acct: number, pick: number): number {
    const a = ACCOUNTS[acct]!;
    const sel = pick % 10;
    const n = pick >>> 4;
    if (sel === 9) return this.maxOrderId + 1 + (n % 2);
    if (sel === 8 && this.allIds.length > 0) return this.allIds[n % this.allIds.length]!;
    if (sel < 6) {
      const live = this.live(acct);
      if (live.length > 0) return live[n % live.length]!;
    }
    const own = this.idsByAccount.get(accountKey(a.address, a.accountIndex)) ?? [];
    if (own.length === 0) return this.maxOrderId + 1;
    return own[own.length - 1 - (n % Math.min(own.length, 6))]!;
  }

  /** The live order of an account named by orderId or clientId, by its last update. */
  private liveTarget(acct: number, orderId: number | undefined, clientId: string | undefined): OrderEvent | undefined {
    for (const id of this.live(acct)) {
      const e = this.lastOrder.get(id)!;
      if (orderId !== undefined ? id === orderId : e.clientId === clientId) return e;
    }
    return undefined;
  }

  /** The market of a cancel or modify: mostly the target's own when it is live. */
  private marketFor(op: { market: number; pick: number }, target: OrderEvent | undefined): number {
    if ((op.pick >>> 12) % 5 === 0) return op.market;
    return target?.marketId ?? op.market;
  }

  private build(op: Exclude<Op, { k: 'advance' }>, time: number): Command {
    switch (op.k) {
      case 'place': {
        const a = ACCOUNTS[op.acct]!;
        return {
          type: 'placeOrder',
          time,
          ...a,
          marketId: op.market,
          side: op.side,
          orderType: op.orderType,
          tif: op.tif,
          price: op.price,
          size: op.size,
          reduceOnly: op.reduceOnly,
          clientId: op.cid < 0 ? undefined : CLIENT_IDS[op.cid],
          goodTilTime: op.gtt < 0 ? time + MONTH_US - 1 : time + MONTH_US + op.gtt * 1_000_000,
        };
      }
      case 'cancel': {
        const a = ACCOUNTS[op.acct]!;
        const orderId = op.byClient ? undefined : this.pickOrderId(op.acct, op.pick);
        const clientId = op.byClient ? CLIENT_IDS[op.pick % CLIENT_IDS.length] : undefined;
        const marketId = this.marketFor(op, this.liveTarget(op.acct, orderId, clientId));
        return { type: 'cancelOrder', time, ...a, marketId, orderId, clientId };
      }
      case 'modify': {
        const a = ACCOUNTS[op.acct]!;
        const orderId = op.byClient ? undefined : this.pickOrderId(op.acct, op.pick);
        const clientId = op.byClient ? CLIENT_IDS[op.pick % CLIENT_IDS.length] : undefined;
        const target = this.liveTarget(op.acct, orderId, clientId);
        const facts = target ?? (orderId === undefined ? undefined : this.lastOrder.get(orderId));
        let goodTilTime: number | undefined;
        if (op.gtt === 'same') goodTilTime = facts?.goodTilTime;
        else if (op.gtt === 'new') goodTilTime = time + MONTH_US + op.gttSeconds * 1_000_000 + 17;
        else if (op.gtt === 'bad') goodTilTime = time + MONTH_US - 1;
        const marketId = this.marketFor(op, target);
        const rel = op.mode === 'rel' && facts !== undefined;
        const price = rel ? facts.price + op.dPrice : op.price;
        const size = rel ? Math.max(0, facts.size + op.dSize) : op.size;
        const command: ModifyOrderCommand = { type: 'modifyOrder', time, ...a, marketId, orderId, clientId, price, size, goodTilTime };
        if (op.immutable !== 'omit' && facts !== undefined) {
          command.side = op.immutable === 'flip' ? ((1 - facts.side) as SideCode) : facts.side;
          command.tif = facts.tif;
          command.reduceOnly = facts.reduceOnly;
        }
        return command;
      }
      case 'cancelAll':
        return { type: 'cancelAll', time, ...ACCOUNTS[op.acct]!, marketId: op.market ?? undefined };
      case 'prices':
        return { type: 'setOraclePrice', time, marketId: op.market, price: op.mark };
      case 'schedule':
        return { type: 'scheduleCancel', time, ...ACCOUNTS[op.acct]!, marketId: op.market ?? undefined, deadline: op.ahead === null ? null : time + op.ahead };
    }
  }
}

function runScenario(scenario: Scenario, rule: Rule): void {
  const runner = new Runner(rule, scenario.cap);
  for (const op of scenario.ops) runner.run(op);
  runner.finish(scenario.ending);
}

function holds(makeRule: () => Rule, numRuns = NUM_RUNS): void {
  fc.assert(
    fc.property(scenarioArb, (scenario) => {
      runScenario(scenario, makeRule());
    }),
    { numRuns },
  );
}

// ---------------------------------------------------------------------------------------------
// Helpers over the engine's book.

function sidesOf(engine: Engine): { marketId: number; side: BookSide }[] {
  const out: { marketId: number; side: BookSide }[] = [];
  for (const [marketId, ms] of engine.markets) out.push({ marketId, side: ms.book.bids }, { marketId, side: ms.book.asks });
  return out;
}

/** A side's level records by handle, worst to best (book.ts's typed arrays read back). */
function levelsOf(side: BookSide): { handle: number; key: number; price: number; size: number; count: number; head: Order | null; tail: Order | null }[] {
  const out = [];
  for (let i = 0; i < side.length; i++) {
    const handle = side.sorted[i]!;
    out.push({ handle, key: side.keys[i]!, price: side.price[handle]!, size: side.size[handle]!, count: side.count[handle]!, head: side.head[handle] as Order | null, tail: side.tail[handle] as Order | null });
  }
  return out;
}

function isResting(status: OrderStatus): boolean {
  return status === 'OPEN' || status === 'PARTIALLY_FILLED';
}

function describeStep(step: Step): string {
  return step.command === null ? 'setup' : JSON.stringify(step.command);
}

// ---------------------------------------------------------------------------------------------
// Rules

describe('rule: "the book is never crossed"', () => {
  it('the book is never crossed: after every command best bid < best ask in every market', () => {
    holds(() => ({
      step(step, engine) {
        for (const [marketId, ms] of engine.markets) {
          const bid = bestLevel(ms.book.bids);
          const ask = bestLevel(ms.book.asks);
          if (bid !== undefined && ask !== undefined) {
            check(bid.price < ask.price, () => `market ${marketId} crossed after ${describeStep(step)}: bid ${bid.price} >= ask ${ask.price}`);
          }
        }
      },
    }));
  });
});

describe('rule: "level sizes equal the sum of their orders"', () => {
  it('level sizes equal the sum of their orders: size = Σ remaining, count = #orders, every resting order is live', () => {
    holds(() => ({
      step(step, engine) {
        const where = () => `after ${describeStep(step)}`;
        let resting = 0;
        for (const { marketId, side } of sidesOf(engine)) {
          check(side.byPrice.size === side.length, () => `market ${marketId} side ${side.side}: price index has ${side.byPrice.size} levels, array ${side.length}, ${where()}`);
          check(side.freeCount + side.length === side.price.length, () => `market ${marketId} side ${side.side}: ${side.freeCount} free + ${side.length} live handles, capacity ${side.price.length}, ${where()}`);
          let previousKey = -Infinity;
          for (const level of levelsOf(side)) {
            const tag = () => `market ${marketId} side ${side.side} level ${level.price} ${where()}`;
            check(level.key === (side.side === 0 ? level.price : -level.price), () => `${tag()}: bad key`);
            check(level.key > previousKey, () => `${tag()}: levels not sorted worst to best`);
            previousKey = level.key;
            check(priceGet(side.byPrice, level.price) === level.handle, () => `${tag()}: not in the price index`);
            check(!side.free.subarray(0, side.freeCount).includes(level.handle), () => `${tag()}: its handle is also free`);
            let sum = 0;
            let count = 0;
            let previous = null;
            for (let o = level.head; o !== null; o = o.next) {
              check(o.prev === previous, () => `${tag()}: broken prev link at order ${o.id}`);
              check(o.level === level.handle && o.price === level.price && o.side === side.side && o.marketId === marketId, () => `${tag()}: order ${o.id} does not belong here`);
              check(Number.isSafeInteger(o.remaining) && o.remaining > 0, () => `${tag()}: order ${o.id} rests with remaining ${o.remaining}`);
              check(engine.orders.get(o.id) === o, () => `${tag()}: resting order ${o.id} is not in engine.orders`);
              check(isResting(o.status), () => `${tag()}: resting order ${o.id} has status ${o.status}`);
              sum += o.remaining;
              count++;
              previous = o;
              check(count <= 1_000_000, () => `${tag()}: cycle in the level list`);
            }
            check(level.tail === previous, () => `${tag()}: tail is not the last order`);
            check(count > 0, () => `${tag()}: empty level left in the book`);
            check(level.size === sum, () => `${tag()}: size ${level.size} but orders sum to ${sum}`);
            check(level.count === count, () => `${tag()}: count ${level.count} but ${count} orders linked`);
            resting += count;
          }
        }
        // No triggers exist yet, so every live order rests: with every resting order found in
        // engine.orders by its id, equal counts mean there is no live order off the book.
        check(engine.orders.size === resting, () => `engine.orders has ${engine.orders.size} live orders, the books hold ${resting}, ${where()}`);
      },
    }));
  });
});

describe('rule: "FIFO within a level"', () => {
  it('FIFO within a level: orders are in the order they (last) entered the level, as told by the event stream', () => {
    holds(() => {
      /** Per order, from its updates: does it rest, where, how much, and when it last (re)entered its level. */
      const seen = new Map<number, { resting: boolean; price: number; remaining: number; entry: number }>();
      return {
        step(step, engine) {
          for (const e of step.events) {
            if (e.type !== 'order') continue;
            const previous = seen.get(e.orderId);
            const resting = isResting(e.status);
            let entry = 0;
            if (resting) {
              // Keeps its place only when it rested before at the same price and did not grow.
              const keeps = previous !== undefined && previous.resting && previous.price === e.price && e.remaining <= previous.remaining;
              entry = keeps ? previous.entry : e.globalSeq;
            }
            seen.set(e.orderId, { resting, price: e.price, remaining: e.remaining, entry });
          }
          let linked = 0;
          for (const { marketId, side } of sidesOf(engine)) {
            for (const level of levelsOf(side)) {
              let lastEntry = 0;
              for (let o = level.head; o !== null; o = o.next) {
                const s = seen.get(o.id);
                const tag = () => `market ${marketId} side ${side.side} level ${level.price}, order ${o.id}, after ${describeStep(step)}`;
                check(s !== undefined && s.resting, () => `${tag()}: rests but its last update says ${JSON.stringify(s)}`);
                check(s.price === o.price && s.remaining === o.remaining, () => `${tag()}: book has ${o.price}/${o.remaining}, last update ${s.price}/${s.remaining}`);
                check(s.entry > lastEntry, () => `${tag()}: entered at globalSeq ${s.entry} but sits behind an order that entered at ${lastEntry}`);
                lastEntry = s.entry;
                linked++;
              }
            }
          }
          let restingByEvents = 0;
          for (const s of seen.values()) if (s.resting) restingByEvents++;
          check(restingByEvents === linked, () => `${restingByEvents} orders rest according to the events, ${linked} in the books, after ${describeStep(step)}`);
        },
      };
    });
  });
});

describe('rule: "sequences are contiguous"', () => {
  it('sequences are contiguous: globalSeq 1..n, accountSeq 1..n per account, book marketSeq +1 per market; fills/trades/bbo share their book event\'s marketSeq', () => {
    holds(() => {
      let nextGlobal = 1;
      const accountSeq = new Map<string, number>();
      const marketSeq = new Map<number, number>();
      return {
        step(step) {
          const events = step.events;
          const tag = (e: EngineEvent) => `${e.type} event ${JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? String(v) : v))} of ${describeStep(step)}`;
          for (const e of events) {
            check(e.globalSeq === nextGlobal, () => `${tag(e)}: globalSeq ${e.globalSeq}, expected ${nextGlobal}`);
            nextGlobal++;
            if ('accountSeq' in e) {
              const key = accountKey(e.address, e.accountIndex);
              const expected = (accountSeq.get(key) ?? 0) + 1;
              check(e.accountSeq === expected, () => `${tag(e)}: accountSeq ${e.accountSeq}, expected ${expected}`);
              accountSeq.set(key, expected);
            }
            if (e.type === 'book') {
              const expected = (marketSeq.get(e.marketId) ?? 0) + 1;
              check(e.marketSeq === expected, () => `${tag(e)}: marketSeq ${e.marketSeq}, expected ${expected}`);
              marketSeq.set(e.marketId, expected);
            }
          }
          // Walk backwards: a fill or trades event belongs to the next book event of its market
          // within the same command; a bbo event directly follows the book event it belongs to.
          const nextBook = new Map<number, number>();
          for (let i = events.length - 1; i >= 0; i--) {
            const e = events[i]!;
            if (e.type === 'book') nextBook.set(e.marketId, e.marketSeq);
            else if (e.type === 'fill' || e.type === 'trades') {
              const seq = nextBook.get(e.marketId);
              check(seq === e.marketSeq, () => `${tag(e)}: marketSeq ${e.marketSeq}, but the command's book event for market ${e.marketId} has ${seq}`);
            } else if (e.type === 'bbo') {
              const before = events[i - 1];
              check(
                before !== undefined && before.type === 'book' && before.marketId === e.marketId && before.marketSeq === e.marketSeq,
                () => `${tag(e)}: does not directly follow its market's book event with the same marketSeq`,
              );
            }
          }
        },
      };
    });
  });
});

describe('rule: "every order ends in exactly one terminal state"', () => {
  it('every order ends in exactly one terminal state: no update after FILLED/CANCELED/REJECTED except a cancel-replace; every move is in ORDER_TRANSITIONS; nothing outlives its goodTilTime', () => {
    holds(() => {
      const last = new Map<number, OrderEvent>();
      const resting = new Set<number>();
      return {
        step(step, engine) {
          /** Orders canceled by a cancel-replace in this command, whose replacement must follow. */
          const replacing = new Set<number>();
          for (const e of step.events) {
            if (e.type !== 'order') continue;
            const previous = last.get(e.orderId);
            const from = previous === undefined ? null : previous.status;
            const tag = () => `order ${e.orderId} ${from} -> ${e.status} (${e.rejectionReason ?? e.cancelReason ?? ''}) in ${describeStep(step)}`;
            check(isTransitionAllowed(from, e.status), () => `${tag()}: not an allowed transition`);
            if (previous !== undefined && TERMINAL_ORDER_STATUSES.has(previous.status)) {
              check(replacing.has(e.orderId), () => `${tag()}: update after the terminal ${previous.status}${previous.cancelReason === 'MODIFY_CANCELED' ? ' (cancel-replace of an earlier command)' : ''}`);
            }
            replacing.delete(e.orderId);
            if (e.cancelReason === 'MODIFY_CANCELED') {
              check(e.status === 'CANCELED', () => `${tag()}: MODIFY_CANCELED on a ${e.status} update`);
              replacing.add(e.orderId);
            }
            last.set(e.orderId, e);
            if (isResting(e.status)) resting.add(e.orderId);
            else resting.delete(e.orderId);
          }
          check(replacing.size === 0, () => `orders ${[...replacing].join(', ')} were cancel-replaced without a replacement update in ${describeStep(step)}`);
          // A GTT order ends at its goodTilTime, at the first command whose time reaches it.
          for (const id of resting) {
            const e = last.get(id)!;
            check(e.goodTilTime > engine.time, () => `order ${id} still ${e.status} at time ${engine.time}, past its goodTilTime ${e.goodTilTime}, after ${describeStep(step)}`);
          }
        },
        end(engine) {
          check(engine.orders.size === 0, () => `${engine.orders.size} orders still live after cancelAll for every account`);
          check(last.size === engine.nextOrderId - 1, () => `${engine.nextOrderId - 1} orderIds issued but ${last.size} orders had updates`);
          for (const [id, e] of last) {
            check(TERMINAL_ORDER_STATUSES.has(e.status) && e.cancelReason !== 'MODIFY_CANCELED', () => `order ${id} ended with ${e.status} ${e.cancelReason ?? ''}`);
          }
        },
      };
    });
  });
});

describe('rule: "book deltas reproduce the book"', () => {
  it('book deltas reproduce the book: absolute level sizes (0 removes) rebuild every market exactly; bbo follows its changes', () => {
    holds(() => {
      const local = new Map<number, [Map<number, number>, Map<number, number>]>();
      const published = new Map<number, [number, number, number, number]>();
      for (const id of MARKET_IDS) {
        local.set(id, [new Map(), new Map()]);
        published.set(id, [0, 0, 0, 0]);
      }
      const topOf = (marketId: number): [number, number, number, number] => {
        const [bids, asks] = local.get(marketId)!;
        let bid = 0;
        let ask = 0;
        for (const price of bids.keys()) if (price > bid) bid = price;
        for (const price of asks.keys()) if (ask === 0 || price < ask) ask = price;
        return [bid, bid === 0 ? 0 : bids.get(bid)!, ask, ask === 0 ? 0 : asks.get(ask)!];
      };
      return {
        step(step, engine) {
          const events = step.events;
          for (let i = 0; i < events.length; i++) {
            const e = events[i]!;
            const tag = () => `event ${e.globalSeq} of ${describeStep(step)}`;
            if (e.type === 'bbo') {
              const before = events[i - 1];
              check(before !== undefined && before.type === 'book' && before.marketId === e.marketId, () => `${tag()}: bbo without a book event before it`);
              continue;
            }
            if (e.type !== 'book') continue;
            const sides = local.get(e.marketId);
            check(sides !== undefined, () => `${tag()}: book event for unknown market ${e.marketId}`);
            for (const [s, pairs] of [e.bids, e.asks].entries()) {
              check(pairs.length % 2 === 0, () => `${tag()}: odd pair list`);
              const levels = sides[s]!;
              const prices = new Set<number>();
              for (let j = 0; j < pairs.length; j += 2) {
                const price = pairs[j]!;
                const size = pairs[j + 1]!;
                check(!prices.has(price), () => `${tag()}: price ${price} twice in one delta`);
                prices.add(price);
                check(Number.isSafeInteger(price) && price > 0 && Number.isSafeInteger(size) && size >= 0, () => `${tag()}: bad pair ${price}/${size}`);
                if (size === 0) levels.delete(price);
                else levels.set(price, size);
              }
            }
            const top = topOf(e.marketId);
            const was = published.get(e.marketId)!;
            const changed = top.some((v, k) => v !== was[k]);
            const next = events[i + 1];
            const bbo = next !== undefined && next.type === 'bbo' && next.marketId === e.marketId ? next : undefined;
            if (changed) {
              check(bbo !== undefined, () => `${tag()}: top of book moved from ${was} to ${top} without a bbo event`);
              const got = [bbo.bidPrice, bbo.bidSize, bbo.askPrice, bbo.askSize];
              check(got.every((v, k) => v === top[k]), () => `${tag()}: bbo ${got} but the deltas give ${top}`);
              published.set(e.marketId, top);
            } else {
              check(bbo === undefined, () => `${tag()}: bbo event although the top did not change`);
            }
          }
          for (const [marketId, ms] of engine.markets) {
            const sides = local.get(marketId)!;
            for (const [s, side] of [ms.book.bids, ms.book.asks].entries()) {
              const mine = sides[s]!;
              const tag = () => `market ${marketId} side ${s} after ${describeStep(step)}`;
              check(mine.size === side.length, () => `${tag()}: deltas give ${mine.size} levels, book has ${side.length}`);
              for (const level of levelsOf(side)) {
                check(mine.get(level.price) === level.size, () => `${tag()}: level ${level.price} is ${level.size} in the book, ${mine.get(level.price)} from the deltas`);
              }
            }
          }
        },
      };
    });
  });
});

describe('rule: "fills conserve size"', () => {
  it('fills conserve size: maker size = taker size on opposite sides per trade; Σ fills = filled; filled + remaining = size', () => {
    holds(() => {
      const filled = new Map<number, number>();
      const filledValue = new Map<number, number>();
      const price = new Map<number, number>();
      let lastTradeId = 0;
      return {
        step(step) {
          const fills = new Map<number, FillEvent[]>();
          const entries = new Map<number, { entry: TradeEntry; takerOrderId: number; takerSide: SideCode; marketId: number }>();
          /** Taker fills waiting for their order's next update, and the limit that update shows. */
          const awaitingLimit = new Map<number, number[]>();
          const takerLimit = new Map<number, number>();
          const events = step.events;
          for (const e of events) {
            const tag = () => `event ${e.globalSeq} (${e.type}) of ${describeStep(step)}`;
            if (e.type === 'fill') {
              check(Number.isSafeInteger(e.size) && e.size > 0, () => `${tag()}: fill size ${e.size}`);
              const total = (filled.get(e.orderId) ?? 0) + e.size;
              filled.set(e.orderId, total);
              filledValue.set(e.orderId, (filledValue.get(e.orderId) ?? 0) + e.price * e.size);
              check(e.remaining >= 0 && e.orderSize - e.remaining === total, () => `${tag()}: orderSize ${e.orderSize} - remaining ${e.remaining} but Σ fills ${total}`);
              if (e.role === 'MAKER') check(e.price === price.get(e.orderId), () => `${tag()}: maker filled at ${e.price}, it rests at ${price.get(e.orderId)}`);
              else awaitingLimit.set(e.orderId, [...(awaitingLimit.get(e.orderId) ?? []), e.tradeId]);
              let list = fills.get(e.tradeId);
              if (list === undefined) fills.set(e.tradeId, (list = []));
              list.push(e);
            } else if (e.type === 'order') {
              check(e.size > 0 && e.remaining >= 0 && e.filled >= 0, () => `${tag()}: size ${e.size} remaining ${e.remaining} filled ${e.filled}`);
              check(e.filled + e.remaining === e.size, () => `${tag()}: order ${e.orderId} filled ${e.filled} + remaining ${e.remaining} != size ${e.size}`);
              check(e.filled === (filled.get(e.orderId) ?? 0), () => `${tag()}: order ${e.orderId} filled ${e.filled} but its fills sum to ${filled.get(e.orderId) ?? 0}`);
              // Number(): filledValue has been a bigint and a number; the values here are far below 2^53.
              check(Number(e.filledValue) === (filledValue.get(e.orderId) ?? 0), () => `${tag()}: order ${e.orderId} filledValue ${e.filledValue} but its fills give ${filledValue.get(e.orderId) ?? 0}`);
              price.set(e.orderId, e.price);
              for (const tradeId of awaitingLimit.get(e.orderId) ?? []) takerLimit.set(tradeId, e.price);
              awaitingLimit.delete(e.orderId);
            } else if (e.type === 'trades') {
              check(e.entries.length > 0, () => `${tag()}: empty trades event`);
              for (const entry of e.entries) {
                check(!entries.has(entry.tradeId), () => `${tag()}: tradeId ${entry.tradeId} published twice`);
                entries.set(entry.tradeId, { entry, takerOrderId: e.takerOrderId, takerSide: e.takerSide, marketId: e.marketId });
              }
            }
          }
          const tradeIds = [...fills.keys()].sort((a, b) => a - b);
          for (const tradeId of tradeIds) {
            const pair = fills.get(tradeId)!;
            const tag = () => `trade ${tradeId} of ${describeStep(step)}`;
            check(tradeId === lastTradeId + 1, () => `${tag()}: tradeIds jump from ${lastTradeId}`);
            lastTradeId = tradeId;
            check(pair.length === 2, () => `${tag()}: ${pair.length} fills`);
            const maker = pair.find((f) => f.role === 'MAKER');
            const taker = pair.find((f) => f.role === 'TAKER');
            check(maker !== undefined && taker !== undefined, () => `${tag()}: not one maker and one taker fill`);
            check(maker.size === taker.size && maker.price === taker.price, () => `${tag()}: maker ${maker.size}@${maker.price}, taker ${taker.size}@${taker.price}`);
            check(maker.side !== taker.side && maker.marketId === taker.marketId, () => `${tag()}: sides ${maker.side}/${taker.side}, markets ${maker.marketId}/${taker.marketId}`);
            check(accountKey(maker.address, maker.accountIndex) !== accountKey(taker.address, taker.accountIndex), () => `${tag()}: self-trade`);
            const published = entries.get(tradeId);
            check(published !== undefined, () => `${tag()}: fills without a public trade`);
            const { entry } = published;
            check(
              entry.price === maker.price && entry.size === maker.size && entry.makerOrderId === maker.orderId && published.takerOrderId === taker.orderId &&
                published.takerSide === taker.side && published.marketId === maker.marketId && entry.makerAddress === maker.address &&
                entry.makerAccountIndex === maker.accountIndex && entry.takerAddress === taker.address && entry.takerAccountIndex === taker.accountIndex,
              () => `${tag()}: public trade ${JSON.stringify(published)} disagrees with the fills`,
            );
            // The taker's limit: its first update after the fill carries the price it traded with
            // (a buffered modify may replace it later in the same command).
            const limit = takerLimit.get(tradeId);
            check(limit !== undefined && (taker.side === 0 ? taker.price <= limit : taker.price >= limit), () => `${tag()}: taker ${taker.side === 0 ? 'buy' : 'sell'} limit ${limit} traded at ${taker.price}`);
          }
          check(entries.size === fills.size, () => `public trades ${[...entries.keys()]} but fills for ${tradeIds} in ${describeStep(step)}`);
        },
      };
    });
  });
});

describe('rule: "a command\'s result agrees with its events"', () => {
  it('a command\'s result agrees with its events: invalid emits nothing; order/rejected/cancelAll results match the updates', () => {
    holds(() => ({
      step(step) {
        const { command, result, events } = step;
        if (command === null || result === null) return;
        const tag = () => `${JSON.stringify(result)} of ${describeStep(step)}`;
        // Timers run before the command; a settled command cannot fire any.
        if (result.kind === 'invalid' && step.settled) check(events.length === 0, () => `${tag()}: emitted ${events.length} events`);
        if (result.kind === 'order') {
          let last: OrderEvent | undefined;
          for (const e of events) if (e.type === 'order' && e.orderId === result.orderId) last = e;
          check(last !== undefined && last.status === result.status && last.rejectionReason === result.rejectionReason, () => `${tag()}: last update ${JSON.stringify(last?.status)} ${last?.rejectionReason ?? ''}`);
        }
        if (result.kind === 'rejected') {
          check(
            events.some((e) => e.type === 'rejected' && e.command === command.type && e.rejectionReason === result.rejectionReason),
            () => `${tag()}: no matching rejected event`,
          );
        }
        if (command.type === 'cancelAll' && result.kind === 'cancelAll' && step.settled) {
          const canceled = events.filter((e) => e.type === 'order' && e.status === 'CANCELED' && e.address === command.address && e.accountIndex === command.accountIndex).length;
          check(canceled === result.canceled, () => `${tag()}: ${canceled} CANCELED updates`);
        }
      },
    }));
  });
});

// ---------------------------------------------------------------------------------------------
// Engine bugs found by the properties above, kept as minimal reproductions.

describe('regressions found by these properties', () => {
  it('FOK fills completely or not at all, also against several reduce-only makers of one account', () => {
    const h = harness();
    // BOB goes long 1.000 (1000 quantums).
    h.place({ address: ALICE, side: 1, price: 1000, size: 1000 });
    h.place({ address: BOB, side: 0, price: 1000, size: 1000 });
    // Two reduce-only sells of 1.000 each: together they can close the position only once.
    h.place({ address: BOB, side: 1, price: 1000, size: 1000, reduceOnly: true });
    h.place({ address: BOB, side: 1, price: 1000, size: 1000, reduceOnly: true });
    h.take();
    // A FOK buy of 2.000: only 1.000 can fill, so it must be REJECTED FOK_FAILED with no fill.
    // The pre-check (fillableQty) counts each reduce-only maker's full allowance, so the order
    // passes, fills 1.000 and its remainder is CANCELED: a partially filled FOK.
    const id = idOf(h.place({ address: CAROL, side: 0, price: 1000, size: 2000, tif: 1 }));
    const mine = orderUpdates(h.take()).filter((u) => u.orderId === id);
    expect(mine).toEqual([{ orderId: id, status: 'REJECTED', reason: 'FOK_FAILED', remaining: 2000, filled: 0, price: 1000 }]);
  });

  it('a buffered modify always gets an outcome (here: its target arrives but the modify is below min notional)', () => {
    const h = harness();
    // Target not live yet: the modify (0.010 at 100.0 = 1 USD, below the 5 USD minimum) waits.
    const answer = h.modify({ clientId: 'x', price: 1000, size: 10 });
    h.place({ side: 0, price: 1000, size: 100, clientId: 'x' });
    h.advance(5_000_000);
    // applyBufferedModify -> applyModify returns an `invalid` result that nobody receives: no
    // rejected event, no MODIFY_CANCELED, the order stays as placed, although the client was
    // told { kind: 'buffered' }.
    const outcomes = h.events.filter(
      (e) => (e.type === 'rejected' && e.command === 'modifyOrder') || (e.type === 'order' && e.cancelReason === 'MODIFY_CANCELED'),
    );
    // Fixed by refusing it up front (the notional check runs before buffering), so no later outcome.
    expect(answer).toMatchObject({ kind: 'invalid', error: 'order notional below minimum', field: 'quantity' });
    expect(outcomes).toEqual([]);
  });
});
