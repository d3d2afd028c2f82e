/**
 * Push-notification subscribers: device tokens and the inbox of each wallet.
 *
 * Contract:
 * - State is plain data hung off `GatewayState.notifications` (snapshot-safe); it changes only
 *   through `enrol`, `upsertToken`, `pushNotification` and `markSeen`.
 * - A wallet is a subscriber once enrolled: by its first inbox read or its first token
 *   registration (interface.md "Notifications and preferences"). Only subscribers accumulate
 *   notifications; events before enrolment are not kept.
 * - Tokens: at most `TOKENS_PER_WALLET` per wallet, each at most `TOKEN_MAX_CHARS` characters and
 *   shaped like an Expo push token (`ExponentPushToken[…]` / `ExpoPushToken[…]`, the bracketed
 *   format); registering a known token again only updates its platform (idempotent). perpsim
 *   never contacts a push provider: delivery is the inbox.
 * - Inbox: the newest `INBOX_CAP` notifications per wallet, oldest dropped first. Each has a
 *   wallet-wide `notificationId` and `createdAtNs` from the simulated clock, strictly increasing
 *   per wallet (several events of one instant get consecutive nanoseconds), so
 *   (createdAtNs, notificationId) names one notification and `before_ns` pages without gaps.
 * - With a notification log (`NotificationLog`, the SQLite history tables: history-store.ts) the
 *   inbox holds live state only (tokens, `lastNs`): items go to the log, and pages, unseen
 *   counts and markSeen act on the wallet's newest `INBOX_CAP` there — the same replies.
 */
import type { Refusal } from './referral.ts';
import { plainRecord } from '../../engine/index.ts';

export const TOKENS_PER_WALLET = 20;
export const TOKEN_MAX_CHARS = 256;
export const INBOX_CAP = 500;
export const TOKEN_SHAPE = /^(ExponentPushToken|ExpoPushToken)\[[A-Za-z0-9_-]{1,200}\]$/;
export const PLATFORMS = ['ios', 'android', 'web'] as const;
export type Platform = (typeof PLATFORMS)[number];

export type NotificationType = 'FILL' | 'LIQUIDATION' | 'TPSL_TRIGGERED' | 'DEPOSIT' | 'WITHDRAWAL';

export type PayloadValue = string | number | boolean | null;

export interface StoredNotification {
  notificationId: number;
  createdAtNs: bigint;
  type: NotificationType;
  accountIndex: number;
  marketId: number;
  seen: boolean;
  payload: Record<string, PayloadValue>;
}

export interface PushToken {
  token: string;
  platform: Platform | undefined;
  /** Simulated-clock nanoseconds. */
  createdAtNs: bigint;
  updatedAtNs: bigint;
}

export interface Inbox {
  tokens: PushToken[];
  /** Oldest first. */
  items: StoredNotification[];
  lastNs: bigint;
}

/** Notifications kept outside the inboxes, per wallet; the functions below defer to it when given. */
export interface NotificationLog {
  add(address: string, item: StoredNotification): void;
  page(address: string, beforeNs: bigint | undefined, limit: number): { rows: StoredNotification[]; more: boolean };
  unseen(address: string): number;
  markSeen(address: string, target: MarkSeenTarget): number;
}

export interface NotificationState {
  inboxes: Map<string, Inbox>;
  nextId: number;
}

const buildNotificationState = plainRecord<NotificationState>();

export function createNotificationState(): NotificationState {
  return buildNotificationState({ inboxes: new Map(), nextId: 1 });
}

/** The wallet's inbox, enrolling it when it is not yet a subscriber. */
export function enrol(ns: NotificationState, address: string): Inbox {
  let inbox = ns.inboxes.get(address);
  if (inbox === undefined) {
    inbox = { tokens: [], items: [], lastNs: 0n };
    ns.inboxes.set(address, inbox);
  }
  return inbox;
}

