/**
 * Persistence tests' helpers: a temporary database directory, and signed requests against a
 * running server (the gateway fixture's signing, pointed at the server's exchange and clock).
 */
import * as ed from '@noble/ed25519';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nowMicros } from '../../sim/clock.ts';
import { afterEach } from 'vitest';
import { startServer, type Server, type ServerOptions } from '../../sim/server.ts';
import { placeOrderRequest, type GatewayHarness, type OrderInput, type Wallet } from './gateway-fixture.ts';

/**
 * `start` runs a server (port 0, `defaults` under the options) that is closed after the test
 * unless `stop` closed it first; `stop` answers the state hash at shutdown.
 */
export function serverPool(defaults: ServerOptions = {}): { start(options: ServerOptions): Promise<Server>; stop(server: Server): Promise<string> } {
  let servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers) await s.close();
    servers = [];
  });
  return {
    async start(options) {
      const server = await startServer({ port: 0, ...defaults, ...options });
      servers.push(server);
      return server;
    },
    async stop(server) {
      servers = servers.filter((s) => s !== server);
      await server.close();
      return server.persistence.hash();
    },
  };
}

export function tempDb(name = 'perpsim.db'): string {
  return join(mkdtempSync(join(tmpdir(), 'perpsim-db-')), name);
}

export interface Reply {
  status: number;
  body: Record<string, unknown>;
}

export async function post(server: Server, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function get(server: Server, path: string): Promise<Reply> {
  const res = await fetch(server.url + path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A signed placeOrder against `server`, stamped with its simulated clock. */
export async function placeOrder(server: Server, w: Wallet, input: OrderInput): Promise<Reply> {
  const harness = {
    exchange: server.exchange,
    now: { us: nowMicros(server.clock) },
    sign: (message: string, signer: Wallet) => Buffer.from(ed.sign(new TextEncoder().encode(message), signer.secret)).toString('hex'),
  } as unknown as GatewayHarness;
  const request = placeOrderRequest(harness, w, input);
  return post(server, request.url, request.payload, request.headers);
}

/** Funds `w` through /sim/deposit and registers its key through /sim/apiKeys. */
export async function onboard(server: Server, w: Wallet, usd = '100000'): Promise<void> {
  await post(server, '/sim/deposit', { address: w.address, amount: usd });
  await post(server, '/sim/apiKeys', { address: w.address, publicKey: w.apiKey });
}
