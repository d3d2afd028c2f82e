/**
 * The request timestamp: X-Timestamp on REST, the envelope's `timestamp` on WebSocket.
 *
 * Contract (interface.md Authentication rule 1, "Conventions", Limits "Timestamp drift"):
 * - The value is Unix nanoseconds as a decimal string (a JSON integer is accepted too; the
 *   WebSocket envelope carries a string). Anything else is `invalidTimestamp`.
 * - A value below `MIN_NANOSECOND_TIMESTAMP` (10^17 ns, 1973-03-03) is second-, millisecond- or
 *   microsecond-scale for any present-day date and is `timestampNotNanoseconds`. The interface
 *   names seconds and milliseconds; microseconds are refused with the same message because they
 *   are just as surely the wrong unit (they would be out of window anyway, also 401).
 * - A value farther than `LIMITS.timestampDriftMs` (30,000 ms) from the server clock in either
 *   direction is `timestampOutOfWindow`; exactly 30,000 ms is still inside.
 * - perpsim has two clocks, the wall clock and the simulator's (virtual) clock. A timestamp is
 *   accepted when it is inside the window of EITHER clock, so bots that stamp requests with
 *   wall time keep working while the simulator runs on virtual time, and bots that read
 *   `GET /v1/time` keep working too. Both clocks are parameters; this module reads no clock.
 */
import { LIMITS } from '../../engine/spec.ts';
import { AUTH_ERRORS, fail, ok, type AuthResult } from './errors.ts';

/** 10^17 ns = 1973-03-03T09:46:40Z: smaller values are not present-day nanoseconds. */
export const MIN_NANOSECOND_TIMESTAMP = 100_000_000_000_000_000n;

const NS_PER_MS = 1_000_000n;
/** Longer digit strings are refused before BigInt parses them (int64 has 19 digits). */
const MAX_DIGITS = 32;
const DIGITS = /^[0-9]+$/;

/** The server's two clocks, in Unix nanoseconds. */
export interface ServerClocks {
  /** Wall clock (`process.hrtime`/`Date.now` based). */
  readonly wallNs: bigint;
  /** The simulator's clock (virtual time; equals wall time when the simulator runs live). */
  readonly simNs: bigint;
}

/**
 * Parses a request timestamp without checking the window.
 *
 * @example parseTimestampNs('1700000000000000000') // { ok: true, value: 1700000000000000000n }
 * @example parseTimestampNs('1700000000000')       // { ok: false, error: timestampNotNanoseconds }
 */
export function parseTimestampNs(raw: unknown): AuthResult<bigint> {
  if (raw === undefined || raw === null || raw === '') return fail(AUTH_ERRORS.missingTimestamp);
  let value: bigint;
  if (typeof raw === 'string') {
    if (raw.length > MAX_DIGITS || !DIGITS.test(raw)) return fail(AUTH_ERRORS.invalidTimestamp);
    value = BigInt(raw);
  } else if (typeof raw === 'bigint') {
    value = raw;
  } else if (typeof raw === 'number' && Number.isInteger(raw)) {
    value = BigInt(raw);
  } else {
    return fail(AUTH_ERRORS.invalidTimestamp);
  }
  if (value < 0n) return fail(AUTH_ERRORS.invalidTimestamp);
  if (value < MIN_NANOSECOND_TIMESTAMP) return fail(AUTH_ERRORS.timestampNotNanoseconds);
  return ok(value);
}

/** True when `timestampNs` is at most `driftMs` from `clockNs`, either direction. */
export function withinDrift(timestampNs: bigint, clockNs: bigint, driftMs: number = LIMITS.timestampDriftMs): boolean {
  const diff = timestampNs >= clockNs ? timestampNs - clockNs : clockNs - timestampNs;
  return diff <= BigInt(driftMs) * NS_PER_MS;
}

/**
 * Parses and window-checks a request timestamp against both server clocks.
 *
 * @param raw - X-Timestamp header or WS envelope `timestamp`.
 * @param clocks - Wall and simulator clocks, Unix ns.
 * @param driftMs - Allowed distance either way; defaults to `LIMITS.timestampDriftMs`.
 * @returns The timestamp in ns (the value `ct` must equal), or the 401 to answer.
 * @example checkTimestamp('1700000000000000000', { wallNs: 1700000010000000000n, simNs: 0n })
 *   // { ok: true, value: 1700000000000000000n }
 */
export function checkTimestamp(raw: unknown, clocks: ServerClocks, driftMs: number = LIMITS.timestampDriftMs): AuthResult<bigint> {
  const parsed = parseTimestampNs(raw);
  if (!parsed.ok) return parsed;
  const ts = parsed.value;
  if (withinDrift(ts, clocks.wallNs, driftMs) || withinDrift(ts, clocks.simNs, driftMs)) return parsed;
  return fail(AUTH_ERRORS.timestampOutOfWindow);
}
