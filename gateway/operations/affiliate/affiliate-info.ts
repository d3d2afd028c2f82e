/**
 * GET /v1/affiliate/info — the caller's standing in the referral program (signed GET, own data).
 *
 * Reply `{address, code (null without one), kickbackBps, level, tierName, t1RateBps,
 * refereeCount, referrerBound (whether the caller has a referrer), totalEarned, earnedT1,
 * earnedT2, earnedT3, kickbackEarned, claimed, claimable}`; money in USD. `level` follows the
 * number of referees (GET /v1/commissionrates lists the rates).
 */
import { ok } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { refereesOf, rewardsView, tierOf } from '../../services/referral.ts';
import { AccountQuery, isReply } from '../support/common.ts';
import { walletGet } from '../support/wallet-signed.ts';
import { Type } from 'typebox';
import { okReplies, nullable } from '../../contract/reply-schema.ts';

export const AFFILIATE_INFO_RESPONSES = okReplies(
  Type.Object({
    address: Type.String(),
    code: nullable(Type.String()),
    kickbackBps: Type.Integer(),
    level: Type.Integer(),
    tierName: Type.String(),
    t1RateBps: Type.Number(),
    refereeCount: Type.Integer(),
    referrerBound: Type.Boolean(),
    totalEarned: Type.String(),
    earnedT1: Type.String(),
    earnedT2: Type.String(),
    earnedT3: Type.String(),
    kickbackEarned: Type.String(),
    claimed: Type.String(),
    claimable: Type.String(),
  }),
);

export const affiliateInfo: Operation<typeof AFFILIATE_INFO_RESPONSES> = {
  name: 'affiliateInfo',
  method: 'GET',
  path: '/v1/affiliate/info',
  auth: 'signed',
  description: 'the caller\'s referral standing and rewards',
  schema: { querystring: AccountQuery },
  response: AFFILIATE_INFO_RESPONSES,
  errorSource: null,
  weight: 'affiliateInfo',
  mutates: false,
  handle: (state, request) => {
    const ctx = walletGet(state, request);
    if (isReply(ctx)) return ctx;
    const rs = state.referral;
    const affiliate = rs.affiliates.get(ctx.address);
    const referees = refereesOf(rs, ctx.address).length;
    const tier = tierOf(referees);
    const rewards = rewardsView(rs, ctx.address);
    return ok({
      address: ctx.address,
      code: affiliate?.code ?? null,
      kickbackBps: affiliate?.kickbackBps ?? 0,
      level: tier.level,
      tierName: tier.name,
      t1RateBps: tier.t1RateBps,
      refereeCount: referees,
      referrerBound: rs.bindings.has(ctx.address),
      totalEarned: usd(rewards.byKind.T1 + rewards.byKind.T2 + rewards.byKind.T3),
      earnedT1: usd(rewards.byKind.T1),
      earnedT2: usd(rewards.byKind.T2),
      earnedT3: usd(rewards.byKind.T3),
      kickbackEarned: usd(rewards.byKind.KICKBACK),
      claimed: usd(rewards.claimed),
      claimable: usd(rewards.accrued - rewards.claimed),
    });
  },
};
