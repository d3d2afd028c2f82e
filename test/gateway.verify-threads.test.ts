/**
 * Issue 4: "Verify natively on the server, spread over both cores (libuv pool or worker threads)
 * without reordering one account's commands."
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createVerifier, type Verifier } from '../gateway/auth/verifier.ts';
import type { Reply } from '../gateway/contract/errors.ts';
import { parseOrderId } from '../gateway/contract/format.ts';
import type { OperationRequest } from '../gateway/contract/operation.ts';
import { placeOrder } from '../gateway/operations/order-writes/place-order.ts';
import { sequenced } from '../gateway/auth/sequencer.ts';
import { gateway, placeOrderRequest, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';

const threaded = createVerifier({ threads: 1 });
afterAll(() => threaded.close());

/** The request the REST route would hand the operation. */
function asOperationRequest(r: ReturnType<typeof placeOrderRequest>): OperationRequest {
  return { body: r.payload, query: { address: r.payload.address }, params: {}, headers: r.headers, ip: '127.0.0.1', path: '/v1/placeOrder', rawBody: JSON.stringify(r.payload) };
}

/** A verifier that holds the jobs of `holdKey` (every job when absent) until `release`, then answers them last-in first-out. */
function holdingVerifier(holdKey?: string): { verifier: Verifier; release: () => void; held: () => number } {
  const inline = createVerifier({ threads: 0 });
  const held: (() => void)[] = [];
  return {
    verifier: {
      threads: 1,
      verify: (key, signature, candidates) => {
        if (holdKey !== undefined && key !== holdKey) return inline.verify(key, signature, candidates);
        return new Promise((resolve) => held.push(() => void inline.verify(key, signature, candidates).then(resolve)));
      },
      close: async () => {},
    },
    release: () => {
      for (const answer of held.splice(0).reverse()) answer();
    },
    held: () => held.length,
  };
}

async function funded(seed: number, h?: GatewayHarness): Promise<{ h: GatewayHarness; w: Wallet }> {
  const harness = h ?? (await gateway());
  const w = wallet(seed);
  harness.fund(w, 1_000_000n);
  harness.key(w);
  return { h: harness, w };
}

describe('signatures are verified on worker threads (sodium-native, off the event loop)', () => {
  it('answers the index of the candidate message the signature covers, -1 when none does', async () => {
    const { h, w } = await funded(0x31);
    const message = '{"probe":1}';
    const signature = h.sign(message, w);
    expect(await threaded.verify(w.apiKey, signature, [message])).toBe(0);
    expect(await threaded.verify(w.apiKey, signature, ['{"probe":2}', message])).toBe(1);
    expect(await threaded.verify(w.apiKey, signature, ['{"probe":2}'])).toBe(-1);
    expect(await threaded.verify(wallet(0x32).apiKey, signature, [message])).toBe(-1);
    expect(await threaded.verify('zz'.repeat(32), signature, [message])).toBe(-1);
    expect(await threaded.verify(w.apiKey, 'zz'.repeat(64), [message])).toBe(-1);
  });

  it('verifyThen settles its one promise with the continuation\'s value, or rejects with what it throws', async () => {
    const { h, w } = await funded(0x3a);
    const message = '{"probe":3}';
    const signature = h.sign(message, w);
    await expect(threaded.verifyThen!(w.apiKey, signature, ['other', message], (index) => `index ${index}`)).resolves.toBe('index 1');
    await expect(threaded.verifyThen!(w.apiKey, signature, ['other'], (index) => {
      throw new Error(`not found: ${index}`);
    })).rejects.toThrow('not found: -1');
  });

  it('a worker that dies is replaced and its jobs are verified inline (-1 for input that broke it); after close jobs are verified inline', async () => {
    const { h, w } = await funded(0x35);
    const message = '{"probe":3}';
    const signature = h.sign(message, w);
    const own = createVerifier({ threads: 1 });
    // Candidates that are not a list make the worker throw outside its per-signature guard.
    const crashed = own.verify(w.apiKey, signature, null as unknown as string[]);
    expect(await crashed).toBe(-1);
    expect(await own.verify(w.apiKey, signature, [message])).toBe(0);
    const inFlight = own.verify(w.apiKey, signature, ['{"probe":4}', message]);
    await own.close();
    expect(await inFlight).toBe(1);
    expect(await own.verify(w.apiKey, signature, [message])).toBe(0);
    expect(await own.verify(w.apiKey, signature, ['{"probe":4}'])).toBe(-1);
  });

  it('a signed placeOrder verified on a worker thread is acknowledged; a forged one is 401', async () => {
    const { h, w } = await funded(0x33);
    h.state.verifier = threaded;
    const good = placeOrderRequest(h, w, { quantity: '0.01', price: '50000', clientId: 'threaded-ok' });
    const res = await h.app.inject({ method: 'POST', url: good.url, payload: good.payload, headers: good.headers });
    expect(res.statusCode, res.body).toBe(202);
    const forged = placeOrderRequest(h, w, { quantity: '0.01', price: '50000', clientId: 'threaded-forged' });
    forged.headers['x-signature'] = h.sign('something else', w);
    const refused = await h.app.inject({ method: 'POST', url: forged.url, payload: forged.payload, headers: forged.headers });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'invalid signature' });
  });
});

