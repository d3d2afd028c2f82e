/**
 * GET /v1/account — the account record (supplement §7): 404 until the account's first activity.
 * equity and freeCollateral include the hour's funding accrued so far.
 */
import { accountView, findAccount } from '../../engine/index.ts';
import { notFound, ok } from '../errors.ts';
import { positionRecords } from '../positions.ts';
import type { Operation } from '../operation.ts';
import { AccountQuery, accountOf } from './common.ts';
import { usd } from '../format.ts';

export const account: Operation = {
  name: 'account',
  method: 'GET',
  path: '/v1/account',
  auth: 'public',
  description: 'account record',
  schema: { querystring: AccountQuery },
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const acct = findAccount(state.exchange.engine.accounts, ref.address, ref.accountIndex);
    if (acct === undefined || !acct.activated) return notFound('this account has no activity yet');
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
