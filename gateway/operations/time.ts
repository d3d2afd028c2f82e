/** GET /v1/time — the exchange's (simulated) clock, in nanoseconds. */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';

export const time: Operation = {
  name: 'time',
  method: 'GET',
  path: '/v1/time',
  auth: 'public',
  description: 'server time',
  handle: (state) => ok({ timeNs: (BigInt(state.exchange.clock()) * 1000n).toString() }),
};
