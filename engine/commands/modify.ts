/**
 * modifyOrder: in place (same price and no more size keeps the queue place), crossing (takes
 * liquidity like a new order), cancel-replace (a new goodTilTime), or buffered: a modify whose
 * target is not here yet waits for it (modify-buffer.ts) and is applied when it is placed.
 */
import { crosses, insertOrder, reduceOrder, removeOrder } from '../book.ts';
import { emitOrder, emitRejected, markDirty, rejectCommand, touch } from '../emit.ts';
import { cancelLive, execute, exposureOf, finish, releaseLive, unrest } from '../lifecycle.ts';
import { meetsMinNotional } from '../market.ts';
import { bufferModify, cancelPending, takePending, targetKey } from '../modify-buffer.ts';
import type { Order } from '../order.ts';
import { addExposure, marginAllows, preTrade } from '../risk.ts';
import type { RejectionReason } from '../spec.ts';
import { getAccount, invalid, type Engine, type MarketState } from '../state.ts';
import type { InvalidResult, ModifyOrderCommand, OrderResult, RejectedResult, ResultOf } from '../types.ts';
import { checkGoodTilTime, checkPrice, checkTargetRef, findTarget, onlineMarket, orderResult, validAccountRef } from './validate.ts';

export function modifyOrder(engine: Engine, c: ModifyOrderCommand): ResultOf<ModifyOrderCommand> {
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
  return { kind: 'buffered' };
}

/** A placement that a buffered modify was waiting for: cancel it and replace it. */
export function applyBufferedModify(engine: Engine, ms: MarketState, order: Order): void {
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

/** A modify refused by the engine; a named function, so refusing allocates no closure. */
function rejectModify(engine: Engine, target: Order, c: ModifyOrderCommand, reason: RejectionReason): RejectedResult {
  return rejectCommand(engine, target.account, 'modifyOrder', c.marketId, target.id, target.clientId, reason);
}

function applyModify(engine: Engine, ms: MarketState, target: Order, c: ModifyOrderCommand, forceReplace: boolean): InvalidResult | OrderResult | RejectedResult {
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
    return orderResult(engine, target);
  }
  if (crosses(ms.book, target.side, c.price)) {
    // A crossing modify takes liquidity like a new order: fills, then rests or is refused.
    unrest(engine, ms, target);
    releaseLive(engine, target);
    target.price = c.price;
    target.size = c.size;
    target.remaining = newRemaining;
    execute(engine, ms, target);
    return orderResult(engine, target);
  }
  touch(engine, ms);
  markDirty(engine, ms, target.side, target.price);
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
    markDirty(engine, ms, target.side, target.price);
  }
  target.size = c.size;
  emitOrder(engine, target);
  return orderResult(engine, target);
}
