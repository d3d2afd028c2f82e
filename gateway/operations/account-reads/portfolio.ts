/**
 * GET /v1/portfolio — equity and PnL history of one account: `{address, accountIndex,
 * generatedAt, lifetimeVolume, data}`, `data` eight `[name, {accountEquityHistory, pnlHistory}]`
 * series (24h, 7d, 30d, allTime, then the perp ones) of `[timestamp_us, decimal]` points, oldest
 * first, plus a point for now. An account with no activity has empty series.
 * Spec: interface.md "History and summary responses", Portfolio. Sampling and PnL definitions:
 * docs/decisions.md "Leaderboard and portfolio".
 */
import { findAccount, lifetimeVolume } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import { accountKeyOf } from '../../shared/account-key.ts';
import { usd } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { rangePoints, RANGES, type Sample } from '../../services/portfolio.ts';
import { measureAccount } from '../../services/follow.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

type Point = [number, string];

interface SeriesBody {
  accountEquityHistory: Point[];
  pnlHistory: Point[];
}

function series(points: readonly Sample[], equity: (s: Sample) => bigint, pnl: (s: Sample) => bigint): SeriesBody {
  const base = points.length === 0 ? 0n : pnl(points[0]!);
  return {
    accountEquityHistory: points.map((p) => [p.time, usd(equity(p))]),
    pnlHistory: points.map((p) => [p.time, usd(pnl(p) - base)]),
  };
}

const Point = Type.Tuple([Type.Number(), Type.String()]);
const Series = Type.Object({ accountEquityHistory: Type.Array(Point), pnlHistory: Type.Array(Point) });

/** Equity and PnL series per range, the totals' ranges then the perp ones (`[name, series]` pairs). */
export const PORTFOLIO_RESPONSES = okReplies(
  Type.Object({
    address: Type.String(),
    accountIndex: Type.Integer(),
    generatedAt: Type.Number(),
    lifetimeVolume: Type.String(),
    data: Type.Array(Type.Tuple([Type.String(), Series])),
  }),
);

export const portfolio: Operation<typeof PORTFOLIO_RESPONSES> = {
  name: 'portfolio',
  method: 'GET',
  path: '/v1/portfolio',
  auth: 'public',
  description: 'equity and PnL history',
  schema: { querystring: AccountQuery },
  response: PORTFOLIO_RESPONSES,
  errorSource: null,
  weight: 'portfolio',
  mutates: false,
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const now = state.exchange.clock();
    const key = accountKeyOf(ref.address, ref.accountIndex);
    const current = measureAccount(state, ref.address, ref.accountIndex);
    const total: [string, SeriesBody][] = [];
    const perp: [string, SeriesBody][] = [];
    RANGES.forEach((range, i) => {
      const points = rangePoints(state.portfolio, key, i, now, state.exchange.history.portfolio);
      if (current !== undefined && (points.length === 0 || points[points.length - 1]!.time < now)) points.push({ time: now, ...current });
      total.push([range.name, series(points, (p) => p.equity, (p) => p.pnl)]);
      perp.push([`perp${range.name[0]!.toUpperCase()}${range.name.slice(1)}`, series(points, (p) => p.perpEquity, (p) => p.perpPnl)]);
    });
    const account = findAccount(state.exchange.engine.accounts, ref.address, ref.accountIndex);
    const lifetime = account === undefined ? 0n : lifetimeVolume(account);
    return ok({
      address: ref.address,
      accountIndex: ref.accountIndex,
      generatedAt: now,
      lifetimeVolume: lifetime === 0n ? '0' : usd(lifetime),
      data: [...total, ...perp],
    });
  },
};
