import { describe, expect, it } from 'vitest';
import { LIMITS } from '../engine/spec.ts';
import { AUTH_ERRORS, MIN_NANOSECOND_TIMESTAMP, checkTimestamp, parseTimestampNs, type ServerClocks } from '../gateway/auth/index.ts';

const NOW = 1_700_000_000_000_000_000n;
const MS = 1_000_000n;
const DRIFT = BigInt(LIMITS.timestampDriftMs) * MS;
const LIVE: ServerClocks = { wallNs: NOW, simNs: NOW };

describe('X-Timestamp is Unix nanoseconds as a decimal string', () => {
  it('parses a decimal string, and also a bigint or integral number (WS envelopes)', () => {
    expect(parseTimestampNs('1700000000000000000')).toEqual({ ok: true, value: NOW });
    expect(parseTimestampNs(NOW)).toEqual({ ok: true, value: NOW });
    expect(parseTimestampNs(1.7e18)).toEqual({ ok: true, value: 1_700_000_000_000_000_000n });
  });

  it('answers 401 "missing timestamp" when absent', () => {
    expect(parseTimestampNs(undefined)).toEqual({ ok: false, error: AUTH_ERRORS.missingTimestamp });
    expect(parseTimestampNs('')).toEqual({ ok: false, error: AUTH_ERRORS.missingTimestamp });
  });

  it('answers 401 "invalid timestamp" for anything that is not decimal digits', () => {
    for (const raw of ['abc', '1.7e18', '-1700000000000000000', ' 1700000000000000000', '0x179', '9'.repeat(40), 1.5, {}]) {
      expect(parseTimestampNs(raw)).toEqual({ ok: false, error: { status: 401, error: 'invalid timestamp' } });
    }
  });
});

describe('Authentication rule 1: a timestamp in seconds or milliseconds is rejected with 401', () => {
  it('rejects seconds-, milliseconds- and microseconds-scale values as not nanoseconds', () => {
    for (const raw of ['1700000000', '1700000000000', '1700000000000000']) {
      expect(checkTimestamp(raw, LIVE)).toEqual({ ok: false, error: { status: 401, error: 'timestamp must be in nanoseconds' } });
    }
  });

  it('puts the unit boundary at 10^17 ns (1973), far below any present-day nanosecond value', () => {
    expect(parseTimestampNs((MIN_NANOSECOND_TIMESTAMP - 1n).toString()).ok).toBe(false);
    expect(parseTimestampNs(MIN_NANOSECOND_TIMESTAMP.toString()).ok).toBe(true);
  });
});

describe('Authentication rule 1: a timestamp farther than 30,000 ms from the server clock (either direction) is rejected with 401', () => {
  it('accepts exactly 30,000 ms ahead or behind', () => {
    expect(checkTimestamp((NOW + DRIFT).toString(), LIVE).ok).toBe(true);
    expect(checkTimestamp((NOW - DRIFT).toString(), LIVE).ok).toBe(true);
  });

  it('rejects one nanosecond beyond, either way', () => {
    const out = { ok: false, error: { status: 401, error: 'timestamp out of window' } };
    expect(checkTimestamp((NOW + DRIFT + 1n).toString(), LIVE)).toEqual(out);
    expect(checkTimestamp((NOW - DRIFT - 1n).toString(), LIVE)).toEqual(out);
  });

  it('takes the window from LIMITS.timestampDriftMs (30,000), overridable', () => {
    expect(LIMITS.timestampDriftMs).toBe(30_000);
    expect(checkTimestamp((NOW + 2_000n * MS).toString(), LIVE, 1_000).ok).toBe(false);
  });

  it('returns the parsed value that ct must equal', () => {
    expect(checkTimestamp('1700000000123456789', LIVE)).toEqual({ ok: true, value: 1_700_000_000_123_456_789n });
  });
});

describe('perpsim: a timestamp inside the window of EITHER clock (wall or simulator) is accepted', () => {
  const sim = NOW - 86_400_000n * MS; // the simulator runs a day behind, on virtual time
  const clocks: ServerClocks = { wallNs: NOW, simNs: sim };

  it('accepts a bot stamping wall time', () => {
    expect(checkTimestamp((NOW + 1_000n * MS).toString(), clocks).ok).toBe(true);
  });

  it('accepts a bot stamping simulator time (read from GET /v1/time)', () => {
    expect(checkTimestamp((sim - 29_000n * MS).toString(), clocks).ok).toBe(true);
  });

  it('rejects a timestamp outside both windows', () => {
    const between = (NOW + sim) / 2n;
    expect(checkTimestamp(between.toString(), clocks)).toEqual({ ok: false, error: AUTH_ERRORS.timestampOutOfWindow });
  });
});
