/**
 * The README's "Client SDK" example, run as written against an in-process perpsim (only its base
 * URL is pointed at the test server), so the documentation cannot drift from the SDK.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sdk from '../client/index.ts';
import { startServer, type Server } from '../sim/server.ts';

let server: Server;
beforeAll(async () => {
  server = await startServer({ port: 0, agents: false });
});
afterAll(async () => {
  await server.close();
});

function readmeExample(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Client SDK'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match === null) throw new Error('README: no ts block under "## Client SDK"');
  return match[1]!;
}

describe('docs: the README shows a ten-line example', () => {
  it('imports from the package export perpsim/client', async () => {
    const exported = await import('perpsim/client');
    expect(exported.Client).toBe(sdk.Client);
  });

  it('the example runs: registers a key, funds, opens a book, places and cancels an order', async () => {
    const source = readmeExample();
    const lines = source.trim().split('\n');
    expect(lines[0]).toBe("import { ApiKey, Client } from 'perpsim/client';");
    const body = lines.slice(1).filter((line) => line.trim().length > 0);
    expect(body.length).toBeLessThanOrEqual(10);
    const code = body.join('\n').replace("'http://127.0.0.1:8080'", JSON.stringify(server.url));
    const logged: unknown[][] = [];
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
    await new AsyncFunction('ApiKey', 'Client', 'console', code)(sdk.ApiKey, sdk.Client, { log: (...args: unknown[]) => logged.push(args) });
    expect(logged).toHaveLength(1);
    const [status, orderId] = logged[0]!;
    expect(status).toBe('ACK');
    const canceled = await new sdk.Client({ baseUrl: server.url }).order(String(orderId), { address: '0x1111111111111111111111111111111111111111' });
    expect(canceled.status).toBe('CANCELED');
  });
});
