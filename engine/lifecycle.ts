/**
 * The order lifecycle: how an order becomes live, takes liquidity, rests, fills and ends.
 *
 * Contract: every command module, liquidation.ts and the timers change an order's life only
 * through these functions, so that the order table, the account's order list, its client ids,
 * its margin exposure, the expiry heap and the book stay in step, and every change leaves its
 * `order` event. This module imports no command module (and nothing imports engine.ts), which
 * keeps engine/ free of import cycles.
 */
import { linkOrder, unlinkOrder, type Account } from './account.ts';
import { crosses, insertOrder, NO_LEVEL, removeOrder } from './book.ts';
import { emitFill, emitOrder, emitPositionRow, emitTrades, markDirty, touch } from './emit.ts';
import { TRADE_NUM, TRADE_REF } from './event-records.ts';
import { findRow } from './risk-table.ts';
import { addExpiry } from './expiry.ts';
import { fillableQty, matchTaker, MATCH_SELF_TRADE, type MatchHooks } from './matching.ts';
import { newOrder, type Order } from './order.ts';
import { deleteOrder, getOrder, putOrder } from './order-table.ts';
import { addExposure, queueRisk, reduceAllowance, settleFill } from './risk.ts';
import type { OrderStatus, RejectionReason } from './spec.ts';
import type { Engine, MarketState } from './state.ts';
import { TIF_ALO, TIF_FOK, TIF_GTT, TIF_IOC, type SideCode } from './types.ts';

/**
 * The hooks matching calls back into the lifecycle with (built once per engine). A class, not
 * closures over the engine: its methods are the same functions for every engine, so code
 * optimized while one engine ran stays valid for the next one built in the same thread.
 */
export function matchHooks(engine: Engine): MatchHooks {
  return new LifecycleHooks(engine);
}

class LifecycleHooks implements MatchHooks {
  constructor(private readonly engine: Engine) {}

  onFill(maker: Order, price: number, qty: number): void {
    onFill(this.engine, maker, price, qty);
  }

  makerAllowance(maker: Order): number {
    return reduceAllowance(maker);
  }

  dropMaker(maker: Order): void {
    const engine = this.engine;
    const ms = engine.scratch.takerMarket!;
    unrest(engine, ms, maker);
    finish(engine, maker, 'CANCELED', 'REDUCE_ONLY_WOULD_INCREASE');
  }
}

export function newInternalOrder(engine: Engine, account: Account, ms: MarketState, side: SideCode, price: number, size: number, origin: 'LIQUIDATION' | 'ADL'): Order {
  const order = newOrder(engine.nextOrderId++, account, ms.spec.id, ms.slot, side, 0, TIF_IOC, true, undefined, price, size, engine.time, engine.time);
  order.origin = origin;
  return order;
}

/** Runs a liquidation order through the book; it ends LIQUIDATED whatever it filled. */
export function runLiquidationOrder(engine: Engine, ms: MarketState, order: Order): void {
  if (crosses(ms.book, order.side, order.price)) {
    touch(engine, ms);
    const scratch = engine.scratch;
    scratch.taker = order;
    scratch.takerMarket = ms;
    matchTaker(ms.book, order, order.remaining, engine.wiring.hooks);
    scratch.taker = null;
  }
  finish(engine, order, 'LIQUIDATED', undefined);
}

/**
 * Takes liquidity, then rests or finishes the order. Shared by placement, crossing modifies and
 * cancel-replace; the order is not live when this starts.
 */
