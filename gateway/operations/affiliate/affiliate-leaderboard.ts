/**
 * GET /v1/affiliate/leaderboard — affiliates ranked by totalEarned (T1 + T2 + T3 commissions,
 * USD), then refereeCount, then address: `{leaderboard: [{rank, address, code, refereeCount,
 * totalEarned}]}`, `limit` 1-100 (default 100). `code` is null after a revoke.
 * Route: docs/decisions.md "Fidelity to the live venue" (public clients send `limit`).
 */
import { Type } from 'typebox';
import { badRequest, ok } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { refereesOf, rewardsView } from '../../services/referral.ts';
import { okReplies, nullable } from '../../contract/reply-schema.ts';

const LIMIT_MAX = 100;

export const AFFILIATE_LEADERBOARD_RESPONSES = okReplies(
  Type.Object({
    leaderboard: Type.Array(
      Type.Object({ rank: Type.Integer(), address: Type.String(), code: nullable(Type.String()), refereeCount: Type.Integer(), totalEarned: Type.String() }),
    ),
  }),
);

export const affiliateLeaderboard: Operation<typeof AFFILIATE_LEADERBOARD_RESPONSES> = {
  name: 'affiliateLeaderboard',
  method: 'GET',
  path: '/v1/affiliate/leaderboard',
  auth: 'public',
  description: 'affiliates ranked by commissions earned',
  schema: { querystring: Type.Object({ limit: Type.Optional(Type.Integer()) }, { additionalProperties: true }) },
  response: AFFILIATE_LEADERBOARD_RESPONSES,
  errorSource: null,
  weight: 'affiliateLeaderboard',
  mutates: false,
  handle: (state, request) => {
    const query = request.query;
    if (query.limit !== undefined && Number(query.limit) < 1) return badRequest('limit must be at least 1');
    const limit = Math.min(LIMIT_MAX, query.limit === undefined ? LIMIT_MAX : Number(query.limit));
    const rs = state.referral;
    const rows = [...new Set([...rs.affiliates.keys(), ...rs.referees.keys(), ...rs.rewards.keys()])].map((address) => {
      const byKind = rewardsView(rs, address).byKind;
      return { address, code: rs.affiliates.get(address)?.code ?? null, refereeCount: refereesOf(rs, address).length, earned: byKind.T1 + byKind.T2 + byKind.T3 };
    });
    rows.sort((a, b) => (a.earned === b.earned ? b.refereeCount - a.refereeCount || (a.address < b.address ? -1 : 1) : a.earned > b.earned ? -1 : 1));
    return ok({
      leaderboard: rows.slice(0, limit).map((r, i) => ({ rank: i + 1, address: r.address, code: r.code, refereeCount: r.refereeCount, totalEarned: usd(r.earned) })),
    });
  },
};
