/**
 * GET /v1/spotAssets — the venue's spot (stock-token) assets (public; public clients call it,
 * docs/decisions.md "Fidelity to the live venue"). perpsim simulates perpetuals only, margined
 * in one USD collateral, so the list is real and always empty: `{spotAssets: []}`.
 */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';

export const spotAssets: Operation = {
  name: 'spotAssets',
  method: 'GET',
  path: '/v1/spotAssets',
  auth: 'public',
  description: 'spot assets (none: perpetuals only)',
  handle: () => ok({ spotAssets: [] }),
};
