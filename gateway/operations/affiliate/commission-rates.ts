/**
 * GET /v1/commissionrates — the referral commission schedule (interface.md "Commission
 * schedule"): `{tiers: [{level, name, t1_rate_bps}] by ascending level, t2_rate_bps,
 * t3_rate_bps}`, the rates referral.ts pays.
 */
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { COMMISSION_SCHEDULE } from '../../services/referral.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

export const COMMISSION_RATES_RESPONSES = okReplies(
  Type.Object({
    tiers: Type.Array(Type.Object({ level: Type.Integer(), name: Type.String(), t1_rate_bps: Type.Number() })),
    t2_rate_bps: Type.Number(),
    t3_rate_bps: Type.Number(),
  }),
);

export const commissionRates: Operation<typeof COMMISSION_RATES_RESPONSES> = {
  name: 'commissionRates',
  method: 'GET',
  path: '/v1/commissionrates',
  auth: 'public',
  description: 'referral commission schedule',
  schema: {},
  response: COMMISSION_RATES_RESPONSES,
  errorSource: null,
  weight: 'commissionRates',
  mutates: false,
  handle: () =>
    ok({
      tiers: [...COMMISSION_SCHEDULE.tiers].sort((a, b) => a.level - b.level).map((t) => ({ level: t.level, name: t.name, t1_rate_bps: t.t1RateBps })),
      t2_rate_bps: COMMISSION_SCHEDULE.t2RateBps,
      t3_rate_bps: COMMISSION_SCHEDULE.t3RateBps,
    }),
};
