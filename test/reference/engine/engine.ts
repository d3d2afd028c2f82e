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
import { createAccountIndex, findAccount, linkOrder, unlinkOrder, type Account } from './account.ts';
import { crosses, insertOrder, reduceOrder, removeOrder } from './book.ts';
import { emitMarket, emitOrder, emitFill, emitPosition, emitPrices, emitFundingRate, emitRejected, emitSwitch, emitTrades, flush, markDirty, rejectCommand, touch } from './emit.ts';
import { addExpiry, compactExpiry, createExpiry, dueOrders, hasDue } from './expiry.ts';
import { checkFeeTiers } from './fees.ts';
import { sampleFunding } from './funding.ts';
import { checkLiquidations, forceLiquidate, liquidate } from './liquidation.ts';
import { addTrigger, compactTriggers, crossedTriggers } from './liquidation-index.ts';
import { checkGrouping, checkTpsl, firesBelow, isTpsl } from './tpsl.ts';
import { clearlyAbove, crossRisk, crossRiskF } from './margin.ts';
import { compileMarket, meetsMinNotional, onTierTick, type MarketSpec } from './market.ts';
import { fillableQty, matchTaker, MATCH_SELF_TRADE } from './matching.ts';
import {
  bufferModify,
  cancelPending,
  createModifyBuffer,
  expiredModifies,
  forgetCancels,
  nextBufferDeadline,
  rememberCancel,
  takePending,
  targetKey,
} from './modify-buffer.ts';
import { isLive, newOrder, spareOrder, type Order } from './order.ts';
import { createOrderTable, deleteOrder, getOrder, putOrder } from './order-table.ts';
import { isOutsideRth, updateMark } from './prices.ts';
import {
  addExposure,
  adjustIsolatedMargin,
  creditCommission,
  queueRisk,
  deposit,
  marginAllows,
  preTrade,
  reduceAllowance,
  refreshAfterFills,
  setLeverage,
  settleFill,
  createSettled,
  transfer,
  withdraw,
} from './risk.ts';
import { arm, createSwitches, disarm, takeDue } from './schedule-cancel.ts';
import { createSequences } from './sequence.ts';
import { settleDue, startSettlementClock } from './settlement.ts';
import { LIMITS } from './spec.ts';
import type { OrderStatus, RejectionReason } from './spec.ts';
import { createMarketState, DEFAULT_LIMITS, DEFAULT_RISK, getAccount, invalid, type Engine, type MarketState } from './state.ts';
import {
  TIF_ALO,
  TIF_FOK,
  TIF_GTT,
  TIF_IOC,
  type CancelAllCommand,
  type CancelOrderCommand,
  type Command,
  type CommandResult,
  type EngineConfig,
  type EventSink,
  type InvalidResult,
  type ModifyOrderCommand,
  type OrderResult,
  type PlaceOrderCommand,
  type RejectedResult,
  type ScheduleCancelCommand,
  type SetOraclePriceCommand,
  type SideCode,
} from './types.ts';

export { DEFAULT_LIMITS, DEFAULT_RISK, type Engine, type MarketState } from './state.ts';

export function createEngine(config: EngineConfig, sink: EventSink = () => {}): Engine {
  const risk = { ...DEFAULT_RISK, ...config.risk };
  checkFeeTiers(risk.feeTiers);
  const engine: Engine = {
    markets: new Map(),
    bySlot: [],
    accounts: createAccountIndex(),
    orders: createOrderTable(),
    limits: { ...DEFAULT_LIMITS, ...config.limits },
    risk,
    sink,
    time: 0,
    seq: createSequences(),
    nextOrderId: 1,
    nextTradeId: 1,
    nextOperationId: 1,
    expiry: createExpiry(),
    switches: createSwitches(),
    modifies: createModifyBuffer(),
    touchedMarkets: [],
    touchedCount: 0,
    taker: null,
    takerMarket: null,
    liquidating: undefined,
    hooks: undefined as unknown as Engine['hooks'],
    lookup: undefined as unknown as Engine['lookup'],
    insuranceFund: risk.insuranceFund,
    feesCollected: 0n,
    lendingVault: 0n,
    deposited: 0n,
    withdrawn: 0n,
    nonces: new Set(),
    nextSettlementAt: 0,
    markEpoch: 0,
    onFee: undefined,
    riskQueue: [],
    ended: [],
    endedCount: 0,
  };
  engine.lookup = (id) => getOrder(engine.orders, id);
  engine.hooks = {
    onFill: (maker, price, qty) => onFill(engine, maker, price, qty),
    makerAllowance: reduceAllowance,
    dropMaker: (maker) => {
      const ms = engine.takerMarket!;
      unrest(engine, ms, maker);
      finish(engine, maker, 'CANCELED', 'REDUCE_ONLY_WOULD_INCREASE');
    },
  };
  for (const def of config.markets) createMarketState(engine, compileMarket(def));
  return engine;
}

