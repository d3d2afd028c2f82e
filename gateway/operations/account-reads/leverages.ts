/**
 * GET /v1/leverages — the account's leverage setting in every market (supplement §6):
 * `{address, accountIndex, leverages: [{marketId, marketDisplayName, leverage, isolated,
 * marginMode}]}`, ascending by marketId, OFFLINE markets included.
 *
 * `leverage` is the integer setting, the market maximum (floor(1/IMF)) until setLeverage
 * changes it; `marginMode` is CROSS or ISOLATED. `market` narrows the list to one market (400
 * when unresolvable). An address with no activity reads the defaults.
 */
import { findAccount, marketOf, type MarketState } from '../../../engine/index.ts';
import type { Account } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import { marketsById } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { accountOf } from '../support/common.ts';
import { accountQueryWith, isFilterReply, LIST_PARAMS, marketFilter } from '../support/read-filters.ts';
import { Type, type Static } from 'typebox';
import { okReplies, stringEnum } from '../../contract/reply-schema.ts';
import { MARGIN_MODES } from '../../../engine/spec.ts';

export const LeveragesQuery = accountQueryWith({ market: LIST_PARAMS.market });

export type LeverageRow = Static<typeof LeverageRowSchema>;

export type LeveragesReply = Static<(typeof LEVERAGES_RESPONSES)[200]>;

export function leverageRow(acct: Account | undefined, ms: MarketState): LeverageRow {
  const am = acct === undefined ? undefined : marketOf(acct, ms.slot);
  const isolated = am?.isolated ?? false;
  return {
    marketId: ms.spec.id,
    marketDisplayName: ms.spec.displayName,
    leverage: am !== undefined && am.leverage > 0 ? am.leverage : ms.spec.maxLeverage,
    isolated,
    marginMode: isolated ? 'ISOLATED' : 'CROSS',
  };
}

export const LeverageRowSchema = Type.Object({
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
  leverage: Type.Number(),
  isolated: Type.Boolean(),
  marginMode: stringEnum(MARGIN_MODES),
});
export const LEVERAGES_RESPONSES = okReplies(Type.Object({ address: Type.String(), accountIndex: Type.Integer(), leverages: Type.Array(LeverageRowSchema) }));

export const leverages: Operation<typeof LEVERAGES_RESPONSES> = {
  name: 'leverages',
  method: 'GET',
  path: '/v1/leverages',
  auth: 'public',
  description: 'leverage and margin mode per market',
  schema: { querystring: LeveragesQuery },
  response: LEVERAGES_RESPONSES,
  errorSource: null,
  weight: 'leverages',
  mutates: false,
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const market = marketFilter(state.exchange, request.query);
    if (isFilterReply(market)) return market;
    const acct = findAccount(state.exchange.engine.accounts, ref.address, ref.accountIndex);
    const markets = market === null ? marketsById(state.exchange) : [market];
    const body: LeveragesReply = { address: ref.address, accountIndex: ref.accountIndex, leverages: markets.map((ms) => leverageRow(acct, ms)) };
    return ok(body);
  },
};
