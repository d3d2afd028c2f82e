/**
 * Signed requests that act for a whole wallet rather than one subaccount (the affiliate routes,
 * notification tokens and markSeen, userPreferences writes): the header triple and timestamp
 * window (401), a key bound to the address (403; a subaccount-scoped key acts for its wallet),
 * `address` from query and/or body (400, 403 when they differ; the key's own when neither has
 * one, for the routes that bind to the key's master wallet). POSTs verify Scheme 2 and take a
 * replay slot; signed GETs verify `<ts><last path segment>` and take none (supplement §1).
 */
import { headersFromHttp, verifySignedGet } from '../../auth/index.ts';
import { fail, ok, type Refusal as RefusalReply, type Reply } from '../../contract/errors.ts';
import type { GatewayState, OperationRequest, ServiceStore } from '../../contract/operation.ts';
import type { Refusal } from '../../services/referral.ts';
import { admitScheme2Write } from './account-writes-common.ts';
import { isReply, signedContext, verifyScheme2Signature, type SignedContext } from './common.ts';
import { sequenced, walletKey } from '../../auth/sequencer.ts';
import type { Maybe } from '../../shared/maybe.ts';
import { isFilterReply, limitOf, windowOf } from './read-filters.ts';
import { inWindow, newestFirst, type Page } from '../../shared/window.ts';

export interface WalletContext extends SignedContext {
  /** The request id of a POST (account-writes-common.ts requestIdOf). */
  requestId: string;
}

/** The signed checks before a route's own field checks (see the contract above). */
export function walletContext(state: GatewayState, request: OperationRequest, addressFromKey = false): SignedContext | RefusalReply {
  const apiKey = headersFromHttp(request.headers).apiKey;
  const key = typeof apiKey === 'string' ? state.keys.byKey.get(apiKey.toLowerCase()) : undefined;
  let req = request;
  const bodyAddress = (request.body as Record<string, unknown> | undefined)?.address;
  if (addressFromKey && key !== undefined && request.query.address === undefined && bodyAddress === undefined) {
    req = { ...request, query: { ...request.query, address: key.address } };
  }
  return signedContext(state, req, key?.accountIndex ?? 0);
}

/**
 * The last checks of a signed wallet POST, after its field checks: the Scheme 2 signature
 * (verified off the event loop), then — in the wallet's turn (sequencer.ts) — the replay slot
 * and `act`.
 */
export function admitWalletPost<B>(state: GatewayState, request: OperationRequest, ctx: SignedContext, operation: string, act: (admitted: WalletContext) => Reply<B> | RefusalReply): Maybe<Reply<B> | RefusalReply> {
  return sequenced(state, walletKey(ctx.address), () => verifyScheme2Signature(state, request, ctx), (refusal) => {
    if (refusal !== null) return refusal;
    const requestId = admitScheme2Write(state, ctx, operation);
    if (typeof requestId !== 'string') return requestId;
    const reply = act({ ...ctx, requestId });
    state.serviceWritten?.(storeOf(operation), ctx.address);
    return reply;
  });
}

/** The store a wallet POST changes, by its operation's name. */
function storeOf(operation: string): ServiceStore {
  if (operation.startsWith('affiliate')) return 'referral';
  if (operation.startsWith('notification')) return 'notifications';
  return 'preferences';
}

/** A signed wallet GET: context and the `<ts><last path segment>` signature. */
export function walletGet(state: GatewayState, request: OperationRequest): SignedContext | RefusalReply {
  const ctx = walletContext(state, request);
  if (isReply(ctx)) return ctx;
  if (state.config.auth && verifySignedGet(ctx.key.apiKey, ctx.headers.signature, ctx.headers.timestampText, request.path) === null) {
    return fail(401, 'invalid signature');
  }
  return ctx;
}

/**
 * A whole signed wallet POST of the submit-acknowledgement kind: signed checks, the route's own
 * field checks (`prepare`: a value, or a 400 reply), signature and replay slot, then `act`; 202
 * `{status: "submitted"}` unless the store refused.
 */
export function submitWalletWrite<T>(
  state: GatewayState,
  request: OperationRequest,
  operation: string,
  prepare: (ctx: SignedContext) => T | RefusalReply,
  act: (ctx: SignedContext, prepared: T) => object,
): Maybe<Reply<{ status: 'submitted' }> | RefusalReply> {
  const ctx = walletContext(state, request);
  if (isReply(ctx)) return ctx;
  const prepared = prepare(ctx);
  if (typeof prepared === 'object' && prepared !== null && isReply(prepared)) return prepared;
  return admitWalletPost(state, request, ctx, operation, () => {
    const outcome = act(ctx, prepared as T);
    return isRefusal(outcome) ? refused(outcome) : ok({ status: 'submitted' as const }, 202);
  });
}

/**
 * A signed wallet GET of a time-ordered list: signed checks, the from / to window and limit,
 * newest first.
 */
export function walletPage<T>(state: GatewayState, request: OperationRequest, listOf: (address: string) => readonly T[], timeOf: (entry: T) => number): { ctx: SignedContext; page: Page<T> } | RefusalReply {
  const ctx = walletGet(state, request);
  if (isReply(ctx)) return ctx;
  const window = windowOf(request.query, state.exchange.clock());
  if (isFilterReply(window)) return window;
  return { ctx, page: newestFirst(listOf(ctx.address), (e) => inWindow(timeOf(e), window), limitOf(request.query)) };
}

/** A store's refusal as the venue's error body. */
export function refused(refusal: Refusal): RefusalReply {
  return fail(refusal.status, refusal.error);
}

export function isRefusal(value: object): value is Refusal {
  return 'status' in value && 'error' in value && !('body' in value);
}