export function execute(engine: Engine, ms: MarketState, order: Order): void {
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
  if (order.tif === TIF_FOK && (maxQty < order.remaining || fillableQty(book, order, order.remaining, engine.wiring.hooks) < order.remaining)) {
    return finish(engine, order, 'REJECTED', 'FOK_FAILED');
  }
  let stop: number = 0;
  if (crosses(book, order.side, order.price)) {
    touch(engine, ms);
    const scratch = engine.scratch;
    scratch.taker = order;
    scratch.takerMarket = ms;
    stop = matchTaker(book, order, maxQty, engine.wiring.hooks);
    scratch.taker = null;
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
  makeLive(engine, ms, order);
  touch(engine, ms);
  insertOrder(ms.book, order);
  markDirty(engine, ms, order.side, order.price);
  emitOrder(engine, order);
}

/** Ends an order that is not (or no longer) on the book, with its final event. */
export function finish(engine: Engine, order: Order, status: OrderStatus, reason: RejectionReason | undefined): void {
  if (getOrder(engine.orders, order.id) === order) releaseLive(engine, order);
  order.status = status;
  order.rejectionReason = reason;
  emitOrder(engine, order);
  const scratch = engine.scratch;
  scratch.ended[scratch.endedCount++] = order;
  // An entry that ended without any fill takes its entryTpsl legs with it.
  if (order.hasChildren && order.filled === 0 && order.cancelReason === undefined && status !== 'PARTIALLY_FILLED' && status !== 'OPEN') {
    order.hasChildren = false;
    const legs: Order[] = [];
    for (let o = order.account.head; o !== null; o = o.aNext) if (o.parentOrderId === order.id) legs.push(o);
    for (const leg of legs) cancelLive(engine, engine.bySlot[leg.slot]!, leg);
  }
}

export function makeLive(engine: Engine, ms: MarketState, order: Order): void {
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
export function exposureOf(order: Order, qty: number): number {
  return order.reduceOnly || order.status === 'UNTRIGGERED' ? 0 : qty;
}

export function releaseLive(engine: Engine, order: Order): void {
  const account = order.account;
  deleteOrder(engine.orders, order.id);
  unlinkOrder(account, order);
  if (order.clientId !== undefined && account.clientIds.get(order.clientId) === order) account.clientIds.delete(order.clientId);
  addExposure(engine, account, engine.bySlot[order.slot]!, order.side, -exposureOf(order, order.remaining), -1);
}

/** Takes a resting order off the book (it stays live until released). */
export function unrest(engine: Engine, ms: MarketState, order: Order): void {
  if (order.level === NO_LEVEL) return;
  touch(engine, ms);
  markDirty(engine, ms, order.side, order.price);
  removeOrder(ms.book, order);
}

export function cancelLive(engine: Engine, ms: MarketState, order: Order, status: 'CANCELED' | 'MARGIN_CANCELED' = 'CANCELED'): void {
  unrest(engine, ms, order);
  finish(engine, order, order.status === 'UNTRIGGERED' ? 'TPSL_CANCELED' : status, undefined);
}

export function cancelScopeWith(engine: Engine, account: Account, marketId: number | undefined, status: 'CANCELED' | 'MARGIN_CANCELED'): number {
  const targets: Order[] = [];
  for (let o = account.head; o !== null; o = o.aNext) if (marketId === undefined || o.marketId === marketId) targets.push(o);
  targets.sort((a, b) => a.id - b.id);
  for (const order of targets) cancelLive(engine, engine.bySlot[order.slot]!, order, status);
  return targets.length;
}

export function onFill(engine: Engine, maker: Order, price: number, qty: number): void {
  const scratch = engine.scratch;
  const taker = scratch.taker!;
  const ms = scratch.takerMarket!;
  touch(engine, ms);
  markDirty(engine, ms, maker.side, price);
  const value = price * qty;
  taker.remaining -= qty;
  taker.filled += qty;
  taker.filledValue += value;
  maker.filled += qty;
  maker.filledValue += value;
  // The maker's resting exposure shrinks with its fill (matching already reduced `remaining`).
  addExposure(engine, maker.account, ms, maker.side, -exposureOf(maker, qty), 0);
  const makerSettled = scratch.makerSettled;
  const takerSettled = scratch.takerSettled;
  settleFill(engine, maker.account, ms, maker.side, qty, price, 'MAKER', makerSettled);
  settleFill(engine, taker.account, ms, taker.side, qty, price, 'TAKER', takerSettled);
  queueRisk(engine, maker.account);
  queueRisk(engine, taker.account);
  const tradeId = engine.nextTradeId++;
  emitFill(engine, ms, maker, tradeId, price, qty, 'MAKER', makerSettled);
  emitFill(engine, ms, taker, tradeId, price, qty, 'TAKER', takerSettled);
  // settleFill made both rows.
  const t = maker.account.table;
  emitPositionRow(engine, maker.account, t, findRow(t, maker.account.id, ms.slot));
  emitPositionRow(engine, taker.account, t, findRow(t, taker.account.id, ms.slot));
  const mw = scratch.markets[ms.slot]!;
  if (mw.tradesTaker !== taker) {
    if (mw.tradeCount > 0) emitTrades(engine, ms);
    mw.tradesTaker = taker;
  }
  const k = mw.tradeCount++;
  const nums = mw.tradeNums;
  const at = k * TRADE_NUM;
  nums[at] = tradeId;
  nums[at + 1] = price;
  nums[at + 2] = qty;
  nums[at + 3] = maker.id;
  nums[at + 4] = maker.account.index;
  nums[at + 5] = taker.account.index;
  mw.tradeRefs[k * TRADE_REF] = maker.account.address;
  mw.tradeRefs[k * TRADE_REF + 1] = taker.account.address;
  if (maker.remaining === 0) {
    finish(engine, maker, 'FILLED', undefined);
  } else {
    maker.status = 'PARTIALLY_FILLED';
    emitOrder(engine, maker);
    // A reduce-only maker whose position is gone can never fill again.
    if (maker.reduceOnly && reduceAllowance(maker) <= 0) {
      unrest(engine, ms, maker);
      finish(engine, maker, 'CANCELED', 'REDUCE_ONLY_WOULD_INCREASE');
    }
  }
}
