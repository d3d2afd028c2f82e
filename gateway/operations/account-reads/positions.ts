/**
 * GET /v1/positions — the account's open positions (supplement §6, §7):
 * `{positions: {"<marketId>": position}, total}`, `positions` `{}` when flat.
 *
 * `market` narrows it to one market (400 when unresolvable). An address with no activity reads
 * as flat (200, not the account record's 404). Rows carry cumulativeFunding like the account
 * record's positions (both are snapshots).
 */
import { findAccount } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { positionRecords, PositionRecords } from '../../read-models/positions.ts';
import { accountOf } from '../support/common.ts';
import { accountQueryWith, isFilterReply, LIST_PARAMS, marketFilter } from '../support/read-filters.ts';
import { Type, type Static } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

export const PositionsQuery = accountQueryWith({ market: LIST_PARAMS.market });

export type PositionsReply = Static<(typeof POSITIONS_RESPONSES)[200]>;

export const POSITIONS_RESPONSES = okReplies(Type.Object({ positions: PositionRecords, total: Type.Integer() }));

export const positions: Operation<typeof POSITIONS_RESPONSES> = {
  name: 'positions',
  method: 'GET',
  path: '/v1/positions',
  auth: 'public',
  description: 'open positions',
  schema: { querystring: PositionsQuery },
  response: POSITIONS_RESPONSES,
  errorSource: null,
  weight: 'positions',
  mutates: false,
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const market = marketFilter(state.exchange, request.query);
    if (isFilterReply(market)) return market;
    const acct = findAccount(state.exchange.engine.accounts, ref.address, ref.accountIndex);
    const all = acct === undefined ? {} : positionRecords(state.exchange, acct);
    const rows = market === null ? all : Object.fromEntries(Object.entries(all).filter(([id]) => id === String(market.spec.id)));
    return ok({ positions: rows, total: Object.keys(rows).length } satisfies PositionsReply);
  },
};
