/**
 * POST /v1/createApiKey — register (or renew) an Ed25519 API key for a wallet, authorized by the
 * wallet's EIP-712 `CreateApiKey` signature (any published form) or, for index 0, the legacy
 * EIP-191 message. Keys made here are trade-only; a key owned by another address is 409 whatever
 * its status; the nonce is single-use (shared with revokeApiKey); re-using an apiWalletName
 * revokes the older key (keys.ts). Reply 202.
 * Spec: interface.md Onboarding and keys, Authentication rules 4-5; supplement §5, §11, §12.
 * Checks run in the order `handle` calls them (400 → 401 → 409 → registration).
 * perpsim's choices: docs/decisions.md "Account-write operations".
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import { normalizeAddress, recoverApiKeyCreator } from '../../auth/index.ts';
import { fail, ok } from '../../contract/errors.ts';
import { registerKey } from '../../auth/keys.ts';
import { spendNonce } from '../../auth/nonces.ts';
import type { Operation } from '../../contract/operation.ts';
import { API_PUBLIC_KEY, API_WALLET_NAME, apiKeyOf, checkKeyWallet, KEY_ACCOUNT_INDEX, KEY_NONCE, WALLET_SIGNATURE } from '../support/account-writes-common.ts';
import { ADDRESS_PATTERN, isReply } from '../support/common.ts';
import { REFUSALS } from '../../contract/reply-schema.ts';

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
