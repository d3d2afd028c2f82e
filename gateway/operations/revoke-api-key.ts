/**
 * POST /v1/revokeApiKey — revoke one of a wallet's API keys (public, wallet-signed).
 *
 * Contract (interface.md Onboarding and keys, Authentication rule 5; supplement §5, §12 "Key
 * signatures"): body `address, publicKey, apiWalletName, signature`, optional `accountIndex`
 * (0-9 or 255, default 0) and `nonce` (single-use, shared with createApiKey: 409 on replay).
 * The signature is the wallet's EIP-712 `RevokeApiKey` (perpsim's type, the venue's being
 * unpublished: eip712.ts, docs/decisions.md) or the legacy EIP-191 personal_sign of
 * `{"apiWalletName":…,"apiWalletPublicKey":…}` (index 0 only); a signer other than `address`
 * is 401. Reply `{apiKey, address, revokedAt (µs), accountIndex}`. A revoked key answers 401
 * on every signed request from then on.
 *
 * Order of checks: body schema (400) → nonce format (400) → signature shape (400) → signer
 * (401) → nonce replay (409) → the key (404) → revocation.
 *
 * perpsim's choices (the venue's reply status and edge cases are unpublished):
 * - HTTP 200: the key is revoked at once (no ingest delay is simulated).
 * - The key is identified by `publicKey` alone; `apiWalletName` and `accountIndex` are covered
 *   by the signature but not matched against the stored key.
 * - A key that does not exist, or belongs to another address, is 404 `api key not found`.
 * - Revoking an already revoked key succeeds again (idempotent), with the new time.
 * - `accountIndex` echoes the request's value (default 0; 255 = every subaccount).
 * - The nonce is validated like createApiKey's (a nanosecond time within −48 h / +24 h, or a
 *   UUID) and spent only on success.
 */
import { Type, type Static } from 'typebox';
import { normalizeAddress, recoverApiKeyRevoker } from '../auth/index.ts';
import { fail, ok } from '../contract/errors.ts';
import { revokeKey } from '../auth/keys.ts';
import { spendNonce } from '../auth/nonces.ts';
import type { Operation } from '../contract/operation.ts';
import { API_PUBLIC_KEY, API_WALLET_NAME, apiKeyOf, checkKeyWallet, KEY_ACCOUNT_INDEX, KEY_NONCE, WALLET_SIGNATURE } from './account-writes-common.ts';
import { ADDRESS_PATTERN, isReply } from './common.ts';
import { okReplies } from '../contract/reply-schema.ts';

export const RevokeApiKeyBody = Type.Object(
  {
    address: Type.String({ pattern: ADDRESS_PATTERN }),
    publicKey: API_PUBLIC_KEY,
    apiWalletName: API_WALLET_NAME,
    signature: WALLET_SIGNATURE,
    accountIndex: Type.Optional(KEY_ACCOUNT_INDEX),
    nonce: Type.Optional(KEY_NONCE),
  },
  { additionalProperties: true },
);

export interface RevokeApiKeyBody {
  address: string;
  publicKey: string;
  apiWalletName: string;
  signature: unknown;
  accountIndex?: number;
  nonce?: string;
}

export type RevokeApiKeyReply = Static<(typeof REVOKE_API_KEY_RESPONSES)[200]>;

export const REVOKE_API_KEY_RESPONSES = okReplies(
  Type.Object({ apiKey: Type.String(), address: Type.String(), revokedAt: Type.Number(), accountIndex: Type.Integer() }),
);

export const revokeApiKey: Operation<typeof REVOKE_API_KEY_RESPONSES> = {
  name: 'revokeApiKey',
  method: 'POST',
  path: '/v1/revokeApiKey',
  auth: 'wallet',
  description: 'revoke an API key (wallet-signed)',
  schema: { body: RevokeApiKeyBody },
  response: REVOKE_API_KEY_RESPONSES,
  errorSource: null,
  weight: 'revokeApiKey',
  mutates: true,
  handle: async (state, request) => {
    const body = request.body as RevokeApiKeyBody;
    const address = normalizeAddress(body.address);
    if (address === null) return fail(400, 'invalid address');
    const accountIndex = body.accountIndex ?? 0;
    const checked = await checkKeyWallet(state, address, body, (signature, nonce, chainId) =>
      recoverApiKeyRevoker({ apiWalletName: body.apiWalletName, apiWalletPublicKey: body.publicKey, accountIndex, nonce }, signature, chainId, address),
    );
    if (isReply(checked)) return checked;
    const { nonce } = checked;
    const apiKey = apiKeyOf(body.publicKey);
    const existing = state.keys.byKey.get(apiKey);
    if (existing === undefined || existing.address !== address) return fail(404, 'api key not found');
    if (nonce !== undefined) spendNonce(state, address, nonce);
    revokeKey(state.keys, apiKey);
    const reply: RevokeApiKeyReply = { apiKey, address, revokedAt: state.exchange.clock(), accountIndex };
    return ok(reply);
  },
};
