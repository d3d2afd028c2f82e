/**
 * cancelOrder, cancelAll and scheduleCancel (the dead man's switch). A cancel dominates a
 * modify of the same order still waiting in the modify buffer, and is remembered for the
 * buffer's window so that a modify arriving after it is refused too.
 */
import type { Account } from '../account.ts';
import { emitRejected, emitSwitch, rejectCommand } from '../emit.ts';
import { cancelLive, cancelScopeWith } from '../lifecycle.ts';
import { rememberCancel, takePending, targetKey } from '../modify-buffer.ts';
import { arm, disarm } from '../schedule-cancel.ts';
import { LIMITS } from '../spec.ts';
import { getAccount, invalid, type Engine } from '../state.ts';
import type { CancelAllCommand, CancelOrderCommand, ResultOf, ScheduleCancelCommand } from '../types.ts';
import { checkTargetRef, findTarget, orderResult, validAccountRef } from './validate.ts';

export function cancelOrder(engine: Engine, c: CancelOrderCommand): ResultOf<CancelOrderCommand> {
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
  return orderResult(engine, order);
}

export function cancelAll(engine: Engine, c: CancelAllCommand): ResultOf<CancelAllCommand> {
  if (!validAccountRef(c.address, c.accountIndex)) return invalid('InvalidRequest', 'invalid account', 'accountIndex');
  if (c.marketId !== undefined && !engine.markets.has(c.marketId)) return invalid('InvalidRequest', 'unknown market', 'marketId');
  const account = getAccount(engine, c.address, c.accountIndex);
  return { kind: 'cancelAll', canceled: cancelScope(engine, account, c.marketId) };
}

/** Cancels every live order of an account, or of one of its markets, oldest first. */
export function cancelScope(engine: Engine, account: Account, marketId: number | undefined): number {
  return cancelScopeWith(engine, account, marketId, 'CANCELED');
}

export function scheduleCancel(engine: Engine, c: ScheduleCancelCommand): ResultOf<ScheduleCancelCommand> {
  if (!validAccountRef(c.address, c.accountIndex)) return invalid('InvalidRequest', 'invalid account', 'accountIndex');
  if (c.marketId !== undefined && !engine.markets.has(c.marketId)) return invalid('InvalidRequest', 'unknown market', 'marketId');
  if (c.deadline === null) {
    const account = getAccount(engine, c.address, c.accountIndex);
    if (disarm(engine.switches, account, c.marketId)) emitSwitch(engine, account, c.marketId, 'disarmed', undefined);
    return { kind: 'scheduleCancel', switchState: 'disarmed' };
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
  return { kind: 'scheduleCancel', switchState: 'scheduled' };
}
