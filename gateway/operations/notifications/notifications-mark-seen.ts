/**
 * POST /v1/api-meta/notifications:markSeen — mark the key's master wallet's notifications seen
 * (Scheme 2 over the path verbatim): exactly one of `all: true` (the most recent `limit`) or
 * `ids`. Reply 200 `{marked}` (flips only; repeating marks 0); unknown ids are skipped.
 * Matching rules: docs/decisions.md "Notifications and preferences".
 */
import { Type } from 'typebox';
import { fail, ok } from '../../contract/errors.ts';
import { INBOX_CAP, markSeen, type MarkSeenTarget } from '../../services/notifications.ts';
import type { Operation } from '../../contract/operation.ts';
import { ADDRESS_PATTERN, isReply } from '../support/common.ts';
import { admitWalletPost, walletContext } from '../support/wallet-signed.ts';
import { okReplies } from '../../contract/reply-schema.ts';

const NUMERIC = Type.Union([Type.String({ pattern: '^[0-9]{1,30}$' }), Type.Integer({ minimum: 0 })]);

export const MarkSeenBody = Type.Object(
  {
    all: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: INBOX_CAP })),
    ids: Type.Optional(Type.Array(Type.Object({ created_at_ns: NUMERIC, notification_id: NUMERIC }, { additionalProperties: true }), { minItems: 1, maxItems: INBOX_CAP })),
    address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
  },
  { additionalProperties: true },
);

interface MarkSeenBody {
  all?: boolean;
  limit?: number;
  ids?: { created_at_ns: string | number; notification_id: string | number }[];
}

export const MARK_SEEN_RESPONSES = okReplies(Type.Object({ marked: Type.Integer() }));

export const notificationsMarkSeen: Operation<typeof MARK_SEEN_RESPONSES> = {
  name: 'notificationsMarkSeen',
  method: 'POST',
  path: '/v1/api-meta/notifications:markSeen',
  auth: 'signed',
  description: 'mark notifications seen',
  schema: { body: MarkSeenBody },
  response: MARK_SEEN_RESPONSES,
  errorSource: null,
  weight: 'notificationsMarkSeen',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as MarkSeenBody;
    const ctx = walletContext(state, request, true);
    if (isReply(ctx)) return ctx;
    if ((body.all === true) === (body.ids !== undefined)) return fail(400, 'set exactly one of all (true) or ids');
    return admitWalletPost(state, request, ctx, 'notificationsMarkSeen', () => {
      const target: MarkSeenTarget =
        body.ids === undefined
          ? { all: true, limit: body.limit ?? INBOX_CAP }
          : { ids: body.ids.map((id) => ({ createdAtNs: id.created_at_ns, notificationId: Number(id.notification_id) })) };
      return ok({ marked: markSeen(state.notifications, ctx.address, target, state.exchange.history.notifications) });
    });
  },
};
