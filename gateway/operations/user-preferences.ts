/**
 * GET /v1/api-meta/userPreferences — a wallet's preferences (public, by address):
 * `{address, preferences}`, `{}` when it stored none. The document's keys and value types are in
 * gateway/preferences.ts.
 */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';
import { preferencesOf } from '../preferences.ts';
import { AccountQuery, accountOf } from './common.ts';

export const userPreferences: Operation = {
  name: 'userPreferences',
  method: 'GET',
  path: '/v1/api-meta/userPreferences',
  auth: 'public',
  description: 'a wallet\'s preferences',
  schema: { querystring: AccountQuery },
  handle: (state, request) => {
    const { address } = accountOf(request.query);
    return ok({ address, preferences: preferencesOf(state.preferences, address) });
  },
};
