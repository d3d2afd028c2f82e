/**
 * GET /v1/accountTransferUpdates — the account's deposits, withdrawals and internal transfers,
 * newest first (supplement §6): `{accountTransferUpdates: [row]}`.
 *
 * A row (the fields supplement §6 lists, plus `type` and `status`; the spec's "…"):
 * - id: the engine's operation id (integer; a withdrawal's `withdrawalId`, the notification's
 *   `operationId`); both legs of an internal transfer share it.
 * - type: DEPOSIT, WITHDRAWAL, TRANSFER_OUT, TRANSFER_IN or REFERRAL_CLAIM (affiliate rewards
 *   paid from the fees collected); status: COMPLETED or REJECTED; rejectReason: null unless
 *   REJECTED (INSUFFICIENT_FREE_COLLATERAL; INSUFFICIENT_FEE_POOL for a claim).
 * - amount: USD decimal string, always positive (`type` gives the direction); netQuoteBalance:
 *   the account's balance after the operation, USD.
 * - globalSequenceId (strict order), createdAt (epoch µs), address, accountIndex (0 included).
 * - sourceAccountId / destinationAccountId: the engine's numeric id of each subaccount involved
 *   (accounts are numbered in creation order), null for the outside side (the chain: a deposit's
 *   source, a withdrawal's destination). Internal transfers add fromAccountIndex and
 *   toAccountIndex, as in the transfer request.
 *
 * Parameters: address (required), accountIndex, from/to (epoch µs on createdAt, inclusive;
 * supplement §12), limit 1-1000 (default 1000, larger values clamped). No default window. The
 * shape has no `total`. History comes from gateway/read-models/history.ts (10,000 rows kept per account).
 */
import { findAccount, type TransferEvent } from '../../engine/index.ts';
import { ok } from '../contract/errors.ts';
import { accountKeyOf } from '../shared/account-key.ts';
import type { Exchange } from '../read-models/exchange.ts';
import { usd } from '../contract/format.ts';
import type { Operation } from '../contract/operation.ts';
import { accountOf } from './common.ts';
import { accountQueryWith, isFilterReply, limitOf, LIST_PARAMS, windowOf } from './read-filters.ts';
import { Type, type Static } from 'typebox';
import { okReplies, nullable } from '../contract/reply-schema.ts';

export const AccountTransferUpdatesQuery = accountQueryWith({ from: LIST_PARAMS.from, to: LIST_PARAMS.to, limit: LIST_PARAMS.limit });

export type TransferType = 'DEPOSIT' | 'WITHDRAWAL' | 'TRANSFER_OUT' | 'TRANSFER_IN' | 'REFERRAL_CLAIM';

export type AccountTransferUpdate = Static<typeof AccountTransferUpdateSchema>;

const TYPES: Readonly<Record<TransferEvent['kind'], TransferType>> = {
  deposit: 'DEPOSIT',
  withdrawal: 'WITHDRAWAL',
  transferOut: 'TRANSFER_OUT',
  transferIn: 'TRANSFER_IN',
  referralClaim: 'REFERRAL_CLAIM',
};

export function transferUpdate(exchange: Exchange, e: TransferEvent): AccountTransferUpdate {
  const idOf = (index: number | undefined): number | null =>
    index === undefined ? null : findAccount(exchange.engine.accounts, e.address, index)?.id ?? null;
  const self = idOf(e.accountIndex);
  const other = idOf(e.counterpartyIndex);
  const row: AccountTransferUpdate = {
    id: e.operationId,
    type: TYPES[e.kind],
    status: e.status,
    amount: usd(e.amount),
    netQuoteBalance: usd(e.netQuoteBalance),
    globalSequenceId: e.globalSeq,
    createdAt: e.time,
    address: e.address,
    accountIndex: e.accountIndex,
    rejectReason: e.rejectReason ?? null,
    sourceAccountId: e.kind === 'deposit' || e.kind === 'referralClaim' ? null : e.kind === 'transferIn' ? other : self,
    destinationAccountId: e.kind === 'withdrawal' ? null : e.kind === 'transferOut' ? other : self,
  };
  if (e.kind === 'transferOut' && e.counterpartyIndex !== undefined) {
    row.fromAccountIndex = e.accountIndex;
    row.toAccountIndex = e.counterpartyIndex;
  }
  if (e.kind === 'transferIn' && e.counterpartyIndex !== undefined) {
    row.fromAccountIndex = e.counterpartyIndex;
    row.toAccountIndex = e.accountIndex;
  }
  return row;
}

export type AccountTransferUpdatesReply = Static<(typeof ACCOUNT_TRANSFER_UPDATES_RESPONSES)[200]>;

/** A transfer row, fields in the order `transferUpdate` writes them. */
export const AccountTransferUpdateSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  status: Type.String(),
  amount: Type.String(),
  netQuoteBalance: Type.String(),
  globalSequenceId: Type.Integer(),
  createdAt: Type.Number(),
  address: Type.String(),
  accountIndex: Type.Integer(),
  rejectReason: nullable(Type.String()),
  sourceAccountId: nullable(Type.Integer()),
  destinationAccountId: nullable(Type.Integer()),
  fromAccountIndex: Type.Optional(Type.Integer()),
  toAccountIndex: Type.Optional(Type.Integer()),
});
export const ACCOUNT_TRANSFER_UPDATES_RESPONSES = okReplies(Type.Object({ accountTransferUpdates: Type.Array(AccountTransferUpdateSchema) }));

export const accountTransferUpdates: Operation<typeof ACCOUNT_TRANSFER_UPDATES_RESPONSES> = {
  name: 'accountTransferUpdates',
  method: 'GET',
  path: '/v1/accountTransferUpdates',
  auth: 'public',
  description: 'deposits, withdrawals and transfers',
  schema: { querystring: AccountTransferUpdatesQuery },
  response: ACCOUNT_TRANSFER_UPDATES_RESPONSES,
  errorSource: null,
  weight: 'accountTransferUpdates',
  mutates: false,
  handle: (state, request) => {
    const exchange = state.exchange;
    const ref = accountOf(request.query);
    const window = windowOf(request.query, exchange.clock());
    if (isFilterReply(window)) return window;
    const page = exchange.history.page('transfers', accountKeyOf(ref.address, ref.accountIndex), { window, marketId: null, limit: limitOf(request.query) });
    const body: AccountTransferUpdatesReply = { accountTransferUpdates: page.rows.map((e) => transferUpdate(exchange, e)) };
    return ok(body);
  },
};
