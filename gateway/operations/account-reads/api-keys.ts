/**
 * GET /v1/apiKeys — the address's API keys, revoked ones included (status DELETED), oldest
 * first. Auth `key`: a presented X-API-Key must be an active key of `address` (401 / 403; a
 * single-subaccount key reads only its own index); without the header the read is public, as
 * live. With `accountIndex`, that subaccount's keys and the all-subaccount keys.
 * Spec: interface.md (auth `key`); supplement §5. Keyless reads: docs/decisions.md "Fidelity to
 * the live venue".
 */
import { fail, ok } from '../../contract/errors.ts';
import { keysOf, type ApiKeyRecord } from '../../auth/keys.ts';
import type { Operation } from '../../contract/operation.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { Type, type Static } from 'typebox';
import { okReplies, stringEnum } from '../../contract/reply-schema.ts';
import { API_KEY_STATUSES } from '../../../engine/spec.ts';

export type ApiKeyRow = Static<typeof ApiKeyRowSchema>;

export type ApiKeysReply = Static<(typeof API_KEYS_RESPONSES)[200]>;

export function apiKeyRow(k: ApiKeyRecord): ApiKeyRow {
  return {
    apiKey: k.apiKey,
    address: k.address,
    allSubaccounts: k.accountIndex === undefined,
    ...(k.accountIndex === undefined ? {} : { accountIndex: k.accountIndex }),
    apiWalletName: k.apiWalletName,
    status: k.status,
    permissions: [...k.permissions],
    validUntil: k.validUntil,
    createdAt: k.createdAt,
  };
}

const API_KEY = /^[0-9a-fA-F]{64}$/;

/** A key row, fields in the order `apiKeyRow` writes them. */
export const ApiKeyRowSchema = Type.Object({
  apiKey: Type.String(),
  address: Type.String(),
  allSubaccounts: Type.Boolean(),
  accountIndex: Type.Optional(Type.Integer()),
  apiWalletName: Type.String(),
  status: stringEnum(API_KEY_STATUSES),
  permissions: Type.Array(Type.String()),
  validUntil: Type.Number(),
  createdAt: Type.Number(),
});
export const API_KEYS_RESPONSES = okReplies(Type.Object({ apiKeys: Type.Array(ApiKeyRowSchema) }));

export const apiKeys: Operation<typeof API_KEYS_RESPONSES> = {
  name: 'apiKeys',
  method: 'GET',
  path: '/v1/apiKeys',
  auth: 'key',
  description: 'api keys of an address',
  schema: { querystring: AccountQuery },
  response: API_KEYS_RESPONSES,
  errorSource: null,
  weight: 'apiKeys',
  mutates: false,
  handle: (state, request) => {
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    const ref = accountOf(request.query);
    const wanted = request.query.accountIndex === undefined ? undefined : ref.accountIndex;
    if (presented !== undefined) {
      if (!API_KEY.test(presented)) return fail(401, 'missing or invalid key');
      const key = state.keys.byKey.get(presented.toLowerCase());
      if (key === undefined || key.status !== 'ACTIVE' || (key.validUntil !== 0 && key.validUntil < state.nowMs())) return fail(401, 'invalid api key');
      if (key.address !== ref.address) return fail(403, 'address does not match the api key');
      if (key.accountIndex !== undefined && wanted !== undefined && key.accountIndex !== wanted) return fail(403, 'accountIndex not allowed for this api key');
    }
    const rows = keysOf(state.keys, ref.address, wanted)
      .sort((a, b) => a.createdAt - b.createdAt || (a.apiKey < b.apiKey ? -1 : a.apiKey > b.apiKey ? 1 : 0))
      .map(apiKeyRow);
    return ok({ apiKeys: rows } satisfies ApiKeysReply);
  },
};
