/**
 * GET /v1/spotFills — an account's spot settlements (per address, like /v1/fills).
 *
 * Query: `address`, `accountIndex`, `from`/`to` (epoch µs, inclusive, validated as on every
 * history read: `from` after `to` is 400) and `limit`. Reply `{fills: [], total: 0}`, the
 * fills reply's shape; perpsim has no spot assets, so there is nothing to list
 * (docs/decisions.md "Fidelity to the live venue").
 */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';
import { accountQueryWith, isFilterReply, LIST_PARAMS, windowOf } from './read-filters.ts';

export const spotFills: Operation = {
  name: 'spotFills',
  method: 'GET',
  path: '/v1/spotFills',
  auth: 'public',
  description: 'spot settlements of an account (none: perpetuals only)',
  schema: { querystring: accountQueryWith({ from: LIST_PARAMS.from, to: LIST_PARAMS.to, limit: LIST_PARAMS.limit }) },
  handle: (state, request) => {
    const window = windowOf(request.query, state.exchange.clock());
    if (isFilterReply(window)) return window;
    return ok({ fills: [], total: 0 });
  },
};
