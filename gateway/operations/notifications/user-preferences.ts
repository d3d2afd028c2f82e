/**
 * GET /v1/api-meta/userPreferences — a wallet's preferences (public, by address):
 * `{address, preferences}`, `{}` when it stored none. The document's keys and value types are in
 * gateway/services/preferences.ts.
 */
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { preferencesOf } from '../../services/preferences.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

/** The wallet's preferences document, written as stored (free-form JSON). */
export const PREFERENCES_RESPONSES = okReplies(Type.Object({ address: Type.String(), preferences: Type.Record(Type.String(), Type.Unknown()) }));

export const userPreferences: Operation<typeof PREFERENCES_RESPONSES> = {
  name: 'userPreferences',
  method: 'GET',
  path: '/v1/api-meta/userPreferences',
  auth: 'public',
  description: 'a wallet\'s preferences',
  schema: { querystring: AccountQuery },
  response: PREFERENCES_RESPONSES,
  errorSource: null,
  weight: 'userPreferences',
  mutates: false,
  handle: (state, request) => {
    const { address } = accountOf(request.query);
    return ok({ address, preferences: preferencesOf(state.preferences, address) });
  },
};
