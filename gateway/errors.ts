/**
 * The venue's error bodies (interface.md "Error body", supplement §10), as reply data.
 *
 * Contract: every refusal the gateway sends is built here, so the shapes stay exact: `error`
 * always; `errorSource` + `errorType` on structured order errors; `rejectionReason` only on
 * the 200 path; `code` only for region blocks.
 */
import type { ErrorSource, ErrorType, RejectionReason } from '../engine/spec.ts';

export interface ErrorBody {
  error: string;
  code?: 'GEO_RESTRICTED';
  errorSource?: ErrorSource;
  errorType?: ErrorType;
  rejectionReason?: RejectionReason;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function fail(status: number, error: string, extra: Omit<ErrorBody, 'error'> = {}): Reply {
  return { status, body: { error, ...extra } satisfies ErrorBody };
}

/** A structured order/cancel error (400 unless said): errorSource + errorType. */
export function orderError(source: ErrorSource, errorType: ErrorType, error: string, status = 400): Reply {
  return fail(status, error, { errorSource: source, errorType });
}

export const badRequest = (error: string): Reply => fail(400, error);
export const unauthorized = (error: string): Reply => fail(401, error);
export const forbidden = (error: string): Reply => fail(403, error);
export const notFound = (error: string): Reply => fail(404, error);
export const conflict = (error: string): Reply => fail(409, error);

export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}
