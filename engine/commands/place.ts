/**
 * placeOrder and batchPlaceOrders: validate (errors, no state change) → admit (engine
 * rejections: client ids, open-order cap, TPSL shape, risk pre-trade) → execute through the
 * lifecycle, or wait untriggered (TPSL) until the mark reaches the trigger (`triggerTpsl`).
 */
import { openOrdersOf, positionOf } from '../account.ts';
import { crossedTriggers, compactTriggers, addTrigger } from '../liquidation-index.ts';
import { emitOrder } from '../emit.ts';
import { execute, finish, makeLive, releaseLive } from '../lifecycle.ts';
import { meetsMinNotional } from '../market.ts';
import { newOrder, type Order } from '../order.ts';
import { getOrder } from '../order-table.ts';
import { preTrade } from '../risk.ts';
import { LIMITS } from '../spec.ts';
import type { RejectionReason } from '../spec.ts';
import { getAccount, invalid, type Engine, type MarketState } from '../state.ts';
import { checkGrouping, checkTpsl, firesBelow, isTpsl } from '../tpsl.ts';
import { TIF_ALO, TIF_FOK, TIF_GTT, TIF_IOC, type BatchPlaceCommand, type InvalidResult, type PlaceOrderCommand, type ResultOf } from '../types.ts';
import { applyBufferedModify } from './modify.ts';
import { checkGoodTilTime, checkPrice, CLIENT_ID, onlineMarket, orderResult, validAccountRef } from './validate.ts';

export function placeOrder(engine: Engine, c: PlaceOrderCommand): ResultOf<PlaceOrderCommand> {
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
    return orderResult(engine, order);
  }
  if (order.tpslType !== undefined) {
    waitForTrigger(engine, ms, order);
    if (engine.modifies.pending.size > 0) applyBufferedModify(engine, ms, order);
    return orderResult(engine, order);
  }
  execute(engine, ms, order);
  if (engine.modifies.pending.size > 0) applyBufferedModify(engine, ms, order);
  return orderResult(engine, order);
}

export function batchPlace(engine: Engine, c: BatchPlaceCommand): ResultOf<BatchPlaceCommand> {
  if (!Array.isArray(c.orders) || c.orders.length < LIMITS.batchMin || c.orders.length > LIMITS.batchMax) {
    return invalid('InvalidRequest', 'a batch has 1 to 100 elements', 'orders');
  }
  if (c.grouping !== undefined && c.grouping !== 'entryTpsl' && c.grouping !== 'partialTpsl' && c.grouping !== 'positionTpsl') {
    return invalid('InvalidRequest', 'grouping must be entryTpsl, partialTpsl or positionTpsl', 'grouping');
  }
  const shape = checkGrouping(c.grouping, c.orders);
  if (shape !== undefined) return shape;
  const results: ResultOf<PlaceOrderCommand>[] = [];
  // The elements' results live together: no reused result record inside a batch.
  engine.scratch.batchDepth++;
  try {
    placeEach(engine, c, results);
  } finally {
    engine.scratch.batchDepth--;
  }
  return { kind: 'batch', results };
}

function placeEach(engine: Engine, c: BatchPlaceCommand, results: ResultOf<PlaceOrderCommand>[]): void {
  let parent: ResultOf<PlaceOrderCommand> | undefined;
  for (let i = 0; i < c.orders.length; i++) {
    const element = c.orders[i]!;
    // Copied by Object.assign, not a spread followed by fields: that gave every element's copy a
    // hidden class of its own, so each later read of the command missed V8's caches.
    const command = Object.assign({}, element) as PlaceOrderCommand;
    command.type = 'placeOrder';
    command.time = engine.time;
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
}

export function validatePlace(engine: Engine, ms: MarketState, c: PlaceOrderCommand): InvalidResult | undefined {
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

/** Engine rejections decided before the order meets the book. */
function admit(engine: Engine, ms: MarketState, order: Order): RejectionReason | undefined {
  const account = order.account;

  if (order.clientId !== undefined) {
    if (account.clientIds.has(order.clientId)) return 'DUPLICATE_CLIENT_ID';
    if (account.clientIds.size >= LIMITS.liveClientIdsPerAccount) return 'TOO_MANY_CLIENT_IDS';
  }
  if ((order.tif === TIF_GTT || order.tif === TIF_ALO) && openOrdersOf(account, ms.slot) >= engine.limits.openOrdersPerMarket) {
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

function waitForTrigger(engine: Engine, ms: MarketState, order: Order): void {
  order.status = 'UNTRIGGERED';
  makeLive(engine, ms, order);
  addTrigger(ms.tpslTriggers, firesBelow(order.side, order.tpslType!), order.triggerPrice!, order.id, 0);
  emitOrder(engine, order, 'TPSL_PLACED');
  if (order.parentOrderId !== undefined) {
    const parent = getOrder(engine.orders, order.parentOrderId);
    if (parent !== undefined) parent.hasChildren = true;
  }
}

/** Fires the untriggered orders the new mark has reached, in trigger order. */
export function triggerTpsl(engine: Engine, ms: MarketState): void {
  const isCurrent = (id: number): boolean => getOrder(engine.orders, id)?.status === 'UNTRIGGERED';
  const ids = crossedTriggers(ms.tpslTriggers, ms.markPrice, isCurrent);
  for (const id of ids) {
    const order = getOrder(engine.orders, id);
    if (order === undefined || order.status !== 'UNTRIGGERED') continue;
    releaseLive(engine, order);
    order.status = 'TPSL_TRIGGERED';
    if (order.isPositionTpsl) {
      // A position TPSL closes whatever position there is when it fires.
      const position = positionOf(order.account, ms.slot);
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
