/**
 * WebSocket limits, as functions on per-IP and per-connection counters.
 *
 * Contract (interface.md "Limits", "WebSocket limits"):
 *
 * | limit                        | value                                                           |
 * |------------------------------|-----------------------------------------------------------------|
 * | simultaneous connections     | 50 per IP                                                       |
 * | new connections              | 50 per minute per IP; a rejected attempt still consumes a token |
 * | subscriptions                | 100 per connection, 1,000 per IP                                |
 * | client messages              | 1,000 per minute per IP: subscribe, unsubscribe, malformed only |
 * | in-flight post messages      | 50 per connection                                               |
 * | connection lifetime          | 24 hours                                                        |
 * | request frame                | 1 MB                                                            |
 *
 * The per-minute limits are token buckets (token-bucket.ts) of the stated size refilling
 * continuously over a minute, like the IP weight bucket.
 *
 * New connections: an attempt first takes a token; without one it is refused (`connection_rate`)
 * and takes nothing (there is nothing to take). Only then is the simultaneous cap checked: an
 * attempt refused there (`connections`) keeps the token it took. That is the reading of "a
 * rejected attempt still consumes a token" chosen here: the token is not given back when a
 * later check refuses the attempt. A refusal for want of a token takes nothing (taking one
 * would drive the bucket negative and keep out a client that retries faster than the refill).
 *
 * Messages: only subscribe, unsubscribe and malformed frames take a token; well-formed post and
 * get calls (and pings) are exempt. A subscribe frame takes its message token before its
 * subscription is checked against the subscription caps, so a refused subscribe still counts as
 * a message.
 *
 * Subscriptions are counted per connection and per IP; the caller adds one only for a new
 * subscription identity (a repeat subscribe of the same identity does not count twice) and
 * removes one on unsubscribe. Closing a connection releases its subscriptions from the IP count.
 *
 * Time: `nowMs` is passed in. State is plain readonly data; every function returns new values.
 */
import { bucketIsFull, bucketTokens, takeFromBucket, type TokenBucket, type TokenBucketRule } from './token-bucket.ts';

export interface WsLimitsConfig {
  readonly connectionsPerIp: number;
  readonly newConnections: TokenBucketRule;
  readonly subscriptionsPerConnection: number;
  readonly subscriptionsPerIp: number;
  readonly clientMessages: TokenBucketRule;
  readonly inFlightPostsPerConnection: number;
  readonly connectionLifetimeMs: number;
  readonly maxFrameBytes: number;
}

/** Counters of one IP across its connections. */
export interface WsIpState {
  readonly connections: number;
  readonly subscriptions: number;
  /** New-connection tokens (undefined: never connected, full). */
  readonly newConnections: TokenBucket | undefined;
  /** Counted client-message tokens (undefined: never sent one, full). */
  readonly messages: TokenBucket | undefined;
}

/** Counters of one connection. */
export interface WsConnectionState {
  readonly openedAtMs: number;
  readonly subscriptions: number;
  readonly inFlightPosts: number;
}

export const FRESH_WS_IP: WsIpState = { connections: 0, subscriptions: 0, newConnections: undefined, messages: undefined };

// ---------------------------------------------------------------------------------------------
// Connections.

export type WsConnectRejectReason = 'connection_rate' | 'connections';

export type WsConnectResult =
  | { readonly accepted: true; readonly ip: WsIpState; readonly connection: WsConnectionState }
  | {
      readonly accepted: false;
      readonly ip: WsIpState;
      readonly reason: WsConnectRejectReason;
      /** Until a new-connection token is back (`connection_rate` only; the other waits on a close). */
      readonly retryAfterMs?: number;
    };

/** A connection attempt from an IP at `nowMs`. */
export function openConnection(ip: WsIpState | undefined, nowMs: number, config: WsLimitsConfig): WsConnectResult {
  const current = ip ?? FRESH_WS_IP;
  const token = takeFromBucket(current.newConnections, 1, nowMs, config.newConnections);
  if (!token.ok) {
    return { accepted: false, ip: { ...current, newConnections: token.bucket }, reason: 'connection_rate', retryAfterMs: token.retryAfterMs };
  }
  const charged = { ...current, newConnections: token.bucket };
  if (current.connections >= config.connectionsPerIp) return { accepted: false, ip: charged, reason: 'connections' };
  return { accepted: true, ip: { ...charged, connections: current.connections + 1 }, connection: newConnectionState(nowMs) };
}

/** The counters of a connection opened at `nowMs` (also for one the per-IP limits do not apply to). */
export function newConnectionState(nowMs: number): WsConnectionState {
  return { openedAtMs: nowMs, subscriptions: 0, inFlightPosts: 0 };
}

/** A connection closed: its slot and its subscriptions go back to the IP. */
export function closeConnection(ip: WsIpState, connection: WsConnectionState): WsIpState {
  return {
    ...ip,
    connections: Math.max(0, ip.connections - 1),
    subscriptions: Math.max(0, ip.subscriptions - connection.subscriptions),
  };
}

