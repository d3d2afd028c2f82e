/**
 * GET /v1/funding (also /v1/fundingPayments, supplement §11) — the account's funding payments,
 * newest first: `{fundingPayments: [{marketId, marketDisplayName, fundingRate, size, payment,
 * time}], total}`. payment is USD, positive = received; time the settlement hour (µs); the
 * window defaults to the 30 days before `to` (now); `total` counts past the limit.
 * Spec: interface.md "History and summary responses".
 */
import { formatBig, LIMITS, trimDecimal, type FundingPaymentEvent } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import { accountKeyOf } from '../../shared/account-key.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { size, usd } from '../../contract/format.ts';
import type { Operation, OperationReply, OperationRequest, GatewayState } from '../../contract/operation.ts';
import { Type, type Static } from 'typebox';
import { accountOf } from '../support/common.ts';
import { accountQueryWith, isFilterReply, limitOf, LIST_PARAMS, marketFilter, signed, windowOf } from '../support/read-filters.ts';
import { okReplies } from '../../contract/reply-schema.ts';

export const FundingQuery = accountQueryWith(LIST_PARAMS);

/** A funding payment, fields in the order `fundingPaymentRecord` writes them. */
export const FundingPaymentReply = Type.Object({
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
  fundingRate: Type.String(),
  size: Type.String(),
  payment: Type.String(),
  time: Type.Number(),
});
export const FUNDING_RESPONSES = okReplies(Type.Object({ fundingPayments: Type.Array(FundingPaymentReply), total: Type.Integer() }));

export type FundingPaymentRecord = Static<typeof FundingPaymentReply>;

export type FundingReply = Static<(typeof FUNDING_RESPONSES)[200]>;

/** A funding rate in 1e-12 units as a decimal fraction ("0.0000125", "-0.000002", "0.0"). */
export function fundingRateString(rate: bigint): string {
  return trimDecimal(formatBig(rate, 12));
}

export function fundingPaymentRecord(exchange: Exchange, e: FundingPaymentEvent): FundingPaymentRecord {
  const spec = exchange.engine.markets.get(e.marketId)!.spec;
  return {
    marketId: e.marketId,
    marketDisplayName: spec.displayName,
    fundingRate: fundingRateString(e.rate),
    size: signed((q) => size(spec, q), e.size),
    payment: usd(e.payment),
    time: e.time,
  };
}

function handle(state: GatewayState, request: OperationRequest): OperationReply<typeof FUNDING_RESPONSES> {
  const exchange = state.exchange;
  const query = request.query;
  const ref = accountOf(query);
  const market = marketFilter(exchange, query);
  if (isFilterReply(market)) return market;
  const window = windowOf(query, exchange.clock(), LIMITS.fundingDefaultWindowUs);
  if (isFilterReply(window)) return window;
  const page = exchange.history.page('funding', accountKeyOf(ref.address, ref.accountIndex), { window, marketId: market === null ? null : market.spec.id, limit: limitOf(query) });
  const body: FundingReply = { fundingPayments: page.rows.map((e) => fundingPaymentRecord(exchange, e)), total: page.total };
  return ok(body);
}

export const funding: Operation<typeof FUNDING_RESPONSES> = {
  name: 'funding',
  method: 'GET',
  path: '/v1/funding',
  auth: 'public',
  description: 'funding payments',
  schema: { querystring: FundingQuery },
  response: FUNDING_RESPONSES,
  errorSource: null,
  weight: 'funding',
  mutates: false,
  handle,
};

/** The spelling one connector uses (supplement §11); weighs like funding (rate-limit/weights.ts). */
export const fundingPayments: Operation = {
  ...funding,
  name: 'fundingPayments',
  path: '/v1/fundingPayments',
  description: 'funding payments (alias of /v1/funding)',
};
