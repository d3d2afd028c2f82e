/**
 * Checks shared by the order commands (place, modify, cancel): well-formed account references,
 * online markets, prices on their tier's tick, goodTilTime, order references, and the order
 * result they all return. Failures are `invalid` results: nothing changed, no event.
 */
import type { Account } from '../account.ts';
import { onTierTick } from '../market.ts';
import type { Order } from '../order.ts';
import { getOrder } from '../order-table.ts';
import { LIMITS } from '../spec.ts';
import { invalid, type Engine, type MarketState } from '../state.ts';
import type { InvalidResult, OrderResult } from '../types.ts';

export const CLIENT_ID = /^[A-Za-z0-9_-]{1,36}$/;

export function validAccountRef(address: unknown, accountIndex: unknown): boolean {
  return typeof address === 'string' && Number.isInteger(accountIndex) && (accountIndex as number) >= 0 && (accountIndex as number) <= LIMITS.subaccountMax;
}

export function onlineMarket(engine: Engine, marketId: number): MarketState | InvalidResult {
  const ms = engine.markets.get(marketId);
  if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
  if (ms.spec.status !== 'ONLINE') return invalid('Unavailable', 'market is not online', 'marketId');
  return ms;
}

/** Checks a limit price: positive integer ticks on its tier's tick. */
export function checkPrice(ms: MarketState, price: number): InvalidResult | undefined {
  if (!Number.isSafeInteger(price) || price <= 0) return invalid('InvalidRequest', 'price must be positive', 'price');
  if (!onTierTick(ms.spec, price)) return invalid('Tick', 'price is not a multiple of the tick size for its price tier', 'price');
  return undefined;
}

export function checkGoodTilTime(engine: Engine, goodTilTime: number): InvalidResult | undefined {
  if (!Number.isSafeInteger(goodTilTime) || goodTilTime < engine.time + LIMITS.minGoodTilTimeAheadUs) {
    return invalid('InvalidRequest', 'goodTilTime must be at least one month in the future', 'goodTilTime');
  }
  return undefined;
}

export function checkTargetRef(orderId: unknown, clientId: unknown): InvalidResult | undefined {
  if ((orderId === undefined) === (clientId === undefined)) return invalid('InvalidRequest', 'exactly one of orderId or clientId is required', 'orderId');
  if (orderId !== undefined && (!Number.isSafeInteger(orderId) || (orderId as number) <= 0)) return invalid('InvalidRequest', 'invalid orderId', 'orderId');
  if (clientId !== undefined && (typeof clientId !== 'string' || !CLIENT_ID.test(clientId))) return invalid('InvalidRequest', 'invalid clientId', 'clientId');
  return undefined;
}

export function findTarget(engine: Engine, account: Account, marketId: number, orderId: number | undefined, clientId: string | undefined): Order | undefined {
  const order = orderId !== undefined ? getOrder(engine.orders, orderId) : clientId !== undefined ? account.clientIds.get(clientId) : undefined;
  if (order === undefined || order.account !== account || order.marketId !== marketId) return undefined;
  return order;
}

/**
 * The result of an order command. With `reuseResults` on (and outside a batch, whose elements'
 * results live together), it is the engine's one result record, rewritten by the next command.
 */
export function orderResult(engine: Engine, order: Order): OrderResult {
  const scratch = engine.scratch;
  if (scratch.reuseResults && scratch.batchDepth === 0) {
    const r = scratch.orderResult;
    r.orderId = order.id;
    r.status = order.status;
    r.rejectionReason = order.rejectionReason;
    return r;
  }
  return { kind: 'order', orderId: order.id, status: order.status, rejectionReason: order.rejectionReason };
}
