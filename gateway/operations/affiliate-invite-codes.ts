/**
 * GET /v1/affiliate/inviteCodes — the caller's invite codes (signed GET: `<ts>inviteCodes`, no
 * body). Each is a bearer secret: whoever redeems it (POST redeemInvite) binds to the caller.
 *
 * Query: `address` (must match the key), optional `status` (ACTIVE / REDEEMED), `limit` (1-1000,
 * default 1000, clamped), `offset` (≥ 0). Reply `{inviteCodes: [{inviteCode, status, createdAt,
 * redeemedAt}], total}` in issue order. An address without a code has none.
 */
import { Type } from 'typebox';
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';
import { isReply } from './common.ts';
import { accountQueryWith, enumFilter, isFilterReply, limitOf, LIST_PARAMS } from './read-filters.ts';
import { walletGet } from './wallet-signed.ts';

export const InviteCodesQuery = accountQueryWith({ status: Type.Optional(Type.String()), limit: LIST_PARAMS.limit, offset: Type.Optional(Type.Integer({ minimum: 0 })) });

export interface InviteCodeRecord {
  inviteCode: string;
  status: 'ACTIVE' | 'REDEEMED';
  createdAt: number;
  redeemedAt: number | null;
}

export const affiliateInviteCodes: Operation = {
  name: 'affiliateInviteCodes',
  method: 'GET',
  path: '/v1/affiliate/inviteCodes',
  auth: 'signed',
  description: 'the caller\'s invite codes (bearer secrets)',
  schema: { querystring: InviteCodesQuery },
  handle: (state, request) => {
    const ctx = walletGet(state, request);
    if (isReply(ctx)) return ctx;
    const status = enumFilter(request.query, 'status', ['ACTIVE', 'REDEEMED'] as const);
    if (isFilterReply(status)) return status;
    const rs = state.referral;
    const rows: InviteCodeRecord[] = [];
    for (const secret of rs.affiliates.get(ctx.address)?.invites ?? []) {
      const invite = rs.invites.get(secret)!;
      const row: InviteCodeRecord = { inviteCode: secret, status: invite.redeemedBy === undefined ? 'ACTIVE' : 'REDEEMED', createdAt: invite.createdAt, redeemedAt: invite.redeemedAt ?? null };
      if (status === null || row.status === status) rows.push(row);
    }
    const offset = Number(request.query.offset ?? 0);
    return ok({ inviteCodes: rows.slice(offset, offset + limitOf(request.query)), total: rows.length });
  },
};
