/**
 * A clean stop (SIGTERM) while signed writes are in flight: each request is either completed
 * (2xx) or refused as unavailable (503), never answered as if its signature were wrong.
 */
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { createExchange } from '../gateway/read-models/exchange.ts';
import { wallMicros } from '../sim/clock.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { startProcess } from './crash/crash-cycles.ts';
import { placeOrderRequest, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';
import { tempDb } from './support/persistence-fixture.ts';

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('SIGTERM with signed requests in flight', () => {
  it('answers every correctly signed order 2xx or 503, never 401, while the verification threads stop', async () => {
    const specs = createExchange({ markets: defaultMarkets() }, () => 0);
    const sign = (message: string, w: Wallet): string => Buffer.from(ed.sign(new TextEncoder().encode(message), w.secret)).toString('hex');
    const wallets = Array.from({ length: 8 }, (_, i) => wallet(0x71 + i));
    const statuses = new Map<number, number>();
    const wrong: string[] = [];
    let unanswered = 0;
    // Three stops: a single one may fall between two verification batches.
    for (let cycle = 0; cycle < 3; cycle++) {
      const server = await startProcess(tempDb(), ['--verify-threads', '1']);
      for (const w of wallets) {
        expect((await post(server.url + '/sim/deposit', { address: w.address, amount: '100000000' })).status).toBe(200);
        expect((await post(server.url + '/sim/apiKeys', { address: w.address, publicKey: w.apiKey })).status).toBe(200);
      }
      let serial = 0;
      let closed = false;
      const writer = async (w: Wallet): Promise<void> => {
        while (!closed) {
          const harness = { exchange: specs, now: { us: wallMicros() }, sign } as unknown as GatewayHarness;
          const request = placeOrderRequest(harness, w, { marketId: 2, side: 'BUY', quantity: '0.01', price: (1000 + (++serial % 500) / 100).toFixed(2), clientId: `s${cycle}-${serial}` });
          try {
            const reply = await post(server.url + request.url, request.payload, request.headers);
            statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
            if (!(reply.status >= 200 && reply.status < 300) && reply.status !== 503) wrong.push(`${reply.status} ${JSON.stringify(reply.body)}`);
          } catch {
            // No reply: the listener had closed (connection refused or reset).
            unanswered++;
            return;
          }
        }
      };
      const load = Promise.all(wallets.map(writer));
      await new Promise((resolve) => setTimeout(resolve, 400 + cycle * 150));
      const stopAt = Date.now();
      server.child.kill('SIGTERM');
      await server.exited;
      // The stop does not wait for keep-alive clients to go away.
      expect(Date.now() - stopAt).toBeLessThan(10_000);
      closed = true;
      await load;
    }
    expect(wrong).toEqual([]);
    expect(statuses.get(202) ?? 0).toBeGreaterThan(0);
    console.info(`replies by status ${JSON.stringify(Object.fromEntries(statuses))}, ${unanswered} writers saw the listener close`);
  }, 120_000);
});
