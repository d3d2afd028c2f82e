/**
 * POST /v1/transfer — collateral between two subaccounts of one wallet, authorized by the
 * wallet's EIP-712 `Transfer` signature (no API key). `amount` is a positive integer string of
 * quote quantums; `nonce` is single-use per wallet (shared with withdraw). Reply 202 PENDING;
 * a transferOut row and, on completion, a transferIn row follow on accountTransferUpdates with
 * the same operation id.
 * Spec: interface.md Order management "withdraw" row (internal transfer); supplement §5.
 * Checks run in the order `handle` calls them (400 → 401 → the engine, nonce 409).
 * perpsim's choices: docs/decisions.md "Account-write operations".
 */
import { Type, type Static } from 'typebox';
import { AUTH_ERRORS, normalizeAddress, recoverTransferSigner } from '../../auth/index.ts';
import { sequenced, walletKey } from '../../auth/sequencer.ts';
import { fail, ok, type Refusal } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { parseQuantums, QUANTUMS, SUBACCOUNT, TRANSFER_NONCE, WALLET_SIGNATURE, walletSignature } from '../support/account-writes-common.ts';
import { ADDRESS_PATTERN } from '../support/common.ts';
import { REFUSALS } from '../../contract/reply-schema.ts';

export const TransferBody = Type.Object(
  {
    ethereumAddress: Type.String({ pattern: ADDRESS_PATTERN }),
    fromAccountIndex: SUBACCOUNT,
    toAccountIndex: SUBACCOUNT,
    amount: QUANTUMS,
    nonce: TRANSFER_NONCE,
    signature: WALLET_SIGNATURE,
  },
  { additionalProperties: true },
);

export interface TransferBody {
  ethereumAddress: string;
  fromAccountIndex: number;
  toAccountIndex: number;
  amount: string | number;
  nonce: string;
  signature: unknown;
}

export type TransferReply = Static<(typeof TRANSFER_RESPONSES)[202]>;

export const TRANSFER_RESPONSES = {
  202: Type.Object({
    transferId: Type.String(),
    ethereumAddress: Type.String(),
    fromAccountIndex: Type.Integer(),
    toAccountIndex: Type.Integer(),
    amount: Type.String(),
    status: Type.Literal('PENDING'),
    submittedAt: Type.Number(),
  }),
  ...REFUSALS,
} as const;

export const transfer: Operation<typeof TRANSFER_RESPONSES> = {
  name: 'transfer',
  method: 'POST',
  path: '/v1/transfer',
  auth: 'wallet',
  description: 'transfer collateral between two subaccounts of a wallet',
  schema: { body: TransferBody },
  response: TRANSFER_RESPONSES,
  errorSource: null,
  weight: 'transfer',
  mutates: true,
  handle: async (state, request) => {
    const body = request.body as TransferBody;
    const address = normalizeAddress(body.ethereumAddress);
    if (address === null) return fail(400, 'invalid ethereumAddress');
    if (body.fromAccountIndex === body.toAccountIndex) return fail(400, 'fromAccountIndex and toAccountIndex must differ');
    const amount = parseQuantums(body.amount);
    if (amount === null || amount === 0n) return fail(400, 'amount must be a positive integer number of quote quantums');
    const signature = walletSignature(body.signature);
    if (typeof signature !== 'string') return signature;
    const authorize = async (): Promise<Refusal | null> => {
      if (state.config.auth) {
        const network = state.network;
        if (network.verifyingContract === null) return fail(500, 'transfers are not configured on this network (no verifyingContract)', { errorType: 'Internal' });
        const signer = await recoverTransferSigner(
          { ethereumAddress: address, fromAccountIndex: body.fromAccountIndex, toAccountIndex: body.toAccountIndex, amount, nonce: body.nonce },
          signature,
          network,
        );
        if (signer !== address) return fail(AUTH_ERRORS.invalidSignature.status, AUTH_ERRORS.invalidSignature.error);
      }
      return null;
    };
    return sequenced(state, walletKey(address), authorize, (refused) => {
      if (refused !== null) return refused;
      const result = state.exchange.submit({
        type: 'transfer',
        address,
        fromAccountIndex: body.fromAccountIndex,
        toAccountIndex: body.toAccountIndex,
        amount,
        nonce: body.nonce,
      });
      if (result.kind === 'conflict') return fail(409, result.error);
      if (result.kind === 'invalid') return fail(400, result.error);
      const reply: TransferReply = {
        transferId: String(result.operationId),
        ethereumAddress: address,
        fromAccountIndex: body.fromAccountIndex,
        toAccountIndex: body.toAccountIndex,
        amount: amount.toString(),
        status: 'PENDING',
        submittedAt: state.exchange.clock(),
      };
      return ok(reply, 202);
    });
  },
};
