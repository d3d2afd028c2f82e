/**
 * GET /v1/account — the account record (supplement §7): 404 until the account's first activity.
 * equity and freeCollateral include the hour's funding accrued so far.
 */
import { Type } from 'typebox';
import { accountView, findAccount } from '../../../engine/index.ts';
import { ERRORS, ok, refuse } from '../../contract/errors.ts';
import { PositionRecords, positionRecords } from '../../read-models/positions.ts';
import type { Operation } from '../../contract/operation.ts';
import { REFUSALS } from '../../contract/reply-schema.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { usd } from '../../contract/format.ts';

/** The account record, fields in the order they are written. */
export const AccountRecord = Type.Object({
  accountIndex: Type.Integer(),
  address: Type.String(),
  netQuoteBalance: Type.String(),
  equity: Type.String(),
  freeCollateral: Type.String(),
  netDeposits: Type.String(),
  positions: PositionRecords,
  sequenceNumber: Type.Integer(),
});

export const ACCOUNT_RESPONSES = { 200: AccountRecord, ...REFUSALS } as const;

export const account: Operation<typeof ACCOUNT_RESPONSES> = {
  name: 'account',
  method: 'GET',
  path: '/v1/account',
  auth: 'public',
  description: 'account record',
  schema: { querystring: AccountQuery },
  response: ACCOUNT_RESPONSES,
  weight: 'account',
  mutates: false,
  errorSource: null,
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const acct = findAccount(state.exchange.engine.accounts, ref.address, ref.accountIndex);
    if (acct === undefined || !acct.activated) return refuse(ERRORS.noAccountActivity, undefined);
    const view = accountView(state.exchange.engine, acct);
    return ok({
      accountIndex: ref.accountIndex,
      address: ref.address,
      netQuoteBalance: usd(view.netQuoteBalance),
      equity: usd(view.equity),
      freeCollateral: usd(view.freeCollateral),
      netDeposits: usd(view.netDeposits),
      positions: positionRecords(state.exchange, acct),
      sequenceNumber: acct.seq,
    });
  },
};
