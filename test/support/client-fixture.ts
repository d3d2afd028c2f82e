/**
 * perpsim in process for SDK tests: a server per test, SDK clients for funded accounts with keys
 * registered through /sim, and one teardown that closes them all.
 */
import { ApiKey, Client, type ClientOptions } from '../../client/index.ts';
import { startServer, type Server, type ServerOptions } from '../../sim/server.ts';

export interface ClientHarness {
  readonly server: Server;
  start(options?: ServerOptions): Promise<Server>;
  /** A client for `0x<seed × 20>` with a fresh registered key and `usd` deposited; quick reconnects. */
  trader(seed: string, extra?: Partial<ClientOptions>, usd?: string): Promise<Client>;
  close(): Promise<void>;
}

export function clientHarness(): ClientHarness {
  let server: Server | undefined;
  const clients: Client[] = [];
  return {
    get server(): Server {
      if (server === undefined) throw new Error('start the server first');
      return server;
    },
    async start(options = {}) {
      server = await startServer({ port: 0, agents: false, ...options });
      return server;
    },
    async trader(seed, extra = {}, usd = '1000000') {
      const key = await ApiKey.generate();
      const address = '0x' + seed.repeat(20);
      const client = new Client({ baseUrl: this.server.url, address, key, reconnect: { initialDelayMs: 20, maxDelayMs: 200 }, ...extra });
      clients.push(client);
      await client.sim.registerApiKey(address, key.publicKey);
      await client.sim.deposit(address, usd);
      return client;
    },
    async close() {
      for (const client of clients.splice(0)) await client.close();
      await server?.close();
      server = undefined;
    },
  };
}
