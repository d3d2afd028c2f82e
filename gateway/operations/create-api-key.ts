/**
 * POST /v1/createApiKey — register an Ed25519 API key for a wallet (public, wallet-signed).
 *
 * Contract (interface.md Onboarding and keys, Authentication rules 4-5; supplement §5, §11,
 * §12 "Key signatures"): body `address, publicKey` (64 hex), `apiWalletName` (1-64),
 * `signature` `{r, s, v}`, optional `accountIndex` (0-9, or 255 for every subaccount; default
 * 0), `validUntil` (epoch ms in [now + 1 day, now + 180 days]; default now + 14 days) and
 * `nonce` (at most 64 characters: a nanosecond time within −48 h / +24 h, or a UUID;
 * single-use). The signature is the wallet's EIP-712 `CreateApiKey` (domain `{name: "Arcus
 * API Key", version: "1", chainId}`, no verifyingContract; any of its published forms) or the
 * legacy EIP-191 personal_sign of `{"apiWalletName":…,"apiWalletPublicKey":…,"validUntil":N}`
 * (index 0 only). Keys created here are trade-only. Re-registering a key the wallet already
 * owns renews it (new validUntil, scope, name); a key registered to another address is 409,
 * even when expired or revoked. Re-creating under an apiWalletName the wallet already uses
 * revokes the older key (keys.ts).
 *
 * Reply 202 `{apiKey, address, createdAt (µs), allSubaccounts, accountIndex (single-index keys
 * only), validUntil (ms)}`. Errors: 400 (shape, validUntil or nonce out of range, malformed
 * signature), 401 (signer ≠ address), 409 (key owned elsewhere, nonce replay).
 *
 * Order of checks: body schema (400) → validUntil, nonce format (400) → signature shape (400)
 * → signer (401) → nonce replay (409) → key owned elsewhere (409) → registration.
 *
 * perpsim's choices:
 * - A request without `validUntil` is verified against `validUntil` 0 in the signed message
 *   (the client cannot know the server's default), and the key gets now + 14 days.
 * - The key is usable at once (the venue's short ingest is not simulated).
 * - A renewal through this route is trade-only too (an operator-granted withdraw permission
 *   is not carried over), and `createdAt` is the renewal's time.
 * - `apiKey` is echoed lowercase without `0x`; `address` lowercase.
 * - Time: `createdAt` is the engine clock (µs); validUntil bounds use the gateway's wall clock
 *   (ms), the clock key expiry is checked against.
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../engine/spec.ts';
import { normalizeAddress, recoverApiKeyCreator } from '../auth/index.ts';
import { fail, ok } from '../contract/errors.ts';
import { registerKey } from '../auth/keys.ts';
import { spendNonce } from '../auth/nonces.ts';
import type { Operation } from '../contract/operation.ts';
import { API_PUBLIC_KEY, API_WALLET_NAME, apiKeyOf, checkKeyWallet, KEY_ACCOUNT_INDEX, KEY_NONCE, WALLET_SIGNATURE } from './account-writes-common.ts';
import { ADDRESS_PATTERN, isReply } from './common.ts';
import { REFUSALS } from '../contract/reply-schema.ts';

const DAY_MS = 86_400_000;
/** validUntil bounds and default (supplement §5). */
export const KEY_VALIDITY = { minMs: DAY_MS, maxMs: 180 * DAY_MS, defaultMs: 14 * DAY_MS } as const;

export const CreateApiKeyBody = Type.Object(
  {
    address: Type.String({ pattern: ADDRESS_PATTERN }),
    publicKey: API_PUBLIC_KEY,
    apiWalletName: API_WALLET_NAME,
    signature: WALLET_SIGNATURE,
    accountIndex: Type.Optional(KEY_ACCOUNT_INDEX),
    validUntil: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,16}$' })])),
    nonce: Type.Optional(KEY_NONCE),
  },
  { additionalProperties: true },
);

export interface CreateApiKeyBody {
  address: string;
  publicKey: string;
  apiWalletName: string;
  signature: unknown;
  accountIndex?: number;
  validUntil?: number | string;
  nonce?: string;
}

export type CreateApiKeyReply = Static<(typeof CREATE_API_KEY_RESPONSES)[202]>;

export const CREATE_API_KEY_RESPONSES = {
  202: Type.Object({
    apiKey: Type.String(),
    address: Type.String(),
    createdAt: Type.Number(),
    allSubaccounts: Type.Boolean(),
    accountIndex: Type.Optional(Type.Integer()),
    validUntil: Type.Number(),
  }),
  ...REFUSALS,
} as const;

export const createApiKey: Operation<typeof CREATE_API_KEY_RESPONSES> = {
  name: 'createApiKey',
  method: 'POST',
  path: '/v1/createApiKey',
  auth: 'wallet',
  description: 'register an API key (wallet-signed)',
  schema: { body: CreateApiKeyBody },
  response: CREATE_API_KEY_RESPONSES,
  errorSource: null,
  weight: 'createApiKey',
  mutates: true,
  handle: async (state, request) => {
    const body = request.body as CreateApiKeyBody;
    const address = normalizeAddress(body.address);
    if (address === null) return fail(400, 'invalid address');
    const accountIndex = body.accountIndex ?? 0;
    const nowMs = state.nowMs();
    const signedValidUntil = body.validUntil === undefined ? 0 : Number(body.validUntil);
    const validUntil = body.validUntil === undefined ? nowMs + KEY_VALIDITY.defaultMs : signedValidUntil;
    if (validUntil < nowMs + KEY_VALIDITY.minMs || validUntil > nowMs + KEY_VALIDITY.maxMs) {
      return fail(400, 'validUntil must be between 1 and 180 days from now (epoch milliseconds)');
    }
    const checked = await checkKeyWallet(state, address, body, (signature, nonce, chainId) =>
      recoverApiKeyCreator(
        { apiWalletName: body.apiWalletName, apiWalletPublicKey: body.publicKey, validUntil: BigInt(signedValidUntil), accountIndex, nonce },
        signature,
        chainId,
        address,
      ),
    );
    if (isReply(checked)) return checked;
    const { nonce } = checked;
    const apiKey = apiKeyOf(body.publicKey);
    const existing = state.keys.byKey.get(apiKey);
    if (existing !== undefined && existing.address !== address) return fail(409, 'api key is registered to another address');
    if (nonce !== undefined) spendNonce(state, address, nonce);
    const all = accountIndex === LIMITS.allSubaccountsIndex;
    const record = registerKey(state.keys, {
      apiKey,
      address,
      accountIndex: all ? undefined : accountIndex,
      apiWalletName: body.apiWalletName,
      permissions: ['trade'],
      validUntil,
      createdAt: state.exchange.clock(),
    });
    // Fields in the order supplement §5 lists them; accountIndex only on single-index keys.
    const reply: CreateApiKeyReply = all
      ? { apiKey: record.apiKey, address, createdAt: record.createdAt, allSubaccounts: true, validUntil: record.validUntil }
      : { apiKey: record.apiKey, address, createdAt: record.createdAt, allSubaccounts: false, accountIndex, validUntil: record.validUntil };
    return ok(reply, 202);
  },
};
