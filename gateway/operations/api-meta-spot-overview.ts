/**
 * GET /v1/api-meta/spot/overview — the spot universe keyed by base asset. perpsim lists
 * perpetuals only, so the map is always empty: {}.
 */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';

export const apiMetaSpotOverview: Operation = {
  name: 'apiMetaSpotOverview',
  method: 'GET',
  path: '/v1/api-meta/spot/overview',
  auth: 'public',
  description: 'spot market overview (none)',
  handle: () => ok({}),
};
