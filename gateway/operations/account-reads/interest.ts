/**
 * GET /v1/interest — the account's hourly borrow-interest settlements on a negative quote
 * balance, newest first: `{interestPayments: [{payment, time}]}` (no `total`: the interface's
 * shape has none). payment is USD paid by the account; the window defaults to the 30 days
 * before `to` (now).
 * Spec: interface.md "History and summary responses".
 */
import { LIMITS } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import { accountKeyOf } from '../../shared/account-key.ts';
import type { Operation } from '../../contract/operation.ts';
import { accountOf } from '../support/common.ts';
import { accountQueryWith, isFilterReply, limitOf, LIST_PARAMS, windowOf } from '../support/read-filters.ts';
import { Type, type Static } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

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
