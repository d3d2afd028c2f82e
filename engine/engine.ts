/**
 * The engine: one deterministic state machine, commands in, events out.
 *
 * Pipeline of an order (exchange-core's stages): validate (errors, no state change) →
 * admit (engine rejections: client ids, open-order cap, risk pre-trade in risk.ts) → match
 * (book and matching only) → settle each fill (risk.ts) → rest or finish. Accounts whose margin
 * picture changed are re-checked once at the end of the command (liquidation.ts), never in the
 * middle of a match. Public event shapes are built only in emit.ts.
 *
 * Time: `apply` first moves the engine clock to the command's time (never backwards) and runs
 * what came due — hourly funding and interest, GTT expiries, dead man's switches, buffered
 * modifies — then the command.
 *
 * Determinism: no clock, no randomness, iteration only over insertion-ordered collections or
 * sorted lists; the same command stream yields the same event stream.
 */
import { activeMarkets, createAccountIndex, findAccount, type Account } from './account.ts';
import { NO_LEVEL } from './book.ts';
import { emitMarket, emitFundingRate, emitPrices, emitRejected, emitSwitch, flush } from './emit.ts';
import { clearRecords, createEventRecords, pushObject, type EventRecords } from './event-records.ts';
import { compactExpiry, createExpiry, dueOrders, hasDue } from './expiry.ts';
import { checkFeeTiers } from './fees.ts';
import { sampleFunding } from './funding.ts';
import { checkLiquidations, forceLiquidate, liquidate } from './liquidation.ts';
import { cancelLive, finish, matchHooks, unrest } from './lifecycle.ts';
import { clearlyAbove, crossRisk, crossRiskF } from './margin.ts';
import { compileMarket, type MarketSpec } from './market.ts';
import type { MatchHooks } from './matching.ts';
import { createModifyBuffer, expiredModifies, forgetCancels, nextBufferDeadline } from './modify-buffer.ts';
import { isLive, spareOrder, type Order } from './order.ts';
import { createOrderTable, getOrder } from './order-table.ts';
import { isOutsideRth, updateMark } from './prices.ts';
import { createSettled, refreshAfterFills } from './risk.ts';
import { plainRecord } from './plain-record.ts';
import { createSwitches, takeDue } from './schedule-cancel.ts';
import { createSequences } from './sequence.ts';
import { settleDue, startSettlementClock } from './settlement.ts';
import { createMarketState, DEFAULT_LIMITS, DEFAULT_RISK, invalid, type CommandScratch, type Engine, type EngineWiring, type MarketScratch, type MarketState } from './state.ts';
import type { Command, CommandResult, DoneResult, EngineConfig, EngineEvent, EventSink, InvalidResult, OrderResult, ResultOf, SetOraclePriceCommand } from './types.ts';
import { cancelAll, cancelOrder, cancelScope, scheduleCancel } from './commands/cancel.ts';
import { modifyOrder } from './commands/modify.ts';
import { batchPlace, placeOrder, triggerTpsl } from './commands/place.ts';
import { adjustIsolatedMargin, creditCommission, deposit, setLeverage, transfer, withdraw } from './commands/risk.ts';
import { validAccountRef } from './commands/validate.ts';

export { DEFAULT_LIMITS, DEFAULT_RISK, type Engine, type MarketState } from './state.ts';

export function createEngine(config: EngineConfig, sink: EventSink = ignoreEvents): Engine {
  const risk = { ...DEFAULT_RISK, ...config.risk };
  checkFeeTiers(risk.feeTiers);
  const engine = buildEngine({
    markets: new Map(),
    bySlot: [],
    accounts: createAccountIndex(),
    orders: createOrderTable(),
    limits: { ...DEFAULT_LIMITS, ...config.limits },
    risk,
    time: 0,
    seq: createSequences(),
    nextOrderId: 1,
    nextTradeId: 1,
    nextOperationId: 1,
    expiry: createExpiry(),
    switches: createSwitches(),
    modifies: createModifyBuffer(),
    insuranceFund: risk.insuranceFund,
    feesCollected: 0n,
    lendingVault: 0n,
    deposited: 0n,
    withdrawn: 0n,
    nonces: new Set(),
    nextSettlementAt: 0,
    markEpoch: 0,
    wiring: undefined as unknown as EngineWiring,
    scratch: new Scratch(),
  });
  engine.wiring = new Wiring(engine, sink);
  for (const def of config.markets) createMarketState(engine, compileMarket(def));
  return engine;
}

function ignoreEvents(): void {}

