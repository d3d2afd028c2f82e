/**
 * What placeOrder, cancelOrder, modifyOrder, the three batches, cancelAllOrders and
 * scheduleCancel share beyond common.ts: enum codes, the target rule (exactly one of orderId /
 * clientId), request expiry (`validUntil`), the Scheme 1 context and refusal, the Scheme 2
 * checks, the replay check around the charge, and the batch envelope (shared address, the
 * X-Signature presence check, per-element checks and ERROR rows, a replay slot per element,
 * one pool charge of N, 202 or 200 by the rows).
 * Spec: interface.md "Order management", Scheme 1 rule 4; supplement §2, §3, §12. The batch
 * envelope's choices: docs/decisions.md "Order-write operations".
 */
import { Type, type Static, type TProperties, type TSchema, type TUnsafe } from 'typebox';
import { TIME_IN_FORCE, TIME_IN_FORCE_ALIASES, type ErrorSource } from '../../../engine/spec.ts';
import type { MarketState, SideCode, TifCode } from '../../../engine/index.ts';
import { checkBatchSignatureHeader, headersFromHttp } from '../../auth/index.ts';
import { ERRORS, refuse, type Refusal, type Reply } from '../../contract/errors.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import type { GatewayState, OperationRequest } from '../../contract/operation.ts';
import type { OrderWriteRateLimit, PooledOperation } from '../../rate-limit/index.ts';
import { all, andThen, type Maybe } from '../../shared/maybe.ts';
import { isReplayed, replaySlot, takeReplaySlot } from '../../auth/replay.ts';
import { chargeOrderWrite } from './charge.ts';
import { ErrorRow, RateLimitInfo, REFUSALS } from '../../contract/reply-schema.ts';
import { isReply, parseAddress, signedContext, verifyScheme2Signature, type SignedContext } from './common.ts';
import type { SchemaValidator } from '../../contract/validator.ts';

// ---------------------------------------------------------------------------------------------
// Schemas.

/**
 * `schema` or null, for fields where null means "omitted" (supplement §4: `time` null disarms).
 * Written with ajv's `nullable` rather than a union with null: fastify's ajv coerces types, and
 * in a union it would turn null into 0 / false / "" in the first branch before the null branch
 * is tried. Batch elements are checked without ajv, after `withoutNulls`.
 */
export function orNull<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

/** The fields that open placeOrder's and cancelOrder's replies (modifyOrder puts clientTime after accountIndex). */
export const ORDER_REPLY_HEAD = {
  address: Type.String(),
  accountIndex: Type.Integer(),
  orderId: Type.String(),
  clientId: Type.String(),
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
};

/**
 * An order write's two replies, fields in the order they are written: `head`, `status`, `tail`,
 * then (rejected only) `rejectedExtras`, then `rateLimit`. 202 `accepted` carries the
 * acknowledgement status, 200 `rejected` is definitive.
 */
export function orderWriteReplies<H extends TProperties, T extends TProperties, A extends string, X extends TProperties>(head: H, tail: T, acknowledged: A, rejectedExtras: X) {
  const rateLimit = Type.Optional(RateLimitInfo);
  return {
    accepted: Type.Object({ ...head, status: Type.Literal(acknowledged), ...tail, rateLimit }),
    rejected: Type.Object({ ...head, status: Type.Literal('REJECTED'), ...tail, ...rejectedExtras, rateLimit }),
  };
}

/** A batch element with its null-valued fields dropped (null means omitted, as in a single request). */
export function withoutNulls(element: unknown): unknown {
  if (element === null || typeof element !== 'object' || Array.isArray(element)) return element;
  return Object.fromEntries(Object.entries(element).filter(([, value]) => value !== null));
}

// ---------------------------------------------------------------------------------------------
// Enums and identifiers.

/** timeInForce text to `t` (0 GTT, 1 FOK, 2 IOC, 3 ALO); `GTC` is GTT (supplement §12). */
export function tifCode(text: string): TifCode | undefined {
  const name = TIME_IN_FORCE_ALIASES[text.toUpperCase()] ?? text.toUpperCase();
  const index = (TIME_IN_FORCE as readonly string[]).indexOf(name);
  return index < 0 ? undefined : (index as TifCode);
}

/** Modify's `side`: the interface writes buy/sell, placeOrder BUY/SELL; either case is accepted. */
export function sideCode(text: string): SideCode | undefined {
  const upper = text.toUpperCase();
  return upper === 'BUY' ? 0 : upper === 'SELL' ? 1 : undefined;
}