describe("without reordering one account's commands", () => {
  it('orders of one wallet reach the engine in arrival order although their verifications finish in reverse', async () => {
    const { h, w } = await funded(0x34);
    const hold = holdingVerifier();
    h.state.verifier = hold.verifier;
    const sent = Array.from({ length: 10 }, (_, i) => placeOrderRequest(h, w, { quantity: '0.01', price: String(40_000 + i), clientId: `arrival-${i}` }));
    const replies = sent.map((r) => placeOrder.handle(h.state, asOperationRequest(r)) as Promise<Reply>);
    expect(hold.held()).toBe(10);
    hold.release();
    const bodies = (await Promise.all(replies)).map((r) => {
      expect(r.status).toBe(202);
      return r.body as { orderId: string; clientId: string };
    });
    const ids = bodies.map((b) => parseOrderId(b.orderId)!);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `arrival-${i} after arrival-${i - 1}`).toBe(true);
  });

  it('another wallet is not held up by a wallet whose verification is pending', async () => {
    const { h, w: slow } = await funded(0x35);
    const { w: fast } = await funded(0x36, h);
    const hold = holdingVerifier(slow.apiKey);
    h.state.verifier = hold.verifier;
    let slowDone = false;
    const slowReply = (placeOrder.handle(h.state, asOperationRequest(placeOrderRequest(h, slow, { quantity: '0.01', price: '41000' }))) as Promise<Reply>).then((r) => {
      slowDone = true;
      return r;
    });
    const fastReply = await (placeOrder.handle(h.state, asOperationRequest(placeOrderRequest(h, fast, { quantity: '0.01', price: '41001' }))) as Promise<Reply>);
    expect(fastReply.status).toBe(202);
    expect(slowDone).toBe(false);
    hold.release();
    expect((await slowReply).status).toBe(202);
  });

  it('a refused write gives its turn back: the next write of the wallet goes through', async () => {
    const { h, w } = await funded(0x37);
    const hold = holdingVerifier();
    h.state.verifier = hold.verifier;
    const forged = placeOrderRequest(h, w, { quantity: '0.01', price: '42000' });
    forged.headers['x-signature'] = h.sign('not the payload', w);
    const first = placeOrder.handle(h.state, asOperationRequest(forged)) as Promise<Reply>;
    const second = placeOrder.handle(h.state, asOperationRequest(placeOrderRequest(h, w, { quantity: '0.01', price: '42001' }))) as Promise<Reply>;
    hold.release();
    expect((await first).status).toBe(401);
    expect((await second).status).toBe(202);
    expect(h.state.turns?.size ?? 0).toBe(0);
  });

  it('without worker threads a write answers synchronously (what the backtester runs on)', async () => {
    const { h, w } = await funded(0x39);
    const reply = placeOrder.handle(h.state, asOperationRequest(placeOrderRequest(h, w, { quantity: '0.01', price: '43000' })));
    expect(reply).not.toBeInstanceOf(Promise);
    expect((reply as Reply).status).toBe(202);
  });

  it('a write whose preparation fails gives its turn back only after the turn it waited for', async () => {
    const state = { turns: new Map() };
    const seen: string[] = [];
    let releaseFirst!: (value: number) => void;
    const first = sequenced(state, 'w', () => new Promise<number>((resolve) => (releaseFirst = resolve)), () => void seen.push('first'));
    const failing = sequenced(state, 'w', () => Promise.reject(new Error('boom')), () => void seen.push('never'));
    const failed = (failing as Promise<void>).catch(() => void seen.push('failed'));
    const third = sequenced(state, 'w', () => 1, () => void seen.push('third'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
    releaseFirst(1);
    await Promise.all([first, failed, third]);
    expect(seen.filter((s) => s !== 'failed')).toEqual(['first', 'third']);
    expect(seen).toContain('failed');
    expect(state.turns.size).toBe(0);
  });

  it('a turn is given back whatever the preparation throws', async () => {
    const { h } = await funded(0x38);
    const failing = sequenced(h.state, 'w', () => Promise.reject(new Error('boom')), () => 'never');
    const next = sequenced(h.state, 'w', () => 1, (n) => n + 1);
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe(2);
    expect(h.state.turns?.size ?? 0).toBe(0);
  });
});
