import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../sim/server.ts';

type Built = Awaited<ReturnType<typeof buildServer>>;
let server: Built;

beforeAll(async () => {
  server = await buildServer({ clock: 'virtual', lockstepStepMs: 1000, seed: 3, auth: false });
  await server.app.ready();
});
afterAll(async () => {
  server.stop();
  await server.app.close();
});

async function post(url: string, payload: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await server.app.inject({ method: 'POST', url, payload });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

const oracle = (): number => server.exchange.engine.markets.get(1)!.oraclePrice;

describe('lockstep virtual clock: time advances only when every participant has acknowledged the step', () => {
  it('two participants: the first ack waits, the second advances the clock and the simulated market by one step', async () => {
    const t0 = server.exchange.clock();
    const a = await post('/sim/lockstep/join', { name: 'maker-bot' });
    const b = await post('/sim/lockstep/join', { name: 'taker-bot' });
    expect(a.body).toMatchObject({ participantId: 'p1', step: 0, timeUs: t0, stepMs: 1000 });
    expect(b.body).toMatchObject({ participantId: 'p2', step: 0 });

    const price0 = oracle();
    expect(await post('/sim/lockstep/ack', { participantId: 'p1', step: 0 })).toMatchObject({ status: 200, body: { step: 0, advanced: false, timeUs: t0 } });
    const waiting = await server.app.inject({ method: 'GET', url: '/sim/lockstep' });
    expect(waiting.json()).toMatchObject({ step: 0, waitingFor: ['p2'] });
    expect(server.exchange.clock()).toBe(t0);

    expect(await post('/sim/lockstep/ack', { participantId: 'p2', step: 0 })).toMatchObject({ status: 200, body: { step: 1, advanced: true, timeUs: t0 + 1_000_000 } });
    expect(server.exchange.clock()).toBe(t0 + 1_000_000);
    // The feeds stepped with the clock: several steps later the oracle has moved.
    for (let step = 1; step <= 5; step++) {
      await post('/sim/lockstep/ack', { participantId: 'p1', step });
      await post('/sim/lockstep/ack', { participantId: 'p2', step });
    }
    expect(server.exchange.clock()).toBe(t0 + 6_000_000);
    expect(oracle()).not.toBe(price0);
  });

  it('a stale or future ack is refused 409; an unknown participant 404; leaving releases the clock', async () => {
    const before = server.exchange.clock();
    const step = (await server.app.inject({ method: 'GET', url: '/sim/lockstep' })).json().step as number;
    expect((await post('/sim/lockstep/ack', { participantId: 'p1', step: step - 1 })).status).toBe(409);
    expect((await post('/sim/lockstep/ack', { participantId: 'p1', step: step + 1 })).status).toBe(409);
    expect((await post('/sim/lockstep/ack', { participantId: 'p9', step })).status).toBe(404);
    expect((await post('/sim/lockstep/ack', { participantId: 'p1', step })).body).toMatchObject({ advanced: false });
    expect(await post('/sim/lockstep/leave', { participantId: 'p2' })).toMatchObject({ status: 200, body: { advanced: true, step: step + 1 } });
    expect(server.exchange.clock()).toBe(before + 1_000_000);
  });
});
