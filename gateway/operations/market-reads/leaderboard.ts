/**
 * GET /v1/leaderboard — traders ranked over a window (public).
 *
 * Query: `sortBy` (volume, pnl, fees; default volume), `window` (all, 30d, 24h; default 30d),
 * `limit` (1-100, default 100, larger values clamped; no cursor). Reply `{leaderboard: [{rank,
 * address, volume, feesPaid, pnl}], sortBy, window}`: one row per wallet (all subaccounts) that
 * traded in the window, best first (ties: lower address first); USD decimal strings; pnl is
 * realized (fills net of fees, plus funding). Aggregates: gateway/services/leaderboard.ts.
 */
import { Type } from 'typebox';
import { badRequest, ok } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import { rank, type LeaderboardSort, type LeaderboardWindow } from '../../services/leaderboard.ts';
import type { Operation } from '../../contract/operation.ts';
import { enumFilter, isFilterReply } from '../support/read-filters.ts';
import { okReplies } from '../../contract/reply-schema.ts';

const LIMIT_MAX = 100;

export const LeaderboardQuery = Type.Object(
  { sortBy: Type.Optional(Type.String()), window: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer()) },
  { additionalProperties: true },
);

export const LEADERBOARD_RESPONSES = okReplies(
  Type.Object({
    leaderboard: Type.Array(Type.Object({ rank: Type.Integer(), address: Type.String(), volume: Type.String(), feesPaid: Type.String(), pnl: Type.String() })),
    sortBy: Type.String(),
    window: Type.String(),
  }),
);

export const leaderboard: Operation<typeof LEADERBOARD_RESPONSES> = {
  name: 'leaderboard',
  method: 'GET',
  path: '/v1/leaderboard',
  auth: 'public',
  description: 'traders ranked by volume, realized PnL or fees',
  schema: { querystring: LeaderboardQuery },
  response: LEADERBOARD_RESPONSES,
  errorSource: null,
  weight: 'leaderboard',
  mutates: false,
  handle: (state, request) => {
    const query = request.query;
    const sortBy = enumFilter(query, 'sortBy', ['VOLUME', 'PNL', 'FEES'] as const);
    if (isFilterReply(sortBy)) return sortBy;
    const window = enumFilter(query, 'window', ['ALL', '30D', '24H'] as const);
    if (isFilterReply(window)) return window;
    if (query.limit !== undefined && Number(query.limit) < 1) return badRequest('limit must be at least 1');
    const limit = Math.min(LIMIT_MAX, query.limit === undefined ? LIMIT_MAX : Number(query.limit));
    const sort = (sortBy ?? 'VOLUME').toLowerCase() as LeaderboardSort;
    const win = (window ?? '30D').toLowerCase() as LeaderboardWindow;
    const rows = rank(state.leaderboard, win, sort, state.exchange.clock(), limit).map((r, i) => ({
      rank: i + 1,
      address: r.address,
      volume: usd(r.volume),
      feesPaid: usd(r.fees),
      pnl: usd(r.pnl),
    }));
    return ok({ leaderboard: rows, sortBy: sort, window: win });
  },
};
