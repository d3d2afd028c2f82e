/**
 * GET /v1/time — the exchange's (simulated) clock: `{timeNs}`, unix nanoseconds as a JSON
 * integer, as the live venue answers (docs/decisions.md "Fidelity to the live venue").
 */
import { ok } from '../contract/errors.ts';
import type { Operation } from '../contract/operation.ts';
import { Type } from 'typebox';
import { okReplies } from '../contract/reply-schema.ts';

/**
 * Engine µs as the JSON integer of nanoseconds the live venue prints (`timeNs`, oraclePrices'
 * `epoch` and `markEpochNanos`; typed clients decode int64). The double µs·1000 prints its
 * exact decimal digits for every time before 2^62 ns (the year 2116): doubles there are at most
 * 512 apart and the product is a multiple of 1000, so the shortest round-trip form is the
 * exact product.
 */
export const epochNanos = (us: number): number => us * 1000;

export const TIME_RESPONSES = okReplies(Type.Object({ timeNs: Type.Number() }));

export const time: Operation<typeof TIME_RESPONSES> = {
  name: 'time',
  method: 'GET',
  path: '/v1/time',
  auth: 'public',
  description: 'server time',
  schema: {},
  response: TIME_RESPONSES,
  errorSource: null,
  weight: 'time',
  mutates: false,
  handle: (state) => ok({ timeNs: epochNanos(state.exchange.clock()) }),
};
