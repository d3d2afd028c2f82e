/**
 * The REST app: fastify over the operation table.
 *
 * `buildApp` registers one route per operation (its schema compiled once by fastify) and wraps
 * each handler in the per-IP weight bucket (before) and its post-charge (after); the same
 * schemas make the OpenAPI document (/openapi.json, browsable at /docs). It does not listen:
 * tests drive it through `inject()` after `ready()`, `sim/` listens. Every refusal, validation errors
 * and unknown routes included, leaves in the venue's error shape (errors.ts).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { admitRequest, PRUNE_EVERY_MS, pruneFullBuckets, rateLimitedReply, settleResponse } from '../rate-limit/index.ts';
import type { GatewayState, Operation, OperationRequest } from '../contract/operation.ts';
import { OPERATIONS } from '../operations/index.ts';
import { geoOf } from './geo.ts';
import { createReplySerializer } from '../contract/validator.ts';
import { ERRORS, refuse } from '../contract/errors.ts';

/** Rows a reply returned, for list post-charges: the longest array at the top of its body. */
function rowsOf(body: unknown): number {
  if (body === null || typeof body !== 'object') return 0;
  let rows = 0;
  // for-in rather than Object.values: no array of every reply's values.
  for (const key in body) {
    const value = (body as Record<string, unknown>)[key];
    if (Array.isArray(value)) rows = Math.max(rows, value.length);
  }
  return rows;
}

function operationRequest(req: FastifyRequest): OperationRequest {
  return {
    body: req.body,
    query: (req.query ?? {}) as Record<string, unknown>,
    params: (req.params ?? {}) as Record<string, string>,
    headers: req.headers,
    ip: req.ip,
    path: req.url,
    rawBody: (req as FastifyRequest & { rawBody?: string }).rawBody,
  };
}

/** A handler's failure to fastify's error handler (what an async handler's rejection did). */
function failed(reply: FastifyReply, error: unknown): void {
  if (!reply.sent) void reply.send(error instanceof Error ? error : new Error(String(error)));
}