/**
 * Whether an IP's counters at `nowMs` are those of an IP never seen (no connection, no
 * subscription, both token buckets full): the caller may then drop its entry.
 */
export function wsIpIsFresh(ip: WsIpState, nowMs: number, config: WsLimitsConfig): boolean {
  return (
    ip.connections === 0 &&
    ip.subscriptions === 0 &&
    bucketIsFull(ip.newConnections, nowMs, config.newConnections) &&
    bucketIsFull(ip.messages, nowMs, config.clientMessages)
  );
}

/** Clock reading (ms) at which a connection reaches its 24-hour lifetime and is closed. */
export function connectionExpiresAtMs(connection: WsConnectionState, config: WsLimitsConfig): number {
  return connection.openedAtMs + config.connectionLifetimeMs;
}

export function connectionExpired(connection: WsConnectionState, nowMs: number, config: WsLimitsConfig): boolean {
  return nowMs >= connectionExpiresAtMs(connection, config);
}

/** A request frame above 1 MB is refused. */
export function frameTooLarge(bytes: number, config: WsLimitsConfig): boolean {
  return bytes > config.maxFrameBytes;
}

// ---------------------------------------------------------------------------------------------
// Client messages.

/** What a client frame turned out to be once parsed. */
export type WsFrameKind = 'subscribe' | 'unsubscribe' | 'malformed' | 'post' | 'get' | 'ping';

/** Frame kinds that count against the per-IP message limit. */
export const COUNTED_FRAME_KINDS: ReadonlySet<WsFrameKind> = new Set<WsFrameKind>(['subscribe', 'unsubscribe', 'malformed']);

export type WsMessageResult =
  | { readonly allowed: true; readonly ip: WsIpState }
  | { readonly allowed: false; readonly ip: WsIpState; readonly retryAfterMs: number };

/** A client frame received at `nowMs`: counted kinds take a message token, others pass untouched. */
export function receiveFrame(ip: WsIpState | undefined, kind: WsFrameKind, nowMs: number, config: WsLimitsConfig): WsMessageResult {
  const current = ip ?? FRESH_WS_IP;
  if (!COUNTED_FRAME_KINDS.has(kind)) return { allowed: true, ip: current };
  const token = takeFromBucket(current.messages, 1, nowMs, config.clientMessages);
  const next = { ...current, messages: token.bucket };
  return token.ok ? { allowed: true, ip: next } : { allowed: false, ip: next, retryAfterMs: token.retryAfterMs };
}

/** Message tokens an IP has at `nowMs` (fractional while refilling). */
export function messageTokens(ip: WsIpState | undefined, nowMs: number, config: WsLimitsConfig): number {
  return bucketTokens((ip ?? FRESH_WS_IP).messages, nowMs, config.clientMessages);
}

// ---------------------------------------------------------------------------------------------
// Subscriptions.

export type WsSubscribeRejectReason = 'connection_subscriptions' | 'ip_subscriptions';

export type WsSubscribeResult =
  | { readonly accepted: true; readonly ip: WsIpState; readonly connection: WsConnectionState }
  | { readonly accepted: false; readonly reason: WsSubscribeRejectReason };

/** A new subscription identity on a connection. */
export function addSubscription(ip: WsIpState, connection: WsConnectionState, config: WsLimitsConfig): WsSubscribeResult {
  if (connection.subscriptions >= config.subscriptionsPerConnection) return { accepted: false, reason: 'connection_subscriptions' };
  if (ip.subscriptions >= config.subscriptionsPerIp) return { accepted: false, reason: 'ip_subscriptions' };
  return {
    accepted: true,
    ip: { ...ip, subscriptions: ip.subscriptions + 1 },
    connection: { ...connection, subscriptions: connection.subscriptions + 1 },
  };
}

/** A subscription identity removed (unsubscribe). */
export function removeSubscription(ip: WsIpState, connection: WsConnectionState): { readonly ip: WsIpState; readonly connection: WsConnectionState } {
  if (connection.subscriptions === 0) return { ip, connection };
  return {
    ip: { ...ip, subscriptions: Math.max(0, ip.subscriptions - 1) },
    connection: { ...connection, subscriptions: connection.subscriptions - 1 },
  };
}

// ---------------------------------------------------------------------------------------------
// In-flight posts.

/** A post call starts; refused when the connection already has 50 in flight. */
export function beginPost(connection: WsConnectionState, config: WsLimitsConfig): WsConnectionState | undefined {
  if (connection.inFlightPosts >= config.inFlightPostsPerConnection) return undefined;
  return { ...connection, inFlightPosts: connection.inFlightPosts + 1 };
}

/** A post call answered. */
export function endPost(connection: WsConnectionState): WsConnectionState {
  return { ...connection, inFlightPosts: Math.max(0, connection.inFlightPosts - 1) };
}
