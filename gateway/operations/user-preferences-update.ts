/**
 * PATCH (or POST) /v1/api-meta/userPreferences — writes preferences of the key's master wallet
 * (signed, Scheme 2: `timestamp + "userPreferences" + canonical_json(body)`).
 *
 * Body: a partial preferences document (gateway/services/preferences.ts): the keys sent replace the stored
 * ones, a key sent as null is removed; an `address` member only names the wallet (it must be the
 * key's). With no body and `?key=<name>` the request removes that key: the venue's DELETE, which
 * perpsim also answers on this path (signed over `timestamp + "userPreferences"`).
 * Reply 200 `{address, preferences}` (the whole document after the write); 400 for unknown keys,
 * values of the wrong type, an empty write or a document past 128 KB.
 */
import { fail, ok } from '../contract/errors.ts';
import type { Operation } from '../contract/operation.ts';
import { deletePreference, patchPreferences } from '../services/preferences.ts';
import { isReply } from './common.ts';
import { admitWalletPost, isRefusal, refused, walletContext } from './wallet-signed.ts';
import { PREFERENCES_RESPONSES } from './user-preferences.ts';

export const userPreferencesUpdate: Operation<typeof PREFERENCES_RESPONSES> = {
  name: 'userPreferencesUpdate',
  method: 'POST',
  alsoMethods: ['PATCH', 'DELETE'],
  path: '/v1/api-meta/userPreferences',
  auth: 'signed',
  description: 'write a wallet\'s preferences (PATCH; DELETE with ?key= removes one)',
  schema: {},
  response: PREFERENCES_RESPONSES,
  errorSource: null,
  weight: 'userPreferencesUpdate',
  mutates: true,
  handle: (state, request) => {
    const ctx = walletContext(state, request, true);
    if (isReply(ctx)) return ctx;
    const body = request.body;
    const key = request.query.key;
    if (body === undefined && typeof key !== 'string') return fail(400, 'send a preferences object, or ?key= to remove one');
    return admitWalletPost(state, request, ctx, 'userPreferences', () => {
      const store = state.preferences;
      let patch = body;
      if (patch !== null && typeof patch === 'object' && !Array.isArray(patch) && 'address' in patch) {
        const { address: _named, ...rest } = patch as Record<string, unknown>;
        patch = rest;
      }
      const written = body === undefined ? deletePreference(store, ctx.address, key as string) : patchPreferences(store, ctx.address, patch);
      return isRefusal(written) ? refused(written) : ok({ address: ctx.address, preferences: written });
    });
  },
};
