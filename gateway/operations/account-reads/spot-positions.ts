/**
 * GET /v1/spotPositions — an account's spot balances (per address, like /v1/positions).
 *
 * Query as every account read: `address` required (400 when malformed), `accountIndex` 0-9
 * (default 0). Reply `{spotPositions: {}, total: 0}`: a map by asset, the shape the account
 * record's `spotPositions` has on the live venue (a client refuses a non-map there), and the
 * total like the perpetual positions reply. perpsim has no spot assets, so every account is
 * perps-only and the map is empty (docs/decisions.md "Fidelity to the live venue").
 */
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { AccountQuery } from '../support/common.ts';
import { Type } from 'typebox';
import { okReplies, mapOf } from '../../contract/reply-schema.ts';

export const SPOT_POSITIONS_RESPONSES = okReplies(Type.Object({ spotPositions: mapOf(Type.Never()), total: Type.Integer() }));

export const spotPositions: Operation<typeof SPOT_POSITIONS_RESPONSES> = {
  name: 'spotPositions',
  method: 'GET',
  path: '/v1/spotPositions',
  auth: 'public',
  description: 'spot balances of an account (none: perpetuals only)',
  schema: { querystring: AccountQuery },
  response: SPOT_POSITIONS_RESPONSES,
  errorSource: null,
  weight: 'spotPositions',
  mutates: false,
  handle: () => ok({ spotPositions: {}, total: 0 }),
};
