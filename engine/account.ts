/**
 * Accounts: a master address's subaccount as the engine sees it.
 *
 * Contract: one record per (lowercase address, accountIndex), created on first use. It indexes
 * the account's live orders by id and by clientId (the DUPLICATE_CLIENT_ID / TOO_MANY_CLIENT_IDS
 * rules), counts open orders per market (OPEN_ORDER_CAP_EXCEEDED) and owns the per-account
 * sequence counter. Positions are signed quantums per market; issue 3's risk modules extend
 * this record with collateral and margin.
 */
import type { Order } from './order.ts';

export interface Account {
  key: string;
  address: string;
  index: number;
  /** Per-account sequence: every account-scoped event takes the next value. */
  seq: number;
  orders: Map<number, Order>;
  clientIds: Map<string, Order>;
  openByMarket: Map<number, number>;
  /** Signed position size in quantums per market. */
  positions: Map<number, number>;
}

export function accountKey(address: string, index: number): string {
  return address + '/' + index;
}

export function createAccount(address: string, index: number): Account {
  return {
    key: accountKey(address, index),
    address,
    index,
    seq: 0,
    orders: new Map(),
    clientIds: new Map(),
    openByMarket: new Map(),
    positions: new Map(),
  };
}

export function positionOf(account: Account, marketId: number): number {
  return account.positions.get(marketId) ?? 0;
}
