/** GET /health — liveness and readiness. */
import { ok } from '../contract/errors.ts';
import type { Operation } from '../contract/operation.ts';
import { Type } from 'typebox';
import { okReplies } from '../contract/reply-schema.ts';

export const HEALTH_RESPONSES = okReplies(Type.Object({ status: Type.Literal('ok') }));

export const health: Operation<typeof HEALTH_RESPONSES> = {
  name: 'health',
  method: 'GET',
  path: '/health',
  auth: 'public',
  description: 'liveness/readiness',
  schema: {},
  response: HEALTH_RESPONSES,
  errorSource: null,
  weight: 'health',
  mutates: false,
  handle: () => ok({ status: 'ok' }),
};
