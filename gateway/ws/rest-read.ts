/**
 * A REST read called in process: how a channel's snapshot stays the REST answer for the same
 * question (the account record, leverages, fee tiers, funding payments, transfers).
 *
 * Contract: only for public GET operations whose handler answers synchronously (every account
 * and market read does: they only look at the exchange). The query is what the route's schema
 * would have produced (numbers already numbers, defaults left to the handler). A non-2xx reply
 * reads as `undefined` (e.g. GET /v1/account's 404 before the first deposit); a handler that
 * turns asynchronous is a programming error and throws, so the channel cannot silently lose its
 * snapshot.
 */
import type { Static } from 'typebox';
import type { GatewayState, Operation } from '../contract/operation.ts';
import type { Responses } from '../contract/reply-schema.ts';

/** The body of an operation's 200 reply, as its reply schema types it. */
export type OkBody<R extends Responses> = R extends { 200: infer S } ? Static<S & Responses[string]> : never;

export function restRead<R extends Responses>(state: GatewayState, op: Operation<R>, query: Record<string, unknown>, params: Record<string, string> = {}): OkBody<R> | undefined {
  const reply = op.handle(state, { body: undefined, query, params, headers: {}, ip: '', path: op.path, rawBody: undefined });
  if (reply instanceof Promise) throw new Error(`${op.name} answers asynchronously: it cannot back a WebSocket snapshot`);
  // A 2xx reply of a read is its 200 body (reads declare no other success code).
  return reply.status >= 200 && reply.status < 300 ? (reply.body as OkBody<R>) : undefined;
}