/*
 * The engine's root is built by a builder (plain-record.ts), its wiring and command scratch by
 * classes, rather than object literals, and what the wiring calls is shared code: an engine is
 * built once per backtest, and a literal that runs once per backtest has V8 widen its fields'
 * types the second time it runs (its boilerplate is built then), discarding the code the first
 * backtest optimized. Per-engine closures as call targets (the order lookup, the match hooks,
 * the record sink) made a second engine's first commands deoptimize their callers ("wrong call
 * target"). Wiring and scratch are not state (images leave them out), so they may be classes.
 */
const buildEngine = plainRecord<Engine>();

class Wiring implements EngineWiring {
  sink: EventSink;
  hooks: MatchHooks;
  readonly lookup: (id: number) => Order | undefined;
  onFee: EngineWiring['onFee'] = undefined;
  records: EventRecords | undefined = undefined;
  onRecords: EngineWiring['onRecords'] = undefined;

  constructor(engine: Engine, sink: EventSink) {
    this.sink = sink;
    // The hooks serve this engine (a class: its methods are one function for every engine).
    this.hooks = matchHooks(engine);
    // For callers outside the engine: the timers read the order table directly.
    const orders = engine.orders;
    this.lookup = (id) => getOrder(orders, id);
  }
}

class Scratch implements CommandScratch {
  markets: MarketScratch[] = [];
  touchedMarkets: MarketState[] = [];
  touchedCount = 0;
  taker: Order | null = null;
  takerMarket: MarketState | null = null;
  liquidating: CommandScratch['liquidating'] = undefined;
  riskQueue: (Account | null)[] = [];
  riskQueueCount = 0;
  ended: (Order | null)[] = [];
  endedCount = 0;
  feesPending = 0;
  reuseResults = false;
  orderResult: OrderResult = { kind: 'order', orderId: 0, status: 'PENDING', rejectionReason: undefined };
  batchDepth = 0;
  makerSettled = createSettled();
  takerSettled = createSettled();
}

/**
 * Record mode: from now on the engine writes its events to a reusable buffer of numeric records
 * (event-records.ts) instead of building objects, and hands the buffer to `consumer` at the end
 * of every command, emptying it afterwards (read it within the call; `eventAt` makes the event
 * object of a record, equal to what the object sink would have had). The object sink is no
 * longer called. For consumers that need few event objects or none (the engine benchmark).
 */
export function useEventRecords(engine: Engine, consumer: (records: EventRecords) => void): void {
  const wiring = engine.wiring;
  wiring.records = createEventRecords();
  wiring.onRecords = consumer;
  // The events without a record layout of their own ride in the buffer as objects, in order.
  wiring.sink = recordSink;
}

/**
 * The record mode's sink: one function for every engine, called as `engine.wiring.sink(event)`,
 * so `this` is the wiring whose buffer it writes to.
 */
function recordSink(this: EngineWiring, event: EngineEvent): void {
  pushObject(this.records!, event);
}

/**
 * Result-reuse mode, for in-process callers that read each result before the next command (the
 * engine benchmark; a gateway keeps the default): from now on placeOrder, cancelOrder and
 * modifyOrder answer an accepted order with the engine's one `OrderResult` record, rewritten by
 * the next command, instead of a new object per command. Refusals and batch elements stay new
 * objects. Callers may also reuse their command objects in any mode: the engine keeps none
 * past `apply` (a buffered modify keeps a copy).
 */
export function reuseResults(engine: Engine): void {
  engine.scratch.reuseResults = true;
}

/** Applies one command; its events go to the sink before this returns. The result's type is the command's own. */
export function apply<C extends Command>(engine: Engine, command: C): ResultOf<C>;
export function apply(engine: Engine, command: Command): CommandResult {
  const result = applyCommand(engine, command);
  // Here rather than in applyCommand: its early returns may follow fills the timers made.
  const scratch = engine.scratch;
  if (scratch.feesPending !== 0) {
    engine.feesCollected += BigInt(scratch.feesPending);
    scratch.feesPending = 0;
  }
  const records = engine.wiring.records;
  if (records !== undefined && records.count > 0) {
    engine.wiring.onRecords!(records);
    clearRecords(records);
  }
  return result;
}

