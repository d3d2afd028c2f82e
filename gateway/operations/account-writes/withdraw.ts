/**
 * POST /v1/withdraw — collateral out of a subaccount to the wallet that owns it, authorized by
 * the wallet's EIP-712 `Withdraw` signature or, when X-API-Key is present, by a key with the
 * withdraw permission signing Scheme 1 op 5. `amount` is an integer string of quote quantums,
 * at least 1 USD and whole collateral base units; `nonce` is single-use per wallet (shared with
 * transfer). Reply 202 PENDING; the outcome follows on accountTransferUpdates.
 * Spec: interface.md Order management "withdraw", Authentication rule 5; supplement §1 op 5, §5,
 * §13. Checks run in the order `handle` calls them (400 → 401/403 → 409 → the engine).
 * perpsim's choices: docs/decisions.md "Account-write operations".
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import { AUTH_ERRORS, normalizeAddress, recoverWithdrawSigner } from '../../auth/index.ts';
import { sequenced, walletKey } from '../../auth/sequencer.ts';
import { fail, ok, type Refusal } from '../../contract/errors.ts';
import type { GatewayState, Operation, OperationRequest } from '../../contract/operation.ts';
import { isReplayed, takeReplaySlot } from '../../auth/replay.ts';
import {
  parseQuantums,
  QUANTUMS,
  QUANTUMS_PER_COLLATERAL_UNIT,
  SUBACCOUNT,
  TRANSFER_NONCE,
  WALLET_SIGNATURE,
  walletSignature,
} from '../support/account-writes-common.ts';
import { ADDRESS_PATTERN, isReply, parseAddress, signedContext, verifyScheme1Signature } from '../support/common.ts';
import { REFUSALS } from '../../contract/reply-schema.ts';

export const WithdrawBody = Type.Object(
  {
    ethereumAddress: Type.String({ pattern: ADDRESS_PATTERN }),
    amount: QUANTUMS,
    nonce: TRANSFER_NONCE,
    signature: Type.Optional(WALLET_SIGNATURE),
    accountIndex: Type.Optional(SUBACCOUNT),
    spotAssetId: Type.Optional(Type.Integer({ minimum: 0 })),
    address: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export interface WithdrawBody {
  ethereumAddress: string;
  amount: string | number;
  nonce: string;
  signature?: unknown;
  accountIndex?: number;
  spotAssetId?: number;
  address?: string;
}

export type WithdrawReply = Static<(typeof WITHDRAW_RESPONSES)[202]>;

interface Withdrawal {
  address: string;
  accountIndex: number;
  amount: bigint;
  nonce: string;
}

/** The key form: header triple, withdraw permission, Scheme 1 op 5 over the parsed values. */
/** The key form's replay slot (its signature) once authorized, or the refusal. */
async function authorizeByKey(state: GatewayState, request: OperationRequest, body: WithdrawBody, w: Withdrawal): Promise<string | Refusal> {
  if (body.address !== undefined && parseAddress(body.address) !== w.address) return fail(403, 'withdrawals go to the signer\'s own address only');
  const ctx = signedContext(state, { ...request, body: { ...body, address: w.address } }, w.accountIndex, 'withdraw');
  if (isReply(ctx)) return ctx;
  const verified = await verifyScheme1Signature(state, ctx.key.apiKey, ctx.headers.signature, 5, {
    address: w.address,
    accountIndex: w.accountIndex,
    clientTimeNs: ctx.headers.timestampNs,
    nonce: w.nonce,
    amountQuantums: w.amount,
  });
  if (!verified) return fail(AUTH_ERRORS.invalidSignature.status, AUTH_ERRORS.invalidSignature.error);
  return ctx.headers.signature;
}

/** The wallet form: EIP-712 Withdraw signed by `ethereumAddress` itself. */
async function authorizeByWallet(state: GatewayState, body: WithdrawBody, w: Withdrawal): Promise<Refusal | null> {
  if (body.signature === undefined) return fail(AUTH_ERRORS.missingSignature.status, AUTH_ERRORS.missingSignature.error);
  const signature = walletSignature(body.signature);
  if (typeof signature !== 'string') return signature;
  if (body.address !== undefined && parseAddress(body.address) !== w.address) return fail(403, 'withdrawals go to the signer\'s own address only');
  if (!state.config.auth) return null;
  const network = state.network;
  if (network.verifyingContract === null) return fail(500, 'withdrawals are not configured on this network (no verifyingContract)', { errorType: 'Internal' });
  const signer = await recoverWithdrawSigner({ ethereumAddress: w.address, accountIndex: w.accountIndex, amount: w.amount, nonce: w.nonce }, signature, network);
  // A well-shaped signature that recovers no key (null) is as invalid as another wallet's.
  return signer === w.address ? null : fail(AUTH_ERRORS.invalidSignature.status, AUTH_ERRORS.invalidSignature.error);
}

export const WITHDRAW_RESPONSES = {
  202: Type.Object({
    withdrawalId: Type.String(),
    ethereumAddress: Type.String(),
    accountIndex: Type.Integer(),
    amount: Type.String(),
    status: Type.Literal('PENDING'),
    submittedAt: Type.Number(),
  }),
  ...REFUSALS,
} as const;

export const withdraw: Operation<typeof WITHDRAW_RESPONSES> = {
  name: 'withdraw',
  method: 'POST',
  path: '/v1/withdraw',
  auth: 'wallet',
  description: 'withdraw collateral to the owning wallet',
  schema: { body: WithdrawBody },
  response: WITHDRAW_RESPONSES,
  errorSource: null,
  weight: 'withdraw',
  mutates: true,
  handle: async (state, request) => {
    const body = request.body as WithdrawBody;
    const address = normalizeAddress(body.ethereumAddress);
    if (address === null) return fail(400, 'invalid ethereumAddress');
    const amount = parseQuantums(body.amount);
    if (amount === null) return fail(400, 'amount must be an integer number of quote quantums');
    if (amount < LIMITS.minWithdrawalQuantums) return fail(400, 'withdrawal below the minimum of 1000000000 quote quantums (1 USD)');
    if (amount % QUANTUMS_PER_COLLATERAL_UNIT !== 0n) return fail(400, `amount must be a multiple of ${QUANTUMS_PER_COLLATERAL_UNIT} quote quantums (one collateral base unit)`);
    if (body.spotAssetId !== undefined && body.spotAssetId !== 0) return fail(400, 'unknown spotAssetId: only the quote collateral (0) can be withdrawn');
    const w: Withdrawal = { address, accountIndex: body.accountIndex ?? 0, amount, nonce: body.nonce };
    const authorize = async (): Promise<string | Refusal | null> => (request.headers['x-api-key'] !== undefined ? authorizeByKey(state, request, body, w) : authorizeByWallet(state, body, w));
    return sequenced(state, walletKey(address), authorize, (authorized) => {
      if (authorized !== null && typeof authorized !== 'string') return authorized;
      if (typeof authorized === 'string') {
        if (isReplayed(state, authorized)) return fail(409, 'replayed request');
        takeReplaySlot(state, authorized);
      }
      const result = state.exchange.submit({ type: 'withdraw', address, accountIndex: w.accountIndex, amount, nonce: w.nonce });
      if (result.kind === 'conflict') return fail(409, result.error);
      if (result.kind === 'invalid') return fail(400, result.error);
      const reply: WithdrawReply = {
        withdrawalId: String(result.operationId),
        ethereumAddress: address,
        accountIndex: w.accountIndex,
        amount: amount.toString(),
        status: 'PENDING',
        submittedAt: state.exchange.clock(),
      };
      return ok(reply, 202);
    });
  },
};
