/**
 * GET /v1/mids — `{mids: {"<display name>": mid}, globalSequenceId}` for ONLINE markets by
 * ascending marketId, optionally one `market`. mid = (best bid + best ask) / 2 with the tick's
 * decimals (one more when the sum is odd); "" when either side is empty, never the mark.
 * Spec: interface.md "market ordering"; globalSequenceId as captured live (docs/decisions.md
 * "Reads", "Fidelity to the live venue").
 */
import { Type } from 'typebox';
import { bestLevel, formatBig, type MarketState } from '../../../engine/index.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import { marketsById, resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { okReplies, mapOf } from '../../contract/reply-schema.ts';

/** The book's mid as the venue prints it, or "" when a side is empty. */
export function midPrice(ms: MarketState): string {
  const bid = bestLevel(ms.book.bids);
  const ask = bestLevel(ms.book.asks);
  if (bid === undefined || ask === undefined) return '';
  const { mantissa, scale } = ms.spec.tick;
  const sumUnits = BigInt(bid.price + ask.price) * BigInt(mantissa);
  if (sumUnits % 2n === 0n) return formatBig(sumUnits / 2n, scale);
  return formatBig(sumUnits * 5n, scale + 1);
}

/** The mids map of the given markets: ONLINE ones only, in the given order. */
export function midsRecord(markets: readonly MarketState[]): Record<string, string> {
  const mids: Record<string, string> = {};
  for (const ms of markets) if (ms.spec.status === 'ONLINE') mids[ms.spec.displayName] = midPrice(ms);
  return mids;
}

export const MIDS_RESPONSES = okReplies(Type.Object({ mids: mapOf(Type.String()), globalSequenceId: Type.Integer() }));

export const mids: Operation<typeof MIDS_RESPONSES> = {
  name: 'mids',
  method: 'GET',
  path: '/v1/mids',
  auth: 'public',
  description: 'mid prices of online markets',
  schema: { querystring: Type.Object({ market: Type.Optional(Type.String()) }, { additionalProperties: true }) },
  response: MIDS_RESPONSES,
  errorSource: null,
  weight: 'mids',
  mutates: false,
  handle: (state, request) => {
    const filter = request.query.market;
    const globalSequenceId = state.exchange.engine.seq.global;
    if (filter === undefined) return ok({ mids: midsRecord(marketsById(state.exchange)), globalSequenceId });
    const ms = resolveMarket(state.exchange, filter);
    if (ms === undefined) return badRequest(`unknown market: ${String(filter)}`);
    return ok({ mids: midsRecord([ms]), globalSequenceId });
  },
};