function applyCommand(engine: Engine, command: Command): CommandResult {
  const time = command.time > engine.time ? command.time : engine.time;
  engine.time = time;
  runTimers(engine);
  let result: CommandResult;
  switch (command.type) {
    case 'placeOrder':
      result = placeOrder(engine, command);
      break;
    case 'batchPlace':
      result = batchPlace(engine, command);
      break;
    case 'cancelOrder':
      result = cancelOrder(engine, command);
      break;
    case 'modifyOrder':
      result = modifyOrder(engine, command);
      break;
    case 'cancelAll':
      result = cancelAll(engine, command);
      break;
    case 'scheduleCancel':
      result = scheduleCancel(engine, command);
      break;
    case 'setOraclePrice':
      result = setOraclePrice(engine, command);
      break;
    case 'deposit':
      result = validAccountRef(command.address, command.accountIndex) ? deposit(engine, command) : invalidAccount();
      break;
    case 'withdraw':
      result = validAccountRef(command.address, command.accountIndex) ? withdraw(engine, command) : invalidAccount();
      break;
    case 'transfer':
      result = typeof command.address === 'string' ? transfer(engine, command) : invalid('InvalidRequest', 'invalid address', 'address');
      break;
    case 'setLeverage':
      result = validAccountRef(command.address, command.accountIndex) ? setLeverage(engine, command) : invalidAccount();
      break;
    case 'adjustIsolatedMargin':
      result = validAccountRef(command.address, command.accountIndex) ? adjustIsolatedMargin(engine, command) : invalidAccount();
      break;
    case 'creditCommission':
      result = validAccountRef(command.address, command.accountIndex) ? creditCommission(engine, command) : invalidAccount();
      break;
    case 'addMarket': {
      if (engine.markets.has(command.market.id)) return invalid('InvalidRequest', 'market id already exists', 'marketId');
      let spec: MarketSpec;
      try {
        spec = compileMarket(command.market);
      } catch (err) {
        return invalid('InvalidRequest', (err as Error).message);
      }
      emitMarket(engine, createMarketState(engine, spec));
      result = { kind: 'done' };
      break;
    }
    case 'setMarketStatus': {
      const ms = engine.markets.get(command.marketId);
      if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
      if (command.status !== 'ONLINE' && command.status !== 'OFFLINE') return invalid('InvalidRequest', 'invalid market status', 'status');
      ms.spec.status = command.status;
      emitMarket(engine, ms);
      result = { kind: 'done' };
      break;
    }
    case 'advanceTime':
      result = { kind: 'done' };
      break;
    case 'setHalt': {
      const ms = engine.markets.get(command.marketId);
      if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
      ms.halted = command.halted === true;
      result = { kind: 'done' };
      break;
    }
    case 'setFundingRate': {
      const ms = engine.markets.get(command.marketId);
      if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
      if (typeof command.rate !== 'bigint' || command.rate > engine.risk.fundingCapE12 || command.rate < -engine.risk.fundingCapE12) {
        return invalid('InvalidRequest', 'rate must be within the funding cap', 'rate');
      }
      ms.funding.rate = command.rate;
      ms.funding.fixed = true;
      emitFundingRate(engine, ms, 'predictedFunding', command.rate);
      result = { kind: 'done' };
      break;
    }
    case 'forceLiquidation': {
      if (!validAccountRef(command.address, command.accountIndex)) return invalid('InvalidRequest', 'invalid account', 'accountIndex');
      const account = findAccount(engine.accounts, command.address, command.accountIndex);
      if (account === undefined || !activeMarkets(account).some((am) => am.size !== 0)) return invalid('InvalidRequest', 'the account has no position to liquidate', 'address');
      forceLiquidate(engine, account);
      result = { kind: 'done' };
      break;
    }
    default: {
      const unknown: never = command;
      return invalid('InvalidRequest', `unknown command ${(unknown as { type: string }).type}`);
    }
  }
  const scratch = engine.scratch;
  if (scratch.riskQueueCount > 0) processRiskQueue(engine);
  flush(engine);
  if (scratch.endedCount > 0) spareEnded(engine);
  return result;
}

/** Hands the orders that ended in this command back for reuse, now that nothing reads them. */
function spareEnded(engine: Engine): void {
  const scratch = engine.scratch;
  const ended = scratch.ended;
  for (let i = 0; i < scratch.endedCount; i++) {
    const order = ended[i]!;
    ended[i] = null;
    // A cancel-replace ends the order and then runs it again: only what is still ended goes.
    if (order.level === NO_LEVEL && !isLive(order) && getOrder(engine.orders, order.id) !== order) spareOrder(order);
  }
  scratch.endedCount = 0;
}

/**
 * The answer to an account command whose (address, accountIndex) is malformed. The account
 * commands are dispatched inline rather than through a closure per case: a closure in
 * `applyCommand` made V8 allocate a context for `engine` and `command` on every command.
 */
