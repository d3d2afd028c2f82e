/**
 * GET /v1/api-meta/notifications — the wallet's inbox, newest first (by address, no
 * signature); the first call enrols the wallet as a subscriber. Pages by `before_ns` (strictly
 * older) and `limit` (1-100, default 50); reply `{notifications, unseen, nextBeforeNs}` with
 * `createdAtNs` a decimal string of simulated-clock ns (pass it back verbatim).
 * Sources, payloads and inbox rules: docs/decisions.md "Notifications and preferences".
 */
import { Type, type Static } from 'typebox';
import { ok } from '../../contract/errors.ts';
import { enrol, inboxPage, unseenCount, type StoredNotification } from '../../services/notifications.ts';
import type { Operation } from '../../contract/operation.ts';
import { accountOf } from '../support/common.ts';
import { accountQueryWith } from '../support/read-filters.ts';
import { okReplies, nullable } from '../../contract/reply-schema.ts';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 100;

export const NotificationsQuery = accountQueryWith({
  before_ns: Type.Optional(Type.String({ pattern: '^[0-9]{1,30}$' })),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
});

/** A notification; `payload` is the notification's own document, written as stored. */
export const NotificationRecord = Type.Object({
  notificationId: Type.Integer(),
  createdAtNs: Type.String(),
  type: Type.String(),
  marketId: Type.Integer(),
  accountIndex: Type.Integer(),
  seen: Type.Boolean(),
  payload: Type.Unknown(),
});
export const NOTIFICATIONS_RESPONSES = okReplies(
  Type.Object({ notifications: Type.Array(NotificationRecord), unseen: Type.Integer(), nextBeforeNs: nullable(Type.String()) }),
);

export function notificationRecord(n: StoredNotification): Static<typeof NotificationRecord> {
  return {
    notificationId: n.notificationId,
    createdAtNs: n.createdAtNs.toString(),
    type: n.type,
    marketId: n.marketId,
    accountIndex: n.accountIndex,
    seen: n.seen,
    payload: n.payload,
  };
}

export const notifications: Operation<typeof NOTIFICATIONS_RESPONSES> = {
  name: 'notifications',
  method: 'GET',
  path: '/v1/api-meta/notifications',
  auth: 'public',
  description: 'notification inbox (the first read enrols the wallet)',
  schema: { querystring: NotificationsQuery },
  response: NOTIFICATIONS_RESPONSES,
  errorSource: null,
  weight: 'notifications',
  mutates: false,
  handle: (state, request) => {
    const { address } = accountOf(request.query);
    const ns = state.notifications;
    const enrolling = !ns.inboxes.has(address);
    const inbox = enrol(ns, address);
    if (enrolling) state.serviceWritten?.('notifications', address);
    const before = request.query.before_ns === undefined ? undefined : BigInt(String(request.query.before_ns));
    const limit = Math.min(PAGE_MAX, request.query.limit === undefined ? PAGE_DEFAULT : Number(request.query.limit));
    const log = state.exchange.history.notifications;
    const page = log === undefined ? inboxPage(inbox, before, limit) : log.page(address, before, limit);
    const last = page.rows[page.rows.length - 1];
    return ok({
      notifications: page.rows.map(notificationRecord),
      unseen: log === undefined ? unseenCount(inbox) : log.unseen(address),
      nextBeforeNs: page.more && last !== undefined ? last.createdAtNs.toString() : null,
    });
  },
};