/** A reply's `clientTime`: the body's (ns), 0 when absent or not a finite number. */
export function clientTimeOf(value: string | number | undefined): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/** An optional identifier as sent: an empty string or null counts as absent (like an omitted signed key). */
export function present(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value === '' ? undefined : value;
}

/** The target rule of cancel and modify: exactly one of orderId / clientId (400 otherwise). */
export function checkTarget(source: ErrorSource, orderId: string | undefined, clientId: string | undefined): Refusal | undefined {
  if (orderId !== undefined && clientId !== undefined) return refuse(ERRORS.targetBoth, source);
  if (orderId === undefined && clientId === undefined) return refuse(ERRORS.targetNeither, source);
  return undefined;
}

/**
 * `validUntil` (epoch ms): past it the request must not be processed. 0 means no expiry, like
 * an API key's validUntil. A passed expiry is refused 400 InvalidRequest: it is a body field
 * that no longer validates, and the client must not retry the same request.
 */
export function checkValidUntil(state: GatewayState, source: ErrorSource, validUntil: number | null | undefined): Refusal | undefined {
  if (validUntil === undefined || validUntil === null || validUntil === 0) return undefined;
  return state.nowMs() > validUntil ? refuse(ERRORS.requestExpired, source) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Scheme 1 (placeOrder, cancelOrder, modifyOrder, and their batch elements).

export interface OrderWriteContext {
  ctx: SignedContext;
  ms: MarketState;
}

/**
 * The signed-request checks of one order body, against its own address and accountIndex (a
 * batch element's, not only the request's), then its market (400 unknown market).
 */
export function orderWriteContext(
  state: GatewayState,
  request: OperationRequest,
  body: { accountIndex: number; marketId: number },
  source: ErrorSource,
  outer: 'verified' | 'present',
): OrderWriteContext | Refusal {
  const ctx = signedContext(state, request, body.accountIndex, 'trade', outer, body);
  if (isReply(ctx)) return ctx;
  const ms = resolveMarket(state.exchange, body.marketId);
  return ms === undefined ? refuse(ERRORS.unknownMarket, source) : { ctx, ms };
}

/**
 * A payload signature that does not verify. In a batch (outer header only present) it is the
 * element's own signature that failed, so its row says `invalid order signature`, as the rows of
 * a batch without the header do.
 */
export function scheme1Refusal(outer: 'verified' | 'present'): Refusal {
  return refuse(outer === 'present' ? ERRORS.invalidOrderSignature : ERRORS.invalidSignature, undefined);
}

// ---------------------------------------------------------------------------------------------
// Scheme 2 (cancelAllOrders, scheduleCancel).

/**
 * The signed-request checks (common.ts) plus the Scheme 2 signature over
 * `timestamp + action + canonical_json(body)`; 401 `invalid signature` when it does not verify.
 * The body canonicalized is the one the client sent (parsed again from the raw bytes), not
 * the one schema validation handed the handler: ajv's type coercion may have rewritten values
 * (`"5"` → 5), which would change the signed text.
 */
export function scheme2Context(state: GatewayState, request: OperationRequest, accountIndex: number): Maybe<SignedContext | Refusal> {
  const ctx = signedContext(state, request, accountIndex);
  if (isReply(ctx)) return ctx;
  return andThen(verifyScheme2Signature(state, request, ctx), (refusal) => refusal ?? ctx);
}

// ---------------------------------------------------------------------------------------------
// Replay and charge.

/** What chargeOrderWrite answers: the rate-limit block for the reply, or the 429. */
export type Charged = { rateLimit: OrderWriteRateLimit | undefined } | Refusal;

/**
 * The replay check around a write's charge: a replay is refused (409) before it costs anything,
 * and the slot is taken only once the charge passed, so a request refused 429 may be sent again
 * unchanged.
 */
export function chargeOnce(state: GatewayState, signature: string, charge: () => Charged): Charged {
  if (isReplayed(state, signature)) return refuse(ERRORS.replayed, undefined);
  const charged = charge();
  if (!isReply(charged)) takeReplaySlot(state, signature);
  return charged;
}

// ---------------------------------------------------------------------------------------------
// Batches.

/**
 * A batch's replies, 202 and 200 alike: `{responses, rateLimit}`, each row the element's single
 * write reply (the operation's own 202 or 200 schema, its rateLimit left out) or an ERROR row.
 */
export function batchReplies<A extends TSchema, R extends TSchema>(accepted: A, rejected: R) {
  const body = Type.Object({ responses: Type.Array(Type.Union([accepted, rejected, ErrorRow])), rateLimit: Type.Optional(RateLimitInfo) });
  return { 200: body, 202: body, ...REFUSALS } as const;
}

/** The row of an element that did not go through. */
export type BatchErrorRow = Static<typeof ErrorRow>;

/** The orderId and clientId an element's row names (placeOrder elements have no orderId). */
export type RowIds = (element: unknown) => [string | undefined, string | undefined];

/** Cancel and modify elements: their target as sent. */
export const targetRowIds: RowIds = (element) => [stringField(element, 'orderId'), stringField(element, 'clientId')];

/** The row of an element that did not go through. */
export function errorRow(orderId: string | undefined, clientId: string | undefined, error: string): BatchErrorRow {
  return { orderId: orderId ?? '', clientId: clientId ?? '', status: 'ERROR', error };
}

/** A refusal (4xx/5xx reply) turned into an element's row. */
export function rowFromReply(reply: Reply, orderId: string | undefined, clientId: string | undefined): BatchErrorRow {
  const error = (reply.body as { error?: unknown } | undefined)?.error;
  return errorRow(orderId, clientId, typeof error === 'string' ? error : 'rejected');
}

/**
 * Checks one element against its single-request schema with the process's validator (the one
 * REST and the WebSocket use: the same coercion and messages as a single request); the first
 * error as text, or undefined.
 */
export function elementError(validator: SchemaValidator, schema: TSchema, value: unknown, where: string): string | undefined {
  const validate = validator.compile(schema);
  if (validate(value)) return undefined;
  const first = validate.errors?.[0];
  return first === undefined ? `${where} is invalid` : `${where}${first.instancePath} ${first.message ?? 'is invalid'}`;
}

/** Field reads on an element that may not have passed its schema. */
export function stringField(element: unknown, name: string): string | undefined {
  const value = (element as Record<string, unknown> | null)?.[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The batch's missing-X-Signature refusal, or undefined when the header is there: 401, every
 * element rejected with `invalid order signature`.
 */
export function batchHeaderRefusal(request: OperationRequest, elements: readonly unknown[], rowIds: RowIds): Refusal | undefined {
  const error = checkBatchSignatureHeader(headersFromHttp(request.headers).signature);
  if (error === null) return undefined;
  const responses = elements.map((element) => {
    const [orderId, clientId] = rowIds(element);
    return errorRow(orderId, clientId, error.error);
  });
  return { status: error.status, body: { error: error.error, responses } };
}

/**
 * The shared account of a batch: every element's address (when it has one) and accountIndex
 * must agree (400 otherwise), then the signed-request checks once for the whole request (outer
 * signature only present).
 */
export function batchContext(state: GatewayState, request: OperationRequest, source: ErrorSource, elements: readonly unknown[]): SignedContext | Refusal {
  let address: string | undefined;
  let accountIndex: number | undefined;
  for (const element of elements) {
    const record = (element ?? {}) as Record<string, unknown>;
    if (record.address !== undefined) {
      const parsed = parseAddress(record.address);
      if (parsed === null) return refuse(ERRORS.invalidAddress, undefined);
      if (address !== undefined && parsed !== address) return refuse(ERRORS.batchAccountsDiffer, source);
      address = parsed;
    }
    if (Number.isInteger(record.accountIndex)) {
      if (accountIndex !== undefined && record.accountIndex !== accountIndex) return refuse(ERRORS.batchAccountsDiffer, source);
      accountIndex = record.accountIndex as number;
    }
  }
  if (accountIndex === undefined) return refuse(ERRORS.accountIndexRequired, source);
  return signedContext(state, request, accountIndex, 'trade', 'present', address === undefined ? {} : { address });
}

export interface ParsedElements<T> {
  /** The refused elements' rows, at their index. */
  rows: (BatchErrorRow | undefined)[];
  accepted: { index: number; parsed: T }[];
}

/**
 * Each element checked as its single request would be (nulls dropped, its schema, then
 * `parse`); a refused element only gets its ERROR row, so the others still go on.
 */
export function parseElements<E, T extends object>(
  validator: SchemaValidator,
  elements: readonly unknown[],
  field: string,
  schema: TSchema,
  rowIds: RowIds,
  parse: (element: E) => Maybe<T | Reply>,
): Maybe<ParsedElements<T>> {
  // Every element's signature is verified at once; rows and acceptances keep the elements' order.
  const outcomes = elements.map((sent, index): Maybe<{ row: BatchErrorRow } | { parsed: T }> => {
    const raw = withoutNulls(sent);
    const [orderId, clientId] = rowIds(raw);
    const invalid = elementError(validator, schema, raw, `${field}/${index}`);
    if (invalid !== undefined) return { row: errorRow(orderId, clientId, invalid) };
    return andThen(parse(raw as E), (parsed) => (isReply(parsed) ? { row: rowFromReply(parsed, orderId, clientId) } : { parsed }));
  });
  return andThen(all(outcomes), (settled) => {
    const rows: (BatchErrorRow | undefined)[] = [];
    const accepted: { index: number; parsed: T }[] = [];
    settled.forEach((outcome, index) => {
      if ('row' in outcome) rows[index] = outcome.row;
      else accepted.push({ index, parsed: outcome.parsed });
    });
    return { rows, accepted };
  });
}

/**
 * The batch's replay slots and its one charge of N, in `chargeOnce`'s order. Each element that
 * passed its checks claims its signature's slot; one already taken, or claimed by an earlier
 * element of this batch, becomes an ERROR row `replayed request` and leaves `parsed.accepted`.
 * A batch whose checked elements are all replays is 409 and costs nothing. The slots are taken
 * only once the charge passed (a 429 leaves them usable). With auth off no element signature is
 * verified (the backtest sends the same placeholder for every element), so none claims a slot.
 */
export function chargeBatch<T>(
  state: GatewayState,
  request: OperationRequest,
  operation: PooledOperation,
  ctx: SignedContext,
  elements: readonly unknown[],
  parsed: ParsedElements<T>,
  rowIds: RowIds,
): Charged {
  const claimed = new Set<string>();
  const fresh: ParsedElements<T>['accepted'] = [];
  const replayed: number[] = [];
  for (const element of parsed.accepted) {
    const signature = state.config.auth ? stringField(elements[element.index], 'signature') : undefined;
    const slot = signature === undefined ? undefined : replaySlot(signature);
    if (slot !== undefined && (claimed.has(slot) || state.replay.has(slot))) {
      replayed.push(element.index);
      continue;
    }
    if (slot !== undefined) claimed.add(slot);
    fresh.push(element);
  }
  if (replayed.length > 0 && fresh.length === 0) return refuse(ERRORS.replayed, undefined);
  const clientIds = elements.map((element) => stringField(element, 'clientId'));
  const charged = chargeOrderWrite(state, request, operation, ctx.address, ctx.accountIndex, elements.length, { kind: 'batch', clientIds });
  if (isReply(charged)) return charged;
  for (const slot of claimed) takeReplaySlot(state, slot);
  for (const index of replayed) parsed.rows[index] = errorRow(...rowIds(withoutNulls(elements[index])), 'replayed request');
  parsed.accepted = fresh;
  return charged;
}

/** An element's single-request reply as its row: a refusal as an ERROR row, else the reply's body. */
export function elementRow<R extends Reply>(reply: R, orderId: string | undefined, clientId: string | undefined): Exclude<R, Refusal>['body'] | BatchErrorRow {
  // A 4xx/5xx reply is a refusal (errors.ts), so any other is one of the write's own replies.
  return reply.status >= 400 ? rowFromReply(reply, orderId, clientId) : (reply.body as Exclude<R, Refusal>['body']);
}

/** Every element's row; one still without a row reads `not processed` rather than leave a hole in `responses`. */
export function everyRow<Row>(elements: readonly unknown[], rows: readonly (Row | BatchErrorRow | undefined)[], rowIds: RowIds): (Row | BatchErrorRow)[] {
  return elements.map((element, index) => rows[index] ?? errorRow(...rowIds(element), 'not processed'));
}

/** 202 when some element was forwarded and acknowledged, 200 when every row is definitive. */
export function batchReply<Row extends { status: string }>(responses: Row[], rateLimit: Static<typeof RateLimitInfo> | undefined, acknowledged: string): Reply<{ responses: Row[]; rateLimit?: Static<typeof RateLimitInfo> }> {
  const body: { responses: Row[]; rateLimit?: Static<typeof RateLimitInfo> } = { responses };
  if (rateLimit !== undefined) body.rateLimit = rateLimit;
  return { status: responses.some((row) => row.status === acknowledged) ? 202 : 200, body };
}
