/**
 * GET /v1/accountTransferUpdates — the account's deposits, withdrawals, internal transfers and
 * referral claims, newest first: `{accountTransferUpdates: [row]}` (no `total`). A row's `id` is
 * the engine's operation id (a withdrawal's withdrawalId; both legs of a transfer share it);
 * `type` and `status` are added to supplement §6's fields. Query: address, accountIndex, from/to
 * on createdAt (inclusive, no default window), limit.
 * Spec: supplement §6, §12. Row choices: docs/decisions.md "Account-read operations".
 */
import { findAccount, type TransferEvent } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import { accountKeyOf } from '../../shared/account-key.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { usd } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { accountOf } from '../support/common.ts';
import { accountQueryWith, isFilterReply, limitOf, LIST_PARAMS, windowOf } from '../support/read-filters.ts';
import { Type, type Static } from 'typebox';
import { okReplies, nullable } from '../../contract/reply-schema.ts';

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