export function upsertToken(ns: NotificationState, address: string, token: string, platform: Platform | undefined, nowNs: bigint): PushToken | Refusal {
  if (token.length > TOKEN_MAX_CHARS || !TOKEN_SHAPE.test(token)) return { status: 400, error: 'token must be a push token in its bracketed format, ExponentPushToken[…], at most 256 characters' };
  const known = ns.inboxes.get(address)?.tokens.find((t) => t.token === token);
  if (known !== undefined) {
    if (platform !== undefined) known.platform = platform;
    known.updatedAtNs = nowNs;
    return known;
  }
  if ((ns.inboxes.get(address)?.tokens.length ?? 0) >= TOKENS_PER_WALLET) return { status: 400, error: `at most ${TOKENS_PER_WALLET} push tokens per wallet` };
  const record: PushToken = { token, platform, createdAtNs: nowNs, updatedAtNs: nowNs };
  enrol(ns, address).tokens.push(record);
  return record;
}

/** Adds a notification to a subscriber's inbox; nothing for other wallets. */
export function pushNotification(ns: NotificationState, address: string, nowNs: bigint, item: Omit<StoredNotification, 'notificationId' | 'createdAtNs' | 'seen'>, log?: NotificationLog): StoredNotification | undefined {
  const inbox = ns.inboxes.get(address);
  if (inbox === undefined) return undefined;
  const createdAtNs = nowNs > inbox.lastNs ? nowNs : inbox.lastNs + 1n;
  inbox.lastNs = createdAtNs;
  const stored: StoredNotification = { notificationId: ns.nextId++, createdAtNs, seen: false, ...item };
  if (log !== undefined) {
    log.add(address, stored);
    return stored;
  }
  inbox.items.push(stored);
  if (inbox.items.length > INBOX_CAP) inbox.items.shift();
  return stored;
}

/** Newest first, strictly older than `beforeNs` when given, up to `limit`. */
export function inboxPage(inbox: Inbox, beforeNs: bigint | undefined, limit: number): { rows: StoredNotification[]; more: boolean } {
  const rows: StoredNotification[] = [];
  let i = inbox.items.length - 1;
  if (beforeNs !== undefined) while (i >= 0 && inbox.items[i]!.createdAtNs >= beforeNs) i--;
  for (; i >= 0 && rows.length < limit; i--) rows.push(inbox.items[i]!);
  return { rows, more: i >= 0 };
}

export function unseenCount(inbox: Inbox): number {
  let n = 0;
  for (const item of inbox.items) if (!item.seen) n++;
  return n;
}

/** `createdAtNs` as sent: its decimal string, or a bare JSON number (already rounded to a double). */
export type MarkSeenTarget = { all: true; limit: number } | { ids: { createdAtNs: string | number; notificationId: number }[] };

/**
 * A sent created_at_ns names the stored instant when equal, or equal once both are rounded to a
 * double: a bare JSON number has lost its last digits (and schema coercion may have turned it
 * into a string); the notification id, unique per wallet, disambiguates.
 */
export function sameInstant(stored: bigint, sent: string | number): boolean {
  if (typeof sent === 'string' && /^[0-9]+$/.test(sent) && BigInt(sent) === stored) return true;
  return Number(sent) === Number(stored);
}

/** Flips the targeted notifications to seen; returns how many were unseen (idempotent). */
export function markSeen(ns: NotificationState, address: string, target: MarkSeenTarget, log?: NotificationLog): number {
  const inbox = ns.inboxes.get(address);
  if (inbox === undefined) return 0;
  if (log !== undefined) return log.markSeen(address, target);
  let marked = 0;
  const flip = (item: StoredNotification): void => {
    if (!item.seen) {
      item.seen = true;
      marked++;
    }
  };
  if ('all' in target) {
    for (let i = inbox.items.length - 1, n = 0; i >= 0 && n < target.limit; i--, n++) flip(inbox.items[i]!);
    return marked;
  }
  for (const id of target.ids) {
    const item = inbox.items.find((it) => it.notificationId === id.notificationId && sameInstant(it.createdAtNs, id.createdAtNs));
    if (item !== undefined) flip(item);
  }
  return marked;
}