/** `state`: built by createGateway (gateway.ts), read models and services included. */
export function buildApp(state: GatewayState, operations: readonly Operation[] = OPERATIONS): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 }).withTypeProvider<TypeBoxTypeProvider>();
  // One validator for every route (the /sim ones too) and the WebSocket's payloads (validator.ts).
  const validator = state.validator;
  app.setValidatorCompiler(({ schema }) => validator.compile(schema));
  app.decorate('schemaValidator', validator);
  // One reply serializer, compiled from the operations' reply schemas, for REST and the WebSocket.
  const serializer = createReplySerializer();
  app.setSerializerCompiler(({ schema }) => serializer.compile(schema));
  app.decorate('replySerializer', serializer);

  // No reply (a read included: it may show the change) leaves before the changes made so far
  // are durable; a failed commit turns the reply into a 503 (the state is then ahead of the file).
  // Callback style: one promise hop per reply (the commit's), no async function around it.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (state.committed === undefined) return done(null, payload);
    state.committed().then(
      () => done(null, payload),
      () => {
        void reply.code(503).header('content-type', 'application/json; charset=utf-8');
        done(null, JSON.stringify(refuse(ERRORS.notDurable, undefined).body));
      },
    );
  });

  // Keep the body as received: Scheme 2 verifies against it as well as its canonical form.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    (req as FastifyRequest & { rawBody?: string }).rawBody = text;
    if (text.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const err = new Error('request body is not valid JSON') as Error & { statusCode: number };
      err.statusCode = 400;
      done(err, undefined);
    }
  });

  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    const source = (request.routeOptions.config as { errorSource?: 'Order' | 'Cancel' } | undefined)?.errorSource;
    if (error.validation !== undefined || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
      const body: Record<string, unknown> = { error: error.message };
      if (source !== undefined) {
        body.errorSource = source;
        body.errorType = 'InvalidRequest';
      }
      return reply.code(error.statusCode ?? 400).send(body);
    }
    const internal = refuse(ERRORS.internal, undefined);
    return reply.code(internal.status).send(internal.body);
  });
  const notFound = refuse(ERRORS.notFound, undefined);
  app.setNotFoundHandler((_request, reply) => reply.code(notFound.status).send(notFound.body));

  // The OpenAPI document is generated from the very route schemas that validate requests.
  void app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'perpsim', version: state.config.version, description: 'The venue\'s REST interface, served by perpsim (interface.md), plus the simulator\'s /sim control API.' },
    },
  });
  void app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // Full buckets are dropped now and then (a full bucket is what a missing one means).
  let bucketsSweptAtMs = -Infinity;
  void app.register(async (api) => {
    for (const op of operations) {
      const weighted = op.weight;
      // perpsim --no-rate-limits: the per-IP bucket is neither read nor charged (admitRequest and
      // settleResponse would answer so), so the route skips both.
      const ipLimited = state.config.rateLimit.enabled;
      const send = (reply: FastifyReply, ip: string, result: Awaited<ReturnType<Operation['handle']>>): void => {
        if (ipLimited) {
          // Lists post-charge their rows; batches their elements (one reply row each).
          const rows = rowsOf(result.body);
          const bucket = settleResponse(state.config.rateLimit, {
            ip,
            operation: weighted,
            bucket: state.ipBuckets.get(ip),
            nowMs: state.nowMs(),
            rows,
            elements: rows,
          });
          if (bucket !== undefined) state.ipBuckets.set(ip, bucket);
        }
        if (result.headers !== undefined) reply.headers(result.headers);
        void reply.code(result.status).send(result.body);
      };
      api.route({
        method: op.alsoMethods === undefined ? op.method : [op.method, ...op.alsoMethods],
        // A colon inside a segment is literal (notifications:markSeen), fastify's `::`; params start a segment.
        url: op.path.replace(/([^/]):/g, '$1::'),
        schema: { ...op.schema, response: op.response },
        config: { errorSource: op.errorSource ?? undefined },
        // Not async: a synchronous answer is sent at once, a pending one through one `then` on the
        // operation's promise (an async wrapper cost its promise, an await's and fastify's `then`).
        handler: (req, reply) => {
          const ip = req.ip;
          if (ipLimited) {
            const nowMs = state.nowMs();
            if (nowMs - bucketsSweptAtMs >= PRUNE_EVERY_MS || nowMs < bucketsSweptAtMs) {
              bucketsSweptAtMs = nowMs;
              pruneFullBuckets(state.ipBuckets, nowMs, state.config.rateLimit.ipBucket);
            }
            const admission = admitRequest(state.config.rateLimit, {
              ip,
              operation: weighted,
              params: req.query as Record<string, string | undefined>,
              bucket: state.ipBuckets.get(ip),
              nowMs,
            });
            if (admission.kind === 'limited') {
              state.ipBuckets.set(ip, admission.bucket);
              const limited = rateLimitedReply('ip', admission.retryAfterMs, op.auth === 'signed' ? { kind: 'order' } : { kind: 'other' });
              void reply.code(limited.statusCode).headers(limited.headers).send(limited.body);
              return;
            }
            if (admission.kind === 'admitted') state.ipBuckets.set(ip, admission.bucket);
          }
          if (op.mutates && geoOf(state.config.geo, req.headers, ip).restricted) {
            const blocked = refuse(ERRORS.geoRestricted, undefined);
            void reply.code(blocked.status).send(blocked.body);
            return;
          }
          const result = op.handle(state, operationRequest(req));
          if (result instanceof Promise) {
            result.then(
              (answer) => {
                try {
                  send(reply, ip, answer);
                } catch (error) {
                  failed(reply, error);
                }
              },
              (error: unknown) => failed(reply, error),
            );
          } else {
            send(reply, ip, result);
          }
        },
      });
    }
  });
  return app;
}

/** Which errorSource an operation's structured errors carry (its record's; none outside order and cancel writes). */
export function errorSourceOf(op: Operation): 'Order' | 'Cancel' | undefined {
  return op.errorSource ?? undefined;
}
