/**
 * GET /v1/feetiers — the fee schedule (engine.risk.feeTiers), and with `?address=` the
 * account's standing in it. Served in two shapes at once: perpsim's `feeTiers` (levels from 1,
 * USD thresholds) and the live venue's captured `tiers` (levels from 0, integer quote-quantum
 * thresholds), so clients of either read it. Fees are integer ppm of notional.
 * Spec: interface.md (field names only). Shape choices: docs/decisions.md "Market-read
 * operations", "Fidelity to the live venue".
 */
import { Type, type Static } from 'typebox';
import { findAccount, lifetimeFeesPaid, lifetimeVolume, LIMITS, tierFor } from '../../../engine/index.ts';
import { rollingVolumeAt } from '../account-reads/account-stats.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { ADDRESS_PATTERN, parseAddress } from '../support/common.ts';
import { okReplies } from '../../contract/reply-schema.ts';

/** The schedule (level from 1), the live venue's `tiers` spelling of it, and the account's standing when an address is given. */
export const FeeTierRecordSchema = Type.Object({
  level: Type.Integer(),
  name: Type.String(),
  minRollingVolume: Type.String(),
  makerFeePpm: Type.Integer(),
  takerFeePpm: Type.Integer(),
});
export const FeeTierStandingSchema = Type.Object({
  address: Type.String(),
  accountIndex: Type.Integer(),
  level: Type.Integer(),
  name: Type.String(),
  rollingVolume: Type.String(),
  lifetimeVolume: Type.String(),
  lifetimeFeesPaid: Type.String(),
  makerFeePpm: Type.Integer(),
  takerFeePpm: Type.Integer(),
});
export const FeeTiersReply = Type.Object({
  feeTiers: Type.Array(FeeTierRecordSchema),
  tiers: Type.Array(
    Type.Object({ level: Type.Integer(), name: Type.String(), volume_threshold: Type.Number(), maker_fee_ppm: Type.Integer(), taker_fee_ppm: Type.Integer() }),
  ),
  account: Type.Optional(FeeTierStandingSchema),
});
export type FeeTiersReply = Static<typeof FeeTiersReply>;
export const FEE_TIERS_RESPONSES = okReplies(FeeTiersReply);

export type FeeTierRecord = Static<typeof FeeTierRecordSchema>;

export const feeTiers: Operation<typeof FEE_TIERS_RESPONSES> = {
  name: 'feeTiers',
  method: 'GET',
  path: '/v1/feetiers',
  auth: 'public',
  description: 'fee tiers',
  schema: {
    querystring: Type.Object(
      {
        address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
        accountIndex: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax })),
      },
      { additionalProperties: true },
    ),
  },
  response: FEE_TIERS_RESPONSES,
  errorSource: null,
  weight: 'feeTiers',
  mutates: false,
  handle: (state, request) => {
    const engine = state.exchange.engine;
    const tiers = engine.risk.feeTiers;
    const records: FeeTierRecord[] = tiers.map((t, i) => ({
      level: i + 1,
      name: t.name,
      minRollingVolume: usd(t.minVolume),
      makerFeePpm: t.makerFeePpm,
      takerFeePpm: t.takerFeePpm,
    }));
    const live = tiers.map((t, i) => ({ level: i, name: t.name, volume_threshold: Number(t.minVolume), maker_fee_ppm: t.makerFeePpm, taker_fee_ppm: t.takerFeePpm }));
    if (request.query.address === undefined) return ok({ feeTiers: records, tiers: live });
    const address = parseAddress(request.query.address);
    if (address === null) return badRequest('invalid address');
    const accountIndex = Number(request.query.accountIndex ?? 0);
    const acct = findAccount(engine.accounts, address, accountIndex);
    const rolling = acct === undefined ? 0n : rollingVolumeAt(acct, Math.max(state.exchange.clock(), state.exchange.engine.time));
    const tier = tierFor(tiers, rolling);
    return ok({
      feeTiers: records,
      tiers: live,
      account: {
        address,
        accountIndex,
        level: tiers.indexOf(tier) + 1,
        name: tier.name,
        rollingVolume: usd(rolling),
        lifetimeVolume: usd(acct === undefined ? 0n : lifetimeVolume(acct)),
        lifetimeFeesPaid: usd(acct === undefined ? 0n : lifetimeFeesPaid(acct)),
        makerFeePpm: tier.makerFeePpm,
        takerFeePpm: tier.takerFeePpm,
      },
    });
  },
};