/** Applies one command; its events go to the sink before this returns. */
export function apply(engine: Engine, command: Command): CommandResult {
  const time = command.time > engine.time ? command.time : engine.time;
  engine.time = time;
  runTimers(engine, time);
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
      result = forAccount(command, () => deposit(engine, command));
      break;
    case 'withdraw':
      result = forAccount(command, () => withdraw(engine, command));
      break;
    case 'transfer':
      result = typeof command.address === 'string' ? transfer(engine, command) : invalid('InvalidRequest', 'invalid address', 'address');
      break;
    case 'setLeverage':
      result = forAccount(command, () => setLeverage(engine, command));
      break;
    case 'adjustIsolatedMargin':
      result = forAccount(command, () => adjustIsolatedMargin(engine, command));
      break;
    case 'creditCommission':
      result = forAccount(command, () => creditCommission(engine, command));
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
      if (account === undefined || !account.active.some((am) => am.size !== 0)) return invalid('InvalidRequest', 'the account has no position to liquidate', 'address');
      forceLiquidate(engine, account);
      result = { kind: 'done' };
      break;
    }
    default: {
      const unknown: never = command;
      return invalid('InvalidRequest', `unknown command ${(unknown as { type: string }).type}`);
    }
  }
  if (engine.riskQueue.length > 0) processRiskQueue(engine);
  flush(engine);
  if (engine.endedCount > 0) spareEnded(engine);
  return result;
}

/** Hands the orders that ended in this command back for reuse, now that nothing reads them. */
function spareEnded(engine: Engine): void {
  const ended = engine.ended;
  for (let i = 0; i < engine.endedCount; i++) {
    const order = ended[i]!;
    ended[i] = null;
    // A cancel-replace ends the order and then runs it again: only what is still ended goes.
    if (order.level === null && !isLive(order) && getOrder(engine.orders, order.id) !== order) spareOrder(order);
  }
  engine.endedCount = 0;
}

/** Runs an account command once its (address, accountIndex) is well formed. */
function forAccount(command: { address: unknown; accountIndex: unknown }, run: () => CommandResult): CommandResult {
  return validAccountRef(command.address, command.accountIndex) ? run() : invalid('InvalidRequest', 'invalid account', 'accountIndex');
}

// ---------------------------------------------------------------------------------------------
// Timers

function runTimers(engine: Engine, time: number): void {
  if (engine.nextSettlementAt <= time) {
    if (engine.nextSettlementAt === 0) startSettlementClock(engine, time);
    else settleDue(engine, time);
  }
  if (hasDue(engine.expiry, time)) {
    for (const order of dueOrders(engine.expiry, time, engine.lookup)) {
      unrest(engine, engine.bySlot[order.slot]!, order);
      finish(engine, order, order.status === 'UNTRIGGERED' ? 'TPSL_CANCELED' : 'REJECTED', 'EXPIRED');
    }
  }
  compactExpiry(engine.expiry, engine.orders.size, engine.lookup);
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
  if (engine.riskQueue.length > 0) processRiskQueue(engine);
  if (engine.touchedCount > 0) flush(engine);
}

// ---------------------------------------------------------------------------------------------
// Prices

function setOraclePrice(engine: Engine, c: SetOraclePriceCommand): CommandResult {
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
    if (engine.riskQueue.length > 0) processRiskQueue(engine);
    checkLiquidations(engine, ms);
  }
  return { kind: 'done' };
}

// ---------------------------------------------------------------------------------------------
// TPSL (tpsl.ts)

function waitForTrigger(engine: Engine, ms: MarketState, order: Order): void {
  order.status = 'UNTRIGGERED';
  order.updatedAt = engine.time;
  makeLive(engine, ms, order);
  addTrigger(ms.tpslTriggers, firesBelow(order.side, order.tpslType!), order.triggerPrice!, order.id, 0);
  emitOrder(engine, order, 'TPSL_PLACED');
  if (order.parentOrderId !== undefined) {
    const parent = getOrder(engine.orders, order.parentOrderId);
    if (parent !== undefined) parent.hasChildren = true;
  }
}

/** Fires the untriggered orders the new mark has reached, in trigger order. */
function triggerTpsl(engine: Engine, ms: MarketState): void {
  const isCurrent = (id: number): boolean => getOrder(engine.orders, id)?.status === 'UNTRIGGERED';
  const ids = crossedTriggers(ms.tpslTriggers, ms.markPrice, isCurrent);
  for (const id of ids) {
    const order = getOrder(engine.orders, id);
    if (order === undefined || order.status !== 'UNTRIGGERED') continue;
    releaseLive(engine, order);
    order.status = 'TPSL_TRIGGERED';
    order.updatedAt = engine.time;
    if (order.isPositionTpsl) {
      // A position TPSL closes whatever position there is when it fires.
      const position = order.account.markets[ms.slot]?.size ?? 0;
      order.size = order.remaining = Math.abs(position);
    }
    emitOrder(engine, order);
    if (order.remaining === 0) {
      finish(engine, order, 'CANCELED', 'REDUCE_ONLY_WOULD_INCREASE');
      continue;
    }
    execute(engine, ms, order);
  }
  compactTriggers(ms.tpslTriggers, engine.orders.size, (id) => isCurrent(id));
}

// ---------------------------------------------------------------------------------------------
// batchPlaceOrders

