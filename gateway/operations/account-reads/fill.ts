/**
 * GET /v1/fill/{tradeId} — the single fill the account owns for that trade, bare (its fill
 * record, supplement §7).
 *
 * `tradeId` is the hex id fill and trade records print (`0x` optional). With `accountIndex`
 * only that subaccount's fills are searched; without it subaccount 0 first, then the others
 * (two subaccounts of one address can be the two sides of one trade). 404
 * `{"error":"fill not found"}` when none of them owns a remembered fill of that trade.
 */
import { Type } from 'typebox';
import { LIMITS } from '../../../engine/index.ts';
import { notFound, ok } from '../../contract/errors.ts';
import { accountKeyOf } from '../../shared/account-key.ts';
import type { Operation } from '../../contract/operation.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { fillRecord } from './fills.ts';
import { okReplies, FillRecord } from '../../contract/reply-schema.ts';

export const FillParams = Type.Object({ tradeId: Type.String({ minLength: 1, maxLength: 64 }) });

function parseTradeId(text: string): number | null {
  if (!/^(0x)?[0-9a-f]{1,13}$/i.test(text)) return null;
  const n = Number.parseInt(text.replace(/^0x/i, ''), 16);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export const FILL_RESPONSES = okReplies(FillRecord);

export const fill: Operation<typeof FILL_RESPONSES> = {
  name: 'fill',
  method: 'GET',
  path: '/v1/fill/:tradeId',
  auth: 'public',
  description: 'the account\'s fill of one trade',
  schema: { querystring: AccountQuery, params: FillParams },
  response: FILL_RESPONSES,
  errorSource: null,
  weight: 'fill',
  mutates: false,
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const tradeId = parseTradeId(request.params.tradeId ?? '');
    if (tradeId === null) return notFound('fill not found');
    const indexes = request.query.accountIndex !== undefined ? [ref.accountIndex] : Array.from({ length: LIMITS.subaccountMax + 1 }, (_, i) => i);
    for (const index of indexes) {
      const found = state.exchange.history.fillOfTrade(accountKeyOf(ref.address, index), tradeId);
      if (found !== undefined) return ok(fillRecord(state.exchange, found));
    }
    return notFound('fill not found');
  },
};
