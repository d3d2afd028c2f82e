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
import type { Reply } from '../errors.ts';
import type { GatewayState, Operation } from '../operation.ts';

export function restRead<T>(state: GatewayState, op: Operation, query: Record<string, unknown>, params: Record<string, string> = {}): T | undefined {
  const reply: Reply | Promise<Reply> = op.handle(state, { body: undefined, query, params, headers: {}, ip: '', path: op.path, rawBody: undefined });
  if (reply instanceof Promise) throw new Error(`${op.name} answers asynchronously: it cannot back a WebSocket snapshot`);
  // The operation declares its body type next to its handler (FundingReply, LeveragesReply, ...).
  return reply.status >= 200 && reply.status < 300 ? (reply.body as T) : undefined;
}