function batchPlace(engine: Engine, c: import('./types.ts').BatchPlaceCommand): CommandResult {
  if (!Array.isArray(c.orders) || c.orders.length < LIMITS.batchMin || c.orders.length > LIMITS.batchMax) {
    return invalid('InvalidRequest', 'a batch has 1 to 100 elements', 'orders');
  }
  if (c.grouping !== undefined && c.grouping !== 'entryTpsl' && c.grouping !== 'partialTpsl' && c.grouping !== 'positionTpsl') {
    return invalid('InvalidRequest', 'grouping must be entryTpsl, partialTpsl or positionTpsl', 'grouping');
  }
  const shape = checkGrouping(c.grouping, c.orders);
  if (shape !== undefined) return shape;
  const results: CommandResult[] = [];
  let parent: CommandResult | undefined;
  for (let i = 0; i < c.orders.length; i++) {
    const element = c.orders[i]!;
    const command: PlaceOrderCommand = { ...element, type: 'placeOrder', time: engine.time };
    if (c.grouping === 'positionTpsl') command.isPositionTpsl = true;
    if (c.grouping === 'entryTpsl' && i > 0) {
      if (parent === undefined || parent.kind !== 'order' || parent.status === 'REJECTED') {
        results.push(invalid('InvalidRequest', 'the entry order of this entryTpsl group was not accepted', 'orders'));
        continue;
      }
      command.parentOrderId = parent.orderId;
    }
    const result = placeOrder(engine, command);
    if (i === 0) parent = result;
    results.push(result);
  }
  return { kind: 'batch', results };
}

function fundingParams(engine: Engine): { interestE12: bigint; clampE12: bigint; capE12: bigint } {
  return { interestE12: engine.risk.fundingInterestE12, clampE12: engine.risk.fundingClampE12, capE12: engine.risk.fundingCapE12 };
}

// ---------------------------------------------------------------------------------------------
// Risk follow-up: accounts whose margin changed during the command


/**
 * Re-checks the accounts a command touched: liquidates those below maintenance, and cancels
 * (MARGIN_CANCELED) resting orders that no longer fit initial margin, newest first.
 */
