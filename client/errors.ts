/**
 * The one error the SDK throws for a refusal by the venue, REST or WebSocket alike.
 *
 * Contract (interface.md "Errors", supplement §3, §9, §10): `status` is the HTTP status (or the
 * WebSocket reply's HTTP-like `status`); `errorType` the body's errorType (Tick,
 * InvalidRequest, …) or, over the socket, `error.type`; `rejectionReason` the order's
 * rejectionReason (setLeverage and adjustIsolatedMargin call theirs `rejectReason`, read into
 * the same field); `retryAfterMs` from a 429 body, else from its `Retry-After` header (whole
 * seconds); `reason` the rate-limit bucket (`ip`, `account_empty`, `account_partial`).
 *
 * A single order write the venue answered 200 REJECTED is thrown too (status 200, with its
 * orderId): the request reached a definitive refusal, which callers handle like a 4xx. Batch
 * rows are returned, never thrown, since some elements may have gone through.
 */

export interface ApiErrorFields {
  status: number;
  message: string;
  errorType?: string | undefined;
  errorSource?: string | undefined;
  rejectionReason?: string | undefined;
  retryAfterMs?: number | undefined;
  reason?: string | undefined;
  code?: string | undefined;
  requestId?: string | undefined;
  orderId?: string | undefined;
  /** The reply body as received. */
  body?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  readonly errorType: string | undefined;
  readonly errorSource: string | undefined;
  readonly rejectionReason: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly reason: string | undefined;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly orderId: string | undefined;
  readonly body: unknown;

  constructor(fields: ApiErrorFields) {
    super(fields.message);
    this.name = 'ApiError';
    this.status = fields.status;
    this.errorType = fields.errorType;
    this.errorSource = fields.errorSource;
    this.rejectionReason = fields.rejectionReason;
    this.retryAfterMs = fields.retryAfterMs;
    this.reason = fields.reason;
    this.code = fields.code;
    this.requestId = fields.requestId;
    this.orderId = fields.orderId;
    this.body = fields.body;
  }

  /** True for 429: the request may be sent again after `retryAfterMs`. */
  get rateLimited(): boolean {
    return this.status === 429;
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/**
 * The error for a REST reply. `retryAfterHeader` is the `Retry-After` header's value; the
 * body's retryAfterMs wins when both are present (it is what the header was rounded up from).
 */
export function apiErrorFromReply(status: number, body: unknown, retryAfterHeader?: string | null): ApiError {
  const record = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const headerSeconds = retryAfterHeader === undefined || retryAfterHeader === null ? NaN : Number(retryAfterHeader);
  const retryAfterMs = typeof record.retryAfterMs === 'number' ? record.retryAfterMs : Number.isFinite(headerSeconds) ? headerSeconds * 1000 : undefined;
  return new ApiError({
    status,
    message: text(record.error) ?? text(record.message) ?? `HTTP ${status}`,
    errorType: text(record.errorType),
    errorSource: text(record.errorSource),
    rejectionReason: text(record.rejectionReason) ?? text(record.rejectReason),
    retryAfterMs,
    reason: text(record.reason),
    code: text(record.code),
    requestId: text(record.requestId),
    orderId: text(record.orderId),
    body,
  });
}

/** The error for a WebSocket RPC reply `{status, error: {type, message, …}}`. */
export function apiErrorFromRpc(status: number, error: unknown): ApiError {
  const record = (error !== null && typeof error === 'object' ? error : { message: error }) as Record<string, unknown>;
  return new ApiError({
    status,
    message: text(record.message) ?? `status ${status}`,
    errorType: text(record.type),
    errorSource: text(record.errorSource),
    rejectionReason: text(record.rejectionReason) ?? text(record.rejectReason),
    retryAfterMs: typeof record.retryAfterMs === 'number' ? record.retryAfterMs : undefined,
    reason: text(record.reason),
    code: text(record.code),
    requestId: text(record.requestId),
    orderId: text(record.orderId),
    body: error,
  });
}

/** A single write answered 200 REJECTED, thrown as the error every other refusal is. */
export function throwIfRejected<T extends { status?: string; rejectionReason?: string | undefined; orderId?: string; error?: string | undefined }>(reply: T): T {
  if (reply.status !== 'REJECTED') return reply;
  throw new ApiError({ status: 200, message: reply.error ?? reply.rejectionReason ?? 'rejected', rejectionReason: reply.rejectionReason, orderId: reply.orderId, body: reply });
}
