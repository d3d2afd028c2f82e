/** GET /health — liveness and readiness. */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';

export const health: Operation = {
  name: 'health',
  method: 'GET',
  path: '/health',
  auth: 'public',
  description: 'liveness/readiness',
  handle: () => ok({ status: 'ok' }),
};