function processRiskQueue(engine: Engine): void {
  const queue = engine.riskQueue;
  for (let i = 0; i < queue.length; i++) {
    const account = queue[i]!;
    account.riskQueued = false;
    if (refreshAfterFills(engine, account)) liquidate(engine, account);
    else marginCancel(engine, account);
  }
  queue.length = 0;
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

// ---------------------------------------------------------------------------------------------
// Orders the engine places itself (liquidation.ts)

export function newInternalOrder(engine: Engine, account: Account, ms: MarketState, side: SideCode, price: number, size: number, origin: 'LIQUIDATION' | 'ADL'): Order {
  const order = newOrder(engine.nextOrderId++, account, ms.spec.id, ms.slot, side, 0, TIF_IOC, true, undefined, price, size, engine.time, engine.time);
  order.origin = origin;
  return order;
}

/** Runs a liquidation order through the book; it ends LIQUIDATED whatever it filled. */
export function runLiquidationOrder(engine: Engine, ms: MarketState, order: Order): void {
  if (crosses(ms.book, order.side, order.price)) {
    touch(engine, ms);
    engine.taker = order;
    engine.takerMarket = ms;
    matchTaker(ms.book, order, order.remaining, engine.hooks);
    engine.taker = null;
  }
  finish(engine, order, 'LIQUIDATED', undefined);
}

// ---------------------------------------------------------------------------------------------
// Validation

const CLIENT_ID = /^[A-Za-z0-9_-]{1,36}$/;

function onlineMarket(engine: Engine, marketId: number): MarketState | InvalidResult {
  const ms = engine.markets.get(marketId);
  if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
  if (ms.spec.status !== 'ONLINE') return invalid('Unavailable', 'market is not online', 'marketId');
  return ms;
}

/** Checks a limit price: positive integer ticks on its tier's tick. */
function checkPrice(ms: MarketState, price: number): InvalidResult | undefined {
  if (!Number.isSafeInteger(price) || price <= 0) return invalid('InvalidRequest', 'price must be positive', 'price');
  if (!onTierTick(ms.spec, price)) return invalid('Tick', 'price is not a multiple of the tick size for its price tier', 'price');
  return undefined;
}

function checkGoodTilTime(engine: Engine, goodTilTime: number): InvalidResult | undefined {
  if (!Number.isSafeInteger(goodTilTime) || goodTilTime < engine.time + LIMITS.minGoodTilTimeAheadUs) {
    return invalid('InvalidRequest', 'goodTilTime must be at least one month in the future', 'goodTilTime');
  }
  return undefined;
}

function validatePlace(engine: Engine, ms: MarketState, c: PlaceOrderCommand): InvalidResult | undefined {
  if (c.side !== 0 && c.side !== 1) return invalid('InvalidRequest', 'invalid side', 'orderSide');
  if (c.tif !== TIF_GTT && c.tif !== TIF_FOK && c.tif !== TIF_IOC && c.tif !== TIF_ALO) return invalid('InvalidRequest', 'invalid timeInForce', 'timeInForce');
  if (c.orderType !== 0 && c.orderType !== 1) return invalid('InvalidRequest', 'invalid orderType', 'orderType');
  const priceError = checkPrice(ms, c.price);
  if (priceError !== undefined) return priceError;
  const spec = ms.spec;
  const tpsl = isTpsl(c);
  if (tpsl) {
    const tpslError = checkTpsl(spec, ms.oraclePrice, c);
    if (tpslError !== undefined) return tpslError;
  } else if (!Number.isSafeInteger(c.size) || c.size <= 0) {
    return invalid('InvalidRequest', 'quantity must be positive', 'quantity');
  }
  if (c.size > spec.maxSize) return invalid('InvalidRequest', 'quantity above maximum order size', 'quantity');
  if (!c.reduceOnly && c.size < spec.minSize) return invalid('InvalidRequest', 'quantity below minimum order size', 'quantity');
  if (c.orderType === 1 && !tpsl) {
    if (c.tif !== TIF_IOC) return invalid('InvalidRequest', 'MARKET orders must use IOC', 'timeInForce');
    const mark = ms.markPrice;
    if (mark <= 0) return invalid('OracleDeviation', 'mark price unavailable for market order', 'price');
    // |price - mark| <= 10 % of mark, in integers: |price - mark| * 1e6 <= mark * 1e5.
    const deviation = c.price > mark ? c.price - mark : mark - c.price;
    if (deviation * 1_000_000 > mark * LIMITS.marketOrderBandPpm) {
      return invalid('OracleDeviation', 'market order price must be within 10% of mark price', 'price');
    }
  }
  const gttError = checkGoodTilTime(engine, c.goodTilTime);
  if (gttError !== undefined) return gttError;
  if (c.clientId !== undefined && (typeof c.clientId !== 'string' || !CLIENT_ID.test(c.clientId))) {
    return invalid('InvalidRequest', 'clientId must be 1-36 characters of A-Z a-z 0-9 _ -', 'clientId');
  }
  if (c.reduceOnly !== true && c.reduceOnly !== false) return invalid('InvalidRequest', 'reduceOnly must be a boolean', 'reduceOnly');
  if (!c.reduceOnly && !meetsMinNotional(spec, c.price, c.size)) return invalid('InvalidRequest', 'order notional below minimum', 'quantity');
  return undefined;
}

function validAccountRef(address: unknown, accountIndex: unknown): boolean {
  return typeof address === 'string' && Number.isInteger(accountIndex) && (accountIndex as number) >= 0 && (accountIndex as number) <= LIMITS.subaccountMax;
}


// ---------------------------------------------------------------------------------------------
// placeOrder

function placeOrder(engine: Engine, c: PlaceOrderCommand): CommandResult {
  if (!validAccountRef(c.address, c.accountIndex)) return invalid('InvalidRequest', 'invalid account', 'accountIndex');
  const ms = onlineMarket(engine, c.marketId);
  if ('kind' in ms) return ms;
  const error = validatePlace(engine, ms, c);
  if (error !== undefined) return error;
  const account = getAccount(engine, c.address, c.accountIndex);
  const order = newOrder(engine.nextOrderId++, account, c.marketId, ms.slot, c.side, c.orderType, c.tif, c.reduceOnly, c.clientId, c.price, c.size, c.goodTilTime, engine.time);
  order.tpslType = c.tpslType;
  order.triggerPrice = c.stopPrice;
  order.isPositionTpsl = c.isPositionTpsl === true;
  order.parentOrderId = c.parentOrderId;

  const reason = admit(engine, ms, order);
  if (reason !== undefined) {
    finish(engine, order, 'REJECTED', reason);
    return orderResult(order);
  }
  if (order.tpslType !== undefined) {
    waitForTrigger(engine, ms, order);
    if (engine.modifies.pending.size > 0) applyBufferedModify(engine, ms, order);
    return orderResult(order);
  }
  execute(engine, ms, order);
  if (engine.modifies.pending.size > 0) applyBufferedModify(engine, ms, order);
  return orderResult(order);
}

function orderResult(order: Order): OrderResult {
  return { kind: 'order', orderId: order.id, status: order.status, rejectionReason: order.rejectionReason };
}

/** Engine rejections decided before the order meets the book. */
function admit(engine: Engine, ms: MarketState, order: Order): RejectionReason | undefined {
  const account = order.account;

  if (order.clientId !== undefined) {
    if (account.clientIds.has(order.clientId)) return 'DUPLICATE_CLIENT_ID';
    if (account.clientIds.size >= LIMITS.liveClientIdsPerAccount) return 'TOO_MANY_CLIENT_IDS';
  }
  if ((order.tif === TIF_GTT || order.tif === TIF_ALO) && (account.markets[ms.slot]?.openOrders ?? 0) >= engine.limits.openOrdersPerMarket) {
    return 'OPEN_ORDER_CAP_EXCEEDED';
  }
  if (order.tpslType !== undefined) {
    // A TPSL order may be placed before the position it protects exists (entryTpsl): whether
    // it reduces anything is decided when it fires.
    if (order.isPositionTpsl && order.parentOrderId !== undefined) return 'ENTRY_TPSL_CANNOT_BE_POSITION_TPSL';
    if (order.isPositionTpsl) {
      for (let o = account.head; o !== null; o = o.aNext) {
        if (o.isPositionTpsl && o.marketId === order.marketId && o.tpslType === order.tpslType && o.status === 'UNTRIGGERED') return 'POSITION_TPSL_ALREADY_EXISTS';
      }
    }
    return undefined;
  }
  return preTrade(engine, account, ms, order.side, order.price, order.remaining, order.reduceOnly);
}

/**
 * Takes liquidity, then rests or finishes the order. Shared by placement, crossing modifies and
 * cancel-replace; the order is not live when this starts.
 */
function execute(engine: Engine, ms: MarketState, order: Order): void {
  const book = ms.book;
  if (order.tif === TIF_ALO) {
    if (crosses(book, order.side, order.price)) return finish(engine, order, 'REJECTED', 'POST_ONLY_WOULD_CROSS');
    return rest(engine, ms, order);
  }
  if (ms.halted && order.origin === undefined && crosses(book, order.side, order.price)) {
    return finish(engine, order, 'REJECTED', 'ORDER_WILL_TAKE_LIQUIDITY_DURING_MARKET_HALT');
  }
  let maxQty = order.remaining;
  if (order.reduceOnly) {
    const allowance = reduceAllowance(order);
    if (allowance <= 0) return finish(engine, order, order.filled > 0 ? 'CANCELED' : 'REJECTED', 'REDUCE_ONLY_WOULD_INCREASE');
    if (allowance < maxQty) maxQty = allowance;
  }
  if (order.tif === TIF_FOK && (maxQty < order.remaining || fillableQty(book, order, order.remaining, engine.hooks) < order.remaining)) {
    return finish(engine, order, 'REJECTED', 'FOK_FAILED');
  }
  let stop: number = 0;
  if (crosses(book, order.side, order.price)) {
    touch(engine, ms);
    engine.taker = order;
    engine.takerMarket = ms;
    stop = matchTaker(book, order, maxQty, engine.hooks);
    engine.taker = null;
  }
  if (stop === MATCH_SELF_TRADE) return finish(engine, order, order.filled > 0 ? 'CANCELED' : 'REJECTED', 'SELF_TRADE');
  if (order.remaining === 0) return finish(engine, order, 'FILLED', undefined);
  if (order.tif !== TIF_GTT) {
    return order.filled > 0 ? finish(engine, order, 'CANCELED', undefined) : finish(engine, order, 'REJECTED', 'IOC_CANCELED');
  }
  if (order.reduceOnly && reduceAllowance(order) <= 0) return finish(engine, order, 'CANCELED', 'REDUCE_ONLY_WOULD_INCREASE');
  rest(engine, ms, order);
}

function rest(engine: Engine, ms: MarketState, order: Order): void {
  order.status = order.filled > 0 ? 'PARTIALLY_FILLED' : 'OPEN';
  order.updatedAt = engine.time;
  makeLive(engine, ms, order);
  touch(engine, ms);
  insertOrder(ms.book, order);
  markDirty(ms, order.side, order.price);
  emitOrder(engine, order);
}

/** Ends an order that is not (or no longer) on the book, with its final event. */
function finish(engine: Engine, order: Order, status: OrderStatus, reason: RejectionReason | undefined): void {
  if (getOrder(engine.orders, order.id) === order) releaseLive(engine, order);
  order.status = status;
  order.rejectionReason = reason;
  order.updatedAt = engine.time;
  emitOrder(engine, order);
  engine.ended[engine.endedCount++] = order;
  // An entry that ended without any fill takes its entryTpsl legs with it.
  if (order.hasChildren && order.filled === 0 && order.cancelReason === undefined && status !== 'PARTIALLY_FILLED' && status !== 'OPEN') {
    order.hasChildren = false;
    const legs: Order[] = [];
    for (let o = order.account.head; o !== null; o = o.aNext) if (o.parentOrderId === order.id) legs.push(o);
    for (const leg of legs) cancelLive(engine, engine.bySlot[leg.slot]!, leg);
  }
}

function makeLive(engine: Engine, ms: MarketState, order: Order): void {
  const account = order.account;
  putOrder(engine.orders, order);
  linkOrder(account, order);
  if (order.clientId !== undefined) account.clientIds.set(order.clientId, order);
  // Untriggered TPSL orders are reduce-only and off the book: they count as open orders only.
  addExposure(engine, account, ms, order.side, exposureOf(order, order.remaining), 1);
  addExpiry(engine.expiry, order);
}

/**
 * How much of `qty` counts towards initial margin: none for reduce-only orders (they can only
 * shrink the position) and for untriggered TPSL, all of it otherwise.
 */
function exposureOf(order: Order, qty: number): number {
  return order.reduceOnly || order.status === 'UNTRIGGERED' ? 0 : qty;
}

function releaseLive(engine: Engine, order: Order): void {
  const account = order.account;
  deleteOrder(engine.orders, order.id);
  unlinkOrder(account, order);
  if (order.clientId !== undefined && account.clientIds.get(order.clientId) === order) account.clientIds.delete(order.clientId);
  addExposure(engine, account, engine.bySlot[order.slot]!, order.side, -exposureOf(order, order.remaining), -1);
}

/** Takes a resting order off the book (it stays live until released). */
function unrest(engine: Engine, ms: MarketState, order: Order): void {
  if (order.level === null) return;
  touch(engine, ms);
  markDirty(ms, order.side, order.price);
  removeOrder(ms.book, order);
}

/** Both sides' settlement of the fill in progress; read before the next fill overwrites them. */
const MAKER_SETTLED = createSettled();
const TAKER_SETTLED = createSettled();

function onFill(engine: Engine, maker: Order, price: number, qty: number): void {
  const taker = engine.taker!;
  const ms = engine.takerMarket!;
  touch(engine, ms);
  markDirty(ms, maker.side, price);
  const value = price * qty;
  taker.remaining -= qty;
  taker.filled += qty;
  taker.filledValue += value;
  maker.filled += qty;
  maker.filledValue += value;
  // The maker's resting exposure shrinks with its fill (matching already reduced `remaining`).
  addExposure(engine, maker.account, ms, maker.side, -exposureOf(maker, qty), 0);
  const makerSettled = MAKER_SETTLED;
  const takerSettled = TAKER_SETTLED;
  settleFill(engine, maker.account, ms, maker.side, qty, price, 'MAKER', makerSettled);
  settleFill(engine, taker.account, ms, taker.side, qty, price, 'TAKER', takerSettled);
  queueRisk(engine, maker.account);
  queueRisk(engine, taker.account);
  const tradeId = engine.nextTradeId++;
  emitFill(engine, ms, maker, tradeId, price, qty, 'MAKER', makerSettled.fee, makerSettled.closedPnl, makerSettled.effect);
  emitFill(engine, ms, taker, tradeId, price, qty, 'TAKER', takerSettled.fee, takerSettled.closedPnl, takerSettled.effect);
  const takerAm = taker.account.markets[ms.slot]!;
  const makerAm = maker.account.markets[ms.slot]!;
  emitPosition(engine, maker.account, makerAm);
  emitPosition(engine, taker.account, takerAm);
  if (ms.tradesTaker !== taker) {
    if (ms.trades.length > 0) emitTrades(engine, ms);
    ms.tradesTaker = taker;
  }
  ms.trades.push({
    tradeId,
    price,
    size: qty,
    makerOrderId: maker.id,
    makerAddress: maker.account.address,
    makerAccountIndex: maker.account.index,
    takerAddress: taker.account.address,
    takerAccountIndex: taker.account.index,
  });
  if (maker.remaining === 0) {
    finish(engine, maker, 'FILLED', undefined);
  } else {
    maker.status = 'PARTIALLY_FILLED';
    maker.updatedAt = engine.time;
    emitOrder(engine, maker);
    // A reduce-only maker whose position is gone can never fill again.
    if (maker.reduceOnly && reduceAllowance(maker) <= 0) {
      unrest(engine, ms, maker);
      finish(engine, maker, 'CANCELED', 'REDUCE_ONLY_WOULD_INCREASE');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// cancelOrder, cancelAll

function findTarget(engine: Engine, account: Account, marketId: number, orderId: number | undefined, clientId: string | undefined): Order | undefined {
  const order = orderId !== undefined ? getOrder(engine.orders, orderId) : clientId !== undefined ? account.clientIds.get(clientId) : undefined;
  if (order === undefined || order.account !== account || order.marketId !== marketId) return undefined;
  return order;
}

function checkTargetRef(orderId: unknown, clientId: unknown): InvalidResult | undefined {
  if ((orderId === undefined) === (clientId === undefined)) return invalid('InvalidRequest', 'exactly one of orderId or clientId is required', 'orderId');
  if (orderId !== undefined && (!Number.isSafeInteger(orderId) || (orderId as number) <= 0)) return invalid('InvalidRequest', 'invalid orderId', 'orderId');
  if (clientId !== undefined && (typeof clientId !== 'string' || !CLIENT_ID.test(clientId))) return invalid('InvalidRequest', 'invalid clientId', 'clientId');
  return undefined;
}

function cancelOrder(engine: Engine, c: CancelOrderCommand): CommandResult {
  if (!validAccountRef(c.address, c.accountIndex)) return invalid('InvalidRequest', 'invalid account', 'accountIndex');
  const refError = checkTargetRef(c.orderId, c.clientId);
  if (refError !== undefined) return refError;
  const ms = engine.markets.get(c.marketId);
  if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
  const account = getAccount(engine, c.address, c.accountIndex);
  // Cancels dominate modifies: a modify still waiting for this target is refused, and one
  // arriving within the window is refused too (under either name of the order).
  if (engine.modifies.pending.size > 0 && takePending(engine.modifies, targetKey(account, c.orderId, c.clientId)) !== undefined) {
    emitRejected(engine, account, 'modifyOrder', c.marketId, c.orderId, c.clientId, 'MODIFY_SUPERSEDED_BY_CANCEL');
  }
  const order = findTarget(engine, account, c.marketId, c.orderId, c.clientId);
  const deadline = engine.time + engine.limits.modifyBufferUs;
  if (order === undefined) {
    rememberCancel(engine.modifies, account, c.orderId ?? -1, c.clientId, deadline);
    return rejectCommand(engine, account, 'cancelOrder', c.marketId, c.orderId, c.clientId, 'ORDER_NOT_FOUND');
  }
  rememberCancel(engine.modifies, account, order.id, order.clientId, deadline);
  cancelLive(engine, ms, order);
  return orderResult(order);
}

function cancelLive(engine: Engine, ms: MarketState, order: Order, status: 'CANCELED' | 'MARGIN_CANCELED' = 'CANCELED'): void {
  unrest(engine, ms, order);
  finish(engine, order, order.status === 'UNTRIGGERED' ? 'TPSL_CANCELED' : status, undefined);
}

function cancelAll(engine: Engine, c: CancelAllCommand): CommandResult {
  if (!validAccountRef(c.address, c.accountIndex)) return invalid('InvalidRequest', 'invalid account', 'accountIndex');
  if (c.marketId !== undefined && !engine.markets.has(c.marketId)) return invalid('InvalidRequest', 'unknown market', 'marketId');
  const account = getAccount(engine, c.address, c.accountIndex);
  return { kind: 'done', canceled: cancelScope(engine, account, c.marketId) };
}

/** Cancels every live order of an account, or of one of its markets, oldest first. */
function cancelScope(engine: Engine, account: Account, marketId: number | undefined): number {
  return cancelScopeWith(engine, account, marketId, 'CANCELED');
}

export function cancelScopeWith(engine: Engine, account: Account, marketId: number | undefined, status: 'CANCELED' | 'MARGIN_CANCELED'): number {
  const targets: Order[] = [];
  for (let o = account.head; o !== null; o = o.aNext) if (marketId === undefined || o.marketId === marketId) targets.push(o);
  targets.sort((a, b) => a.id - b.id);
  for (const order of targets) cancelLive(engine, engine.bySlot[order.slot]!, order, status);
  return targets.length;
}

// ---------------------------------------------------------------------------------------------
// modifyOrder

function modifyOrder(engine: Engine, c: ModifyOrderCommand): CommandResult {
  if (!validAccountRef(c.address, c.accountIndex)) return invalid('InvalidRequest', 'invalid account', 'accountIndex');
  const refError = checkTargetRef(c.orderId, c.clientId);
  if (refError !== undefined) return refError;
  const ms = onlineMarket(engine, c.marketId);
  if ('kind' in ms) return ms;
  const priceError = checkPrice(ms, c.price);
  if (priceError !== undefined) return priceError;
  if (!Number.isSafeInteger(c.size) || c.size < 0) return invalid('InvalidRequest', 'quantity must be a non-negative size', 'quantity');
  if (c.size > ms.spec.maxSize) return invalid('InvalidRequest', 'quantity above maximum order size', 'quantity');
  if (c.side !== undefined && c.side !== 0 && c.side !== 1) return invalid('InvalidRequest', 'invalid side', 'side');
  if (c.tif !== undefined && (!Number.isInteger(c.tif) || c.tif < 0 || c.tif > 3)) return invalid('InvalidRequest', 'invalid timeInForce', 'timeInForce');
  if (c.goodTilTime !== undefined && !Number.isSafeInteger(c.goodTilTime)) return invalid('InvalidRequest', 'invalid goodTilTime', 'goodTilTime');
  const account = getAccount(engine, c.address, c.accountIndex);
  const target = findTarget(engine, account, c.marketId, c.orderId, c.clientId);
  if (target !== undefined) return applyModify(engine, ms, target, c, false);
  // A modify that may wait is checked now, as far as it can be without its target, so that it
  // cannot turn out invalid when the target arrives.
  if (c.goodTilTime !== undefined) {
    const gttError = checkGoodTilTime(engine, c.goodTilTime);
    if (gttError !== undefined) return gttError;
  }
  if (c.reduceOnly !== true && !meetsMinNotional(ms.spec, c.price, c.size)) return invalid('InvalidRequest', 'order notional below minimum', 'quantity');
  if (cancelPending(engine.modifies, account, c.orderId, c.clientId, engine.time)) {
    return rejectCommand(engine, account, 'modifyOrder', c.marketId, c.orderId, c.clientId, 'MODIFY_SUPERSEDED_BY_CANCEL');
  }
  // An issued orderId that is not live has ended; only a target that may still arrive waits.
  if (c.orderId !== undefined && c.orderId < engine.nextOrderId) {
    return rejectCommand(engine, account, 'modifyOrder', c.marketId, c.orderId, c.clientId, 'ORDER_NOT_FOUND_FOR_MODIFY');
  }
  const replaced = bufferModify(engine.modifies, account, targetKey(account, c.orderId, c.clientId), c, engine.time + engine.limits.modifyBufferUs);
  if (replaced !== undefined) {
    const p = replaced.command;
    emitRejected(engine, account, 'modifyOrder', p.marketId, p.orderId, p.clientId, 'ORDER_NOT_FOUND_FOR_MODIFY');
  }
  return { kind: 'done', buffered: true };
}

/** A placement that a buffered modify was waiting for: cancel it and replace it. */
function applyBufferedModify(engine: Engine, ms: MarketState, order: Order): void {
  const account = order.account;
  let pending = takePending(engine.modifies, targetKey(account, order.id, undefined));
  if (pending === undefined && order.clientId !== undefined) pending = takePending(engine.modifies, targetKey(account, undefined, order.clientId));
  if (pending === undefined) return;
  const c = pending.command;
  if (order.status !== 'OPEN' && order.status !== 'PARTIALLY_FILLED') {
    emitRejected(engine, account, 'modifyOrder', c.marketId, c.orderId, c.clientId, 'ORDER_NOT_FOUND_FOR_MODIFY');
    return;
  }
  if (c.marketId !== order.marketId) {
    emitRejected(engine, account, 'modifyOrder', c.marketId, c.orderId, c.clientId, 'ORDER_NOT_FOUND_FOR_MODIFY');
    return;
  }
  const result = applyModify(engine, ms, order, c, true);
  if (result.kind === 'invalid') emitRejected(engine, account, 'modifyOrder', c.marketId, c.orderId, c.clientId, 'ORDER_NOT_FOUND_FOR_MODIFY');
}

/** A modify refused by the engine (a closure per modify cost an allocation on a hot path). */
function rejectModify(engine: Engine, target: Order, c: ModifyOrderCommand, reason: RejectionReason): RejectedResult {
  return rejectCommand(engine, target.account, 'modifyOrder', c.marketId, target.id, target.clientId, reason);
}

function applyModify(engine: Engine, ms: MarketState, target: Order, c: ModifyOrderCommand, forceReplace: boolean): CommandResult {
  const account = target.account;
  if (target.status === 'UNTRIGGERED') return rejectModify(engine, target, c, 'MODIFY_TPSL_NOT_SUPPORTED');
  if ((c.side !== undefined && c.side !== target.side) || (c.tif !== undefined && c.tif !== target.tif) || (c.reduceOnly !== undefined && c.reduceOnly !== target.reduceOnly)) {
    return rejectModify(engine, target, c, 'MODIFY_CHANGED_IMMUTABLE_FIELD');
  }
  if (c.size === 0) return rejectModify(engine, target, c, 'MODIFY_ZERO_SIZE');
  if (c.size <= target.filled) {
    cancelLive(engine, ms, target);
    return rejectModify(engine, target, c, 'MODIFY_SIZE_ALREADY_FILLED');
  }
  if (!target.reduceOnly && !meetsMinNotional(ms.spec, c.price, c.size)) return invalid('InvalidRequest', 'order notional below minimum', 'quantity');
  const newRemaining = c.size - target.filled;
  const capReason = preTrade(engine, account, ms, target.side, c.price, newRemaining, target.reduceOnly);
  if (capReason === 'POSITION_SIZE_CAP_EXCEEDED') return rejectModify(engine, target, c, capReason);
  if (!target.reduceOnly && newRemaining > target.remaining && !marginAllows(engine, account, ms, target.side, c.price, newRemaining - target.remaining)) {
    return rejectModify(engine, target, c, 'UNDERCOLLATERALIZED');
  }

  const replace = forceReplace || (c.goodTilTime !== undefined && c.goodTilTime !== target.goodTilTime);
  // Only a new goodTilTime must be a month ahead; echoing the resting order's own is no change.
  if (replace && !forceReplace) {
    const gttError = checkGoodTilTime(engine, c.goodTilTime!);
    if (gttError !== undefined) return gttError;
  }
  if (replace) {
    // Cancel-replace: the CANCELED update comes first, then the replacement's own outcome,
    // under the same orderId with increasing account sequence numbers.
    unrest(engine, ms, target);
    target.cancelReason = 'MODIFY_CANCELED';
    finish(engine, target, 'CANCELED', undefined);
    target.cancelReason = undefined;
    target.price = c.price;
    target.size = c.size;
    target.remaining = newRemaining;
    if (c.goodTilTime !== undefined) target.goodTilTime = c.goodTilTime;
    execute(engine, ms, target);
    return orderResult(target);
  }
  if (crosses(ms.book, target.side, c.price)) {
    // A crossing modify takes liquidity like a new order: fills, then rests or is refused.
    unrest(engine, ms, target);
    releaseLive(engine, target);
    target.price = c.price;
    target.size = c.size;
    target.remaining = newRemaining;
    execute(engine, ms, target);
    return orderResult(target);
  }
  touch(engine, ms);
  markDirty(ms, target.side, target.price);
  if (c.price === target.price && newRemaining <= target.remaining) {
    // Same price, smaller size: keeps its place in the queue.
    if (newRemaining < target.remaining) {
      addExposure(engine, account, ms, target.side, exposureOf(target, newRemaining - target.remaining), 0);
      reduceOrder(ms.book, target, target.remaining - newRemaining);
    }
  } else {
    // New price, or more size at the same price: goes to the back of the queue.
    removeOrder(ms.book, target);
    addExposure(engine, account, ms, target.side, exposureOf(target, newRemaining - target.remaining), 0);
    target.price = c.price;
    target.remaining = newRemaining;
    insertOrder(ms.book, target);
    markDirty(ms, target.side, target.price);
  }
  target.size = c.size;
  target.updatedAt = engine.time;
  emitOrder(engine, target);
  return orderResult(target);
}

// ---------------------------------------------------------------------------------------------
// scheduleCancel

function scheduleCancel(engine: Engine, c: ScheduleCancelCommand): CommandResult {
  if (!validAccountRef(c.address, c.accountIndex)) return invalid('InvalidRequest', 'invalid account', 'accountIndex');
  if (c.marketId !== undefined && !engine.markets.has(c.marketId)) return invalid('InvalidRequest', 'unknown market', 'marketId');
  if (c.deadline === null) {
    const account = getAccount(engine, c.address, c.accountIndex);
    if (disarm(engine.switches, account, c.marketId)) emitSwitch(engine, account, c.marketId, 'disarmed', undefined);
    return { kind: 'done', switchState: 'disarmed' };
  }
  const ahead = c.deadline - engine.time;
  if (!Number.isSafeInteger(c.deadline) || ahead < LIMITS.scheduleCancelMinAheadUs || ahead > LIMITS.scheduleCancelMaxAheadUs) {
    return invalid('InvalidRequest', 'time must be 5 seconds to 5 minutes in the future', 'time');
  }
  const account = getAccount(engine, c.address, c.accountIndex);
  const outcome = arm(engine.switches, account, c.marketId, c.deadline, engine.time);
  if (outcome === 'fireCap') return { kind: 'limited', error: 'dead man\'s switch fired 10 times today for this subaccount' };
  if (outcome === 'armedCap') return { kind: 'limited', error: 'too many armed dead man\'s switches for this wallet' };
  emitSwitch(engine, account, c.marketId, 'armed', c.deadline);
  return { kind: 'done', switchState: 'scheduled' };
}

