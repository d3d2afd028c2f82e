/**
 * What a signed order costs the event loop in promises (each a microtask hop), counted with
 * node's async hooks: the order path's own share is small and fixed, so a change that adds a
 * hop per order shows here rather than only as a few per cent of CPU in a benchmark.
 */
import { createHook } from 'node:async_hooks';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { sequenced } from '../gateway/auth/sequencer.ts';
import { createVerifier, verifyInline, type Verifier } from '../gateway/auth/verifier.ts';
import { ERRORS, refuse, type Reply } from '../gateway/contract/errors.ts';
import type { Operation } from '../gateway/contract/operation.ts';
import { time } from '../gateway/operations/time.ts';
import { placeOrder } from '../gateway/operations/order-writes/place-order.ts';
import { gateway, placeOrderRequest, wallet } from './support/gateway-fixture.ts';

/** Counts the promises made while the hook is on (its own awaits' included). */
function promiseCounter(): { stop: () => number } {
  let made = 0;
  const hook = createHook({
    init: (_id, type) => {
      if (type === 'PROMISE') made++;
    },
  });
  hook.enable();
  return {
    stop: () => {
      hook.disable();
      return made;
    },
  };
}

/** Promises made while `run` runs synchronously (what it schedules, not what later settles). */
function promisesMadeBy<T>(run: () => T): { made: number; value: T } {
  const counter = promiseCounter();
  const value = run();
  return { made: counter.stop(), value };
}

/** Promises made until `run`'s promise settles, its awaits included. */
async function promisesMadeUntil(run: () => Promise<unknown>): Promise<number> {
  const counter = promiseCounter();
  await run();
  return counter.stop();
}

const threaded = createVerifier({ threads: 1 });
afterAll(() => threaded.close());

/** Answers as a worker thread does (a promise settled in a later turn), verifying inline. */
const laterVerifier: Verifier = {
  threads: 1,
  verify: (key, signature, candidates) => new Promise((resolve) => setImmediate(() => resolve(verifyInline(key, signature, candidates)))),
  close: async () => {},
};

/** Promises a signed placeOrder's handle makes (it must be acknowledged) with `verifier`. */
async function orderPromises(seed: number, verifier: Verifier, price: string): Promise<number> {
  const h = await gateway();
  const w = wallet(seed);
  h.fund(w, 1_000_000n);
  h.key(w);
  h.state.verifier = verifier;
  const r = placeOrderRequest(h, w, { quantity: '0.01', price });
  const request = { body: r.payload, query: {}, params: {}, headers: r.headers, ip: '127.0.0.1', path: r.url, rawBody: JSON.stringify(r.payload) };
  const { made, value } = promisesMadeBy(() => placeOrder.handle(h.state, request));
  expect(((await value) as Reply).status).toBe(202);
  return made;
}

describe('promises per signed order', () => {
  it('a write of a wallet with nothing in flight waits for its preparation through one then, without a turn promise', async () => {
    const turns = { turns: new Map() };
    const prepared = Promise.resolve(1);
    const { made, value } = promisesMadeBy(() => sequenced(turns, 'w', () => prepared, (n: number) => n + 1));
    expect(made).toBe(1);
    expect(await value).toBe(2);
    expect(turns.turns.size).toBe(0);
  });

  it('placeOrder verified on a thread makes two promises: the verifier\'s, settled by the verification\'s continuation, and the turn\'s then', async () => {
    for (const price of ['40000', '40001']) expect(await orderPromises(0x51, threaded, price)).toBe(2);
  });

  it('with a verifier that has no verifyThen, one then more', async () => {
    expect(await orderPromises(0x52, laterVerifier, '40000')).toBe(3);
  });

  it('an operation that answers at once makes its route no promise: as many as a bare fastify route', async () => {
    const h = await gateway();
    const bare = Fastify();
    bare.get('/v1/time', (_req, reply) => {
      void reply.send({ serverTime: 0 });
    });
    await bare.ready();
    await h.app.inject({ method: 'GET', url: '/v1/time' });
    await bare.inject({ method: 'GET', url: '/v1/time' });
    const ours = await promisesMadeUntil(() => h.app.inject({ method: 'GET', url: '/v1/time' }));
    const theirs = await promisesMadeUntil(() => bare.inject({ method: 'GET', url: '/v1/time' }));
    expect(ours).toBe(theirs);
    await bare.close();
  });

  it('an operation that throws or rejects still answers 500 in the error shape (the route wrapper is not async)', async () => {
    const failing = (name: string, handle: Operation['handle']): Operation => ({ ...time, name, path: `/v1/${name}`, handle } as Operation);
    const h = await gateway({
      operations: [
        failing('throws', () => {
          throw new Error('boom');
        }),
        failing('rejects', () => Promise.reject(new Error('boom'))),
        failing('rejectsWithoutError', () => Promise.reject('boom')),
      ],
    });
    const internal = refuse(ERRORS.internal, undefined);
    for (const name of ['throws', 'rejects', 'rejectsWithoutError']) {
      const res = await h.app.inject({ method: 'GET', url: `/v1/${name}` });
      expect(res.statusCode, name).toBe(internal.status);
      expect(res.json(), name).toEqual(internal.body);
    }
  });
});
