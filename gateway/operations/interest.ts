/**
 * GET /v1/interest — the account's borrow-interest settlements: `{interestPayments: [{payment,
 * time}]}` (interface.md "History and summary responses"), newest first.
 *
 * - Each entry is one hourly settlement of interest accrued on a negative quote balance, paid
 *   from the account to the lending vault. payment: USD, positive = paid by the account (the
 *   only direction there is); time: the settlement hour, epoch µs.
 * - Parameters: address (required), accountIndex, from, to (epoch µs, inclusive; `to` defaults
 *   to now, `from` to 30 days before `to`), limit 1-1000 (default 1000, larger values clamped).
 *   The interface's shape has no `total`, so none is sent.
 * - History comes from gateway/read-models/history.ts (10,000 settlements kept per account).
 */
import { LIMITS } from '../../engine/index.ts';
import { ok } from '../contract/errors.ts';
import { usd } from '../contract/format.ts';
import { accountKeyOf } from '../shared/account-key.ts';
import type { Operation } from '../contract/operation.ts';
import { accountOf } from './common.ts';
import { accountQueryWith, isFilterReply, limitOf, LIST_PARAMS, windowOf } from './read-filters.ts';
import { Type, type Static } from 'typebox';
import { okReplies } from '../contract/reply-schema.ts';

export const InterestQuery = accountQueryWith({ from: LIST_PARAMS.from, to: LIST_PARAMS.to, limit: LIST_PARAMS.limit });

export interface InterestPaymentRecord {
  payment: string;
  time: number;
}

export type InterestReply = Static<(typeof INTEREST_RESPONSES)[200]>;

export const INTEREST_RESPONSES = okReplies(Type.Object({ interestPayments: Type.Array(Type.Object({ payment: Type.String(), time: Type.Number() })) }));

export const interest: Operation<typeof INTEREST_RESPONSES> = {
  name: 'interest',
  method: 'GET',
  path: '/v1/interest',
  auth: 'public',
  description: 'borrow interest payments',
  schema: { querystring: InterestQuery },
  response: INTEREST_RESPONSES,
  errorSource: null,
  weight: 'interest',
  mutates: false,
  handle: (state, request) => {
    const exchange = state.exchange;
    const ref = accountOf(request.query);
    const window = windowOf(request.query, exchange.clock(), LIMITS.fundingDefaultWindowUs);
    if (isFilterReply(window)) return window;
    const page = exchange.history.page('interest', accountKeyOf(ref.address, ref.accountIndex), { window, marketId: null, limit: limitOf(request.query) });
    const body: InterestReply = { interestPayments: page.rows.map((e) => ({ payment: usd(e.payment), time: e.time })) };
    return ok(body);
  },
};
