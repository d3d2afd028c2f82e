/**
 * GET /v1/spotAssets — the venue's spot (stock-token) assets (public; public clients call it,
 * docs/decisions.md "Fidelity to the live venue"). perpsim simulates perpetuals only, margined
 * in one USD collateral, so the list is real and always empty: `{spotAssets: []}`.
 */
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

export const SPOT_ASSETS_RESPONSES = okReplies(Type.Object({ spotAssets: Type.Array(Type.Never()) }));

export const spotAssets: Operation<typeof SPOT_ASSETS_RESPONSES> = {
  name: 'spotAssets',
  method: 'GET',
  path: '/v1/spotAssets',
  auth: 'public',
  description: 'spot assets (none: perpetuals only)',
  schema: {},
  response: SPOT_ASSETS_RESPONSES,
  errorSource: null,
  weight: 'spotAssets',
  mutates: false,
  handle: () => ok({ spotAssets: [] }),
};
