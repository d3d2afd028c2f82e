/** GET / — service info: name, status, the running version and every endpoint. */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';

export const root: Operation = {
  name: 'root',
  method: 'GET',
  path: '/',
  auth: 'public',
  description: 'service info',
  handle: async (state) => {
    const { OPERATIONS } = await import('./index.ts');
    return ok({
      service: state.config.service,
      version: state.config.version,
      status: 'running',
      endpoints: OPERATIONS.map((op) => ({ path: op.path, method: op.method, description: op.description })),
    });
  },
};
