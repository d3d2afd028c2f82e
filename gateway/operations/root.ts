/**
 * GET / — service info: name, status, the running version and every endpoint. The endpoints are
 * the operation table it is given (index.ts passes its own), not imported: no import cycle.
 */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';

export const rootOperation = (endpoints: () => readonly Operation[]): Operation => ({
  name: 'root',
  method: 'GET',
  path: '/',
  auth: 'public',
  description: 'service info',
  handle: (state) =>
    ok({
      service: state.config.service,
      version: state.config.version,
      status: 'running',
      endpoints: endpoints().map((op) => ({ path: op.path, method: op.method, description: op.description })),
    }),
});
