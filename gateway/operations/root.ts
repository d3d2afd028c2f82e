/**
 * GET / — service info: name, status, the running version and every endpoint. The endpoints are
 * the operation table it is given (index.ts passes its own), not imported: no import cycle.
 */
import { ok } from '../contract/errors.ts';
import type { Operation } from '../contract/operation.ts';
import { Type } from 'typebox';
import { okReplies } from '../contract/reply-schema.ts';

/** Service info and the operation list. */
export const ROOT_RESPONSES = okReplies(
  Type.Object({
    service: Type.String(),
    version: Type.String(),
    status: Type.Literal('running'),
    endpoints: Type.Array(Type.Object({ path: Type.String(), method: Type.String(), description: Type.String() })),
  }),
);

export const rootOperation = (endpoints: () => readonly Operation[]): Operation<typeof ROOT_RESPONSES> => ({
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
  handle: (state) =>
    ok({
      service: state.config.service,
      version: state.config.version,
      status: 'running',
      endpoints: endpoints().map((op) => ({ path: op.path, method: op.method, description: op.description })),
    }),
});
