/**
 * Latency models: how long an order, a cancel or a market-data message takes in simulated time.
 *
 * - `constant`: always `ms`.
 * - `uniform`: seeded, uniform in [minMs, maxMs].
 * - `lognormal`: seeded, median `medianMs`, shape `sigma` (the usual fat right tail of network
 *   latency), capped at `maxMs` when given.
 * - `recorded` (feed only): the recording's own `lts - ts`, so replayed data arrives when it
 *   arrived on the recording machine.
 * Every draw comes from its own seeded PRNG, so a run's latencies depend only on the seed and
 * the order of draws (which is the order of events).
 */
import { normal } from '../feeds.ts';
import { createPrng } from '../prng.ts';

export type LatencySpec =
  | { kind: 'constant'; ms: number }
  | { kind: 'uniform'; minMs: number; maxMs: number }
  | { kind: 'lognormal'; medianMs: number; sigma: number; maxMs?: number }
  | { kind: 'recorded' };

/** Draws one latency in µs; `recordedUs` is the event's own lts - ts (feed only). */
export type LatencyModel = (recordedUs: number) => number;

export const ZERO_LATENCY: LatencySpec = { kind: 'constant', ms: 0 };

export function latencyModel(spec: LatencySpec | number | undefined, seed: number): LatencyModel {
  const s: LatencySpec = spec === undefined ? ZERO_LATENCY : typeof spec === 'number' ? { kind: 'constant', ms: spec } : spec;
  switch (s.kind) {
    case 'constant': {
      const us = Math.round(s.ms * 1000);
      return () => us;
    }
    case 'uniform': {
      const rng = createPrng(seed);
      return () => Math.round((s.minMs + (s.maxMs - s.minMs) * rng.next()) * 1000);
    }
    case 'lognormal': {
      const rng = createPrng(seed);
      const cap = s.maxMs ?? Infinity;
      return () => Math.round(Math.min(cap, s.medianMs * Math.exp(s.sigma * normal(rng))) * 1000);
    }
    case 'recorded':
      return (recordedUs) => Math.max(0, recordedUs);
  }
}

/** True when the model always answers 0 (the replay loop's fast path). */
export function isZeroLatency(spec: LatencySpec | number | undefined): boolean {
  if (spec === undefined) return true;
  if (typeof spec === 'number') return spec === 0;
  return spec.kind === 'constant' && spec.ms === 0;
}
