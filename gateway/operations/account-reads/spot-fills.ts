/**
 * GET /v1/spotFills — an account's spot settlements (per address, like /v1/fills).
 *
 * Query: `address`, `accountIndex`, `from`/`to` (epoch µs, inclusive, validated as on every
 * history read: `from` after `to` is 400) and `limit`. Reply `{fills: [], total: 0}`, the
 * fills reply's shape; perpsim has no spot assets, so there is nothing to list
 * (docs/decisions.md "Fidelity to the live venue").
 */
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { accountQueryWith, isFilterReply, LIST_PARAMS, windowOf } from '../support/read-filters.ts';
import { Type } from 'typebox';
import { okReplies, FillRecord } from '../../contract/reply-schema.ts';

export const SPOT_FILLS_RESPONSES = okReplies(Type.Object({ fills: Type.Array(FillRecord), total: Type.Integer() }));

export const spotFills: Operation<typeof SPOT_FILLS_RESPONSES> = {
  name: 'spotFills',
  method: 'GET',
  path: '/v1/spotFills',
  auth: 'public',
  description: 'spot settlements of an account (none: perpetuals only)',
  schema: { querystring: accountQueryWith({ from: LIST_PARAMS.from, to: LIST_PARAMS.to, limit: LIST_PARAMS.limit }) },
  response: SPOT_FILLS_RESPONSES,
  errorSource: null,
  weight: 'spotFills',
  mutates: false,
  handle: (state, request) => {
    const window = windowOf(request.query, state.exchange.clock());
    if (isFilterReply(window)) return window;
    return ok({ fills: [], total: 0 });
  },
};
