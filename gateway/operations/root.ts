/** GET / — service info: name, status, the running version and every endpoint. */
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';
import { Type } from 'typebox';
import { okReplies } from '../reply-schema.ts';

/** Service info and the operation list. */
export const ROOT_RESPONSES = okReplies(
  Type.Object({
    service: Type.String(),
    version: Type.String(),
    status: Type.Literal('running'),
    endpoints: Type.Array(Type.Object({ path: Type.String(), method: Type.String(), description: Type.String() })),
  }),
);

export const root: Operation<typeof ROOT_RESPONSES> = {
  name: 'root',
  method: 'GET',
  path: '/',
  auth: 'public',
  description: 'service info',
  schema: {},
  response: ROOT_RESPONSES,
  errorSource: null,
  weight: 'root',
  mutates: false,
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
