/**
 * PATCH (or POST) /v1/api-meta/userPreferences — merge a partial preferences document into the
 * key's master wallet's (Scheme 2, action `userPreferences`): keys sent replace, null removes.
 * With no body and `?key=<name>` it removes that key (the venue's DELETE). Reply 200 `{address,
 * preferences}`; 400 for unknown keys, wrong types, an empty write or a document past 128 KB.
 * Choices: docs/decisions.md "Notifications and preferences".
 */
import { fail, ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { deletePreference, patchPreferences } from '../../services/preferences.ts';
import { isReply } from '../support/common.ts';
import { admitWalletPost, isRefusal, refused, walletContext } from '../support/wallet-signed.ts';
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