function invalidAccount(): InvalidResult {
  return invalid('InvalidRequest', 'invalid account', 'accountIndex');
}

/**
 * Runs what came due at the engine's time. It reads the time from the engine rather than taking
 * it as an argument: a time in microseconds is no small integer, and passing it to a call V8
 * does not inline boxes it (a heap number per command).
 */
function runTimers(engine: Engine): void {
  const time = engine.time;
  if (engine.nextSettlementAt <= time) {
    if (engine.nextSettlementAt === 0) startSettlementClock(engine, time);
    else settleDue(engine, time);
  }
  if (hasDue(engine.expiry, time)) {
    for (const order of dueOrders(engine.expiry, time, engine.orders)) {
      unrest(engine, engine.bySlot[order.slot]!, order);
      finish(engine, order, order.status === 'UNTRIGGERED' ? 'TPSL_CANCELED' : 'REJECTED', 'EXPIRED');
    }
  }
  compactExpiry(engine.expiry, engine.orders);
  if (engine.switches.next <= time) {
    for (const { sw, fires } of takeDue(engine.switches, time)) {
      emitSwitch(engine, sw.account, sw.marketId, fires ? 'fired' : 'capped', sw.deadline);
      if (fires) cancelScope(engine, sw.account, sw.marketId);
    }
  }
  if (nextBufferDeadline(engine.modifies) <= time) {
    for (const pending of expiredModifies(engine.modifies, time)) {
      const c = pending.command;
      emitRejected(engine, pending.account, 'modifyOrder', c.marketId, c.orderId, c.clientId, 'ORDER_NOT_FOUND_FOR_MODIFY');
    }
    forgetCancels(engine.modifies, time);
  }
  if (engine.scratch.riskQueueCount > 0) processRiskQueue(engine);
  if (engine.scratch.touchedCount > 0) flush(engine);
}

function setOraclePrice(engine: Engine, c: SetOraclePriceCommand): InvalidResult | DoneResult {
  const ms = engine.markets.get(c.marketId);
  if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
  if (!Number.isSafeInteger(c.price) || c.price < 0) return invalid('InvalidRequest', 'price must be a non-negative number of ticks', 'price');
  updateMark(ms, c.price, engine.time, engine.risk.markBasisTauUs);
  ms.outsideRth = isOutsideRth(ms.spec.def.regularTradingHours, engine.time);
  ms.markEpoch++;
  engine.markEpoch++;
  emitPrices(engine, ms);
  if (sampleFunding(ms.funding, engine.time, ms.markPrice, ms.oraclePrice, fundingParams(engine))) {
    emitFundingRate(engine, ms, 'predictedFunding', ms.funding.rate);
  }
  if (ms.markPrice > 0) {
    triggerTpsl(engine, ms);
    if (engine.scratch.riskQueueCount > 0) processRiskQueue(engine);
    checkLiquidations(engine, ms);
  }
  return { kind: 'done' };
}

function fundingParams(engine: Engine): { interestE12: bigint; clampE12: bigint; capE12: bigint } {
  return { interestE12: engine.risk.fundingInterestE12, clampE12: engine.risk.fundingClampE12, capE12: engine.risk.fundingCapE12 };
}

/**
 * Re-checks the accounts a command touched: liquidates those below maintenance, and cancels
 * (MARGIN_CANCELED) resting orders that no longer fit initial margin, newest first.
 */
function processRiskQueue(engine: Engine): void {
  const scratch = engine.scratch;
  const queue = scratch.riskQueue;
  // A liquidation may queue more accounts: the count is read on every round.
  for (let i = 0; i < scratch.riskQueueCount; i++) {
    const account = queue[i]!;
    queue[i] = null;
    account.riskQueued = false;
    if (refreshAfterFills(engine, account)) liquidate(engine, account);
    else marginCancel(engine, account);
  }
  scratch.riskQueueCount = 0;
}

function marginCancel(engine: Engine, account: Account): void {
  if (account.liveCount === 0) return;
  const fast = crossRiskF(account, engine.bySlot, engine.markEpoch);
  if (clearlyAbove(fast.equity, fast.initial)) return;
  let risk = crossRisk(account, engine.bySlot);
  if (risk.initial <= risk.equity) return;
  const orders: Order[] = [];
  for (let o = account.tail; o !== null; o = o.aPrev) if (!o.reduceOnly) orders.push(o);
  for (const order of orders) {
    if (risk.initial <= risk.equity) break;
    cancelLive(engine, engine.bySlot[order.slot]!, order, 'MARGIN_CANCELED');
    risk = crossRisk(account, engine.bySlot);
  }
}
