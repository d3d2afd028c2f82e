/**
 * POST /v1/revokeApiKey — revoke one of a wallet's API keys, authorized by the wallet's EIP-712
 * `RevokeApiKey` signature (perpsim's type: the venue's is unpublished, eip712.ts) or, for index
 * 0, the legacy EIP-191 message. The nonce is single-use, shared with createApiKey. A revoked
 * key answers 401 on every signed request from then on.
 * Spec: interface.md Onboarding and keys, Authentication rule 5; supplement §5, §12.
 * Checks run in the order `handle` calls them (400 → 401 → 409 → 404 → revocation).
 * perpsim's choices: docs/decisions.md "Account-write operations".
 */
import { Type, type Static } from 'typebox';
import { normalizeAddress, recoverApiKeyRevoker } from '../../auth/index.ts';
import { fail, ok } from '../../contract/errors.ts';
import { revokeKey } from '../../auth/keys.ts';
import { spendNonce } from '../../auth/nonces.ts';
import type { Operation } from '../../contract/operation.ts';
import { API_PUBLIC_KEY, API_WALLET_NAME, apiKeyOf, checkKeyWallet, KEY_ACCOUNT_INDEX, KEY_NONCE, WALLET_SIGNATURE } from '../support/account-writes-common.ts';
import { ADDRESS_PATTERN, isReply } from '../support/common.ts';
import { okReplies } from '../../contract/reply-schema.ts';

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
