/**
 * The filters account-scoped list reads share, as query schemas and their parsing: `market` (a
 * display name, case-insensitive, or an id; 400 when unresolvable), `from` / `to` (epoch µs,
 * inclusive, at least 1e14; 400 when reversed), `limit` (1..1000, default 1000, larger clamped),
 * enum filters matched case-insensitively.
 * Spec: interface.md "Public and account reads", "Conventions", "Limits".
 */
import { Type, type TObject, type TProperties } from 'typebox';
import { LIMITS, type MarketState } from '../../../engine/index.ts';
import { badRequest, type Refusal } from '../../contract/errors.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import { AccountQuery, isReply } from './common.ts';
import type { Window } from '../../shared/window.ts';

const BOUND = Type.Integer({ minimum: LIMITS.minMicrosecondBound });

/** market, from, to, limit. */
export const LIST_PARAMS = {
  market: Type.Optional(Type.String()),
  from: Type.Optional(BOUND),
  to: Type.Optional(BOUND),
  limit: Type.Optional(Type.Integer({ minimum: LIMITS.historyLimitMin })),
};

/** AccountQuery (address, accountIndex) plus `extra`; unknown parameters are ignored. */
export function accountQueryWith<P extends TProperties>(extra: P): TObject {
  return Type.Object({ ...AccountQuery.properties, ...extra }, { additionalProperties: true });
}

/** The market a `market` filter names, `null` when there is no filter, or a 400. */
export function marketFilter(exchange: Exchange, query: Record<string, unknown>): MarketState | null | Refusal {
  const selector = query.market;
  if (selector === undefined || selector === '') return null;
  return resolveMarket(exchange, selector) ?? badRequest(`unknown market: ${String(selector)}`);
}

/**
 * The inclusive time window of a history read. `defaultSpanUs` given: `to` defaults to `now` and
 * `from` to `to` − span; otherwise the missing bounds are open.
 */
export function windowOf(query: Record<string, unknown>, now: number, defaultSpanUs?: number): Window | Refusal {
  const to = query.to === undefined ? (defaultSpanUs === undefined ? Number.MAX_SAFE_INTEGER : now) : Number(query.to);
  const from = query.from === undefined ? (defaultSpanUs === undefined ? 0 : to - defaultSpanUs) : Number(query.from);
  if (from > to) return badRequest('from must not be after to');
  return { from, to };
}

/** Rows a page may return: 1-1000, default 1000, larger values clamped. */
export function limitOf(query: Record<string, unknown>): number {
  if (query.limit === undefined) return LIMITS.historyLimitDefault;
  return Math.min(LIMITS.historyLimitMax, Math.max(LIMITS.historyLimitMin, Math.trunc(Number(query.limit))));
}

/** An enum filter's value, uppercased; `null` when absent; a 400 when not one of `allowed`. */
export function enumFilter<T extends string>(query: Record<string, unknown>, name: string, allowed: readonly T[]): T | null | Refusal {
  const value = query[name];
  if (value === undefined || value === '') return null;
  const upper = String(value).toUpperCase();
  return (allowed as readonly string[]).includes(upper) ? (upper as T) : badRequest(`invalid ${name}: ${String(value)}`);
}

/** A filter parser's refusal (they return a value, null for "no filter", or a refusal). */
export function isFilterReply(value: unknown): value is Refusal {
  return value !== null && typeof value === 'object' && isReply(value);
}

/** "-" + size for negative quantities (signed position and payment sizes). */
export function signed(text: (abs: number) => string, value: number): string {
  return (value < 0 ? '-' : '') + text(Math.abs(value));
}
