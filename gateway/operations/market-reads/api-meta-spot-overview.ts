/**
 * GET /v1/api-meta/spot/overview — the spot universe keyed by base asset. perpsim lists
 * perpetuals only, so the map is always empty: {}.
 */
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { Type } from 'typebox';
import { mapOf, okReplies } from '../../contract/reply-schema.ts';

export const API_META_SPOT_OVERVIEW_RESPONSES = okReplies(mapOf(Type.Never()));

export const apiMetaSpotOverview: Operation<typeof API_META_SPOT_OVERVIEW_RESPONSES> = {
  name: 'apiMetaSpotOverview',
  method: 'GET',
  path: '/v1/api-meta/spot/overview',
  auth: 'public',
  description: 'spot market overview (none)',
  schema: {},
  response: API_META_SPOT_OVERVIEW_RESPONSES,
  errorSource: null,
  weight: 'apiMetaSpotOverview',
  mutates: false,
  handle: () => ok({}),
};
