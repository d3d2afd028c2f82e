/**
 * GET /v1/affiliate/inviteCodes — the caller's invite codes (signed GET: `<ts>inviteCodes`, no
 * body). Each is a bearer secret: whoever redeems it (POST redeemInvite) binds to the caller.
 *
 * Query: `address` (must match the key), optional `status` (ACTIVE / REDEEMED), `limit` (1-1000,
 * default 1000, clamped), `offset` (≥ 0). Reply `{inviteCodes: [{inviteCode, status, createdAt,
 * redeemedAt}], total}` in issue order. An address without a code has none.
 */
import { Type, type Static } from 'typebox';
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { isReply } from '../support/common.ts';
import { accountQueryWith, enumFilter, isFilterReply, limitOf, LIST_PARAMS } from '../support/read-filters.ts';
import { walletGet } from '../support/wallet-signed.ts';
import { okReplies, nullable } from '../../contract/reply-schema.ts';

export const InviteCodesQuery = accountQueryWith({ status: Type.Optional(Type.String()), limit: LIST_PARAMS.limit, offset: Type.Optional(Type.Integer({ minimum: 0 })) });

export type InviteCodeRecord = Static<typeof InviteCodeRecordSchema>;

export const InviteCodeRecordSchema = Type.Object({
  inviteCode: Type.String(),
  status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('REDEEMED')]),
  createdAt: Type.Number(),
  redeemedAt: nullable(Type.Number()),
});
export const INVITE_CODES_RESPONSES = okReplies(Type.Object({ inviteCodes: Type.Array(InviteCodeRecordSchema), total: Type.Integer() }));

export const affiliateInviteCodes: Operation<typeof INVITE_CODES_RESPONSES> = {
  name: 'affiliateInviteCodes',
  method: 'GET',
  path: '/v1/affiliate/inviteCodes',
  auth: 'signed',
  description: 'the caller\'s invite codes (bearer secrets)',
  schema: { querystring: InviteCodesQuery },
  response: INVITE_CODES_RESPONSES,
  errorSource: null,
  weight: 'affiliateInviteCodes',
  mutates: false,
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
