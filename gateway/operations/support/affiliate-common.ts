/**
 * What the affiliate routes share (/v1/affiliate/*, /v1/commissionrates): body and query
 * schemas, the code parameter, record formats (money USD strings, times epoch µs, rates bps; a
 * claim `{claimId, address, accountIndex, amount, status, operationId, createdAt,
 * rejectReason}`) and "has this wallet traded yet".
 * Spec: interface.md shows only the submit acknowledgement and the rate schedule; perpsim's
 * shapes: docs/decisions.md "Affiliate program".
 */
import { Type, type Static } from 'typebox';
import { lifetimeVolume } from '../../../engine/index.ts';
import { fail, type Refusal } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import type { GatewayState } from '../../contract/operation.ts';
import { normalizeCode, type Claim } from '../../services/referral.ts';
import { ADDRESS_PATTERN } from './common.ts';
import { accountQueryWith, LIST_PARAMS } from './read-filters.ts';
import { nullable, okReplies, REFUSALS } from '../../contract/reply-schema.ts';

/** 1-32 characters of A-Z 0-9 _ - (lowercase letters are taken in upper case). */
export const AFFILIATE_CODE = Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_-]{1,32}$' });

/** Body of the affiliate POSTs that name a code: address and code. */
export const AddressCodeBody = Type.Object(
  { address: Type.String({ pattern: ADDRESS_PATTERN }), code: AFFILIATE_CODE },
  { additionalProperties: true },
);

/** Query of the paged affiliate reads: address, from, to (epoch µs), limit. */
export const AffiliateListQuery = accountQueryWith({ from: LIST_PARAMS.from, to: LIST_PARAMS.to, limit: LIST_PARAMS.limit });

/** The code in stored case, or the 400 reply. */
export function codeOf(value: unknown): string | Refusal {
  return normalizeCode(value) ?? fail(400, 'code must be 1-32 characters of A-Z, 0-9, underscore or hyphen');
}

/** Whether any subaccount of the wallet has filled an order (bindings close at the first trade). */
export function hasTraded(state: GatewayState, address: string): boolean {
  return (state.exchange.engine.accounts.byAddress.get(address) ?? []).some((a) => a !== undefined && lifetimeVolume(a) > 0n);
}

/** A commission claim, fields in the order `claimRecord` writes them. */
export const ClaimRecordSchema = Type.Object({
  claimId: Type.String(),
  address: Type.String(),
  accountIndex: Type.Integer(),
  amount: Type.String(),
  status: Type.String(),
  operationId: nullable(Type.Integer()),
  createdAt: Type.Number(),
  rejectReason: nullable(Type.String()),
});
export const CLAIM_STATUS_RESPONSES = okReplies(ClaimRecordSchema);

/** The reply of an affiliate write taken for processing (202). */
export const SUBMITTED_RESPONSES = { 202: Type.Object({ status: Type.Literal('submitted') }), ...REFUSALS } as const;

export type ClaimRecord = Static<typeof ClaimRecordSchema>;

export function claimRecord(c: Claim): ClaimRecord {
  return {
    claimId: c.claimId,
    address: c.address,
    accountIndex: c.accountIndex,
    amount: usd(c.amount),
    status: c.status,
    operationId: c.operationId ?? null,
    createdAt: c.createdAt,
    rejectReason: c.rejectReason ?? null,
  };
}
