/**
 * The control API's guard (`--control-token`, else loopback callers only) applies to the route
 * that is finally matched, however the request target spells it: percent-encoded letters
 * (`/%73im/...`) and the absolute form (`POST http://host:port/sim/reset`). The requests go
 * over a raw TCP socket so nothing on the client side normalizes the target.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { simHarness } from './support/sim-harness.ts';

const sim = simHarness();

/** One HTTP/1.1 request written byte for byte; the status code and body of the reply. */
async function raw(url: string, method: string, target: string, body: string | undefined, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  const lines = [`${method} ${target} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  const request = lines.join('\r\n') + '\r\n\r\n' + (body ?? '');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no reply')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

const DEPOSIT = JSON.stringify({ address: '0x' + '77'.repeat(20), amount: '100' });

describe('with a control token, every spelling of a /sim route needs it', () => {
  it('percent-encoded paths and the absolute form are refused 401 without the token and served with it', async () => {
    const server = await sim.start({ controlToken: 'T' });
    const { host } = new URL(server.url);
    const attempts: [string, string, string | undefined][] = [
      ['POST', '/%73im/deposit', DEPOSIT],
      ['POST', '/%73im/reset', '{}'],
      ['GET', '/%73im/journal', undefined],
      ['GET', '/s%69m/clock', undefined],
      ['POST', `http://${host}/sim/reset`, '{}'],
      ['POST', `http://${host}/%73im/deposit`, DEPOSIT],
      ['GET', `http://${host}/sim/journal`, undefined],
    ];
    for (const [method, target, body] of attempts) {
      const refused = await raw(server.url, method, target, body);
      expect({ target, status: refused.status }).toEqual({ target, status: 401 });
      expect(JSON.parse(refused.body)).toEqual({ error: 'control token required' });
    }
    expect(server.exchange.engine.accounts.get(`0x${'77'.repeat(20)}/0`)).toBeUndefined();
    for (const [method, target, body] of attempts) {
      const served = await raw(server.url, method, target, body, { Authorization: 'Bearer T' });
      expect({ target, status: served.status }).toEqual({ target, status: 200 });
    }
  });

  it('the public routes stay open, spelled either way', async () => {
    const server = await sim.start({ controlToken: 'T' });
    const { host } = new URL(server.url);
    expect((await raw(server.url, 'GET', '/v1/time', undefined)).status).toBe(200);
    expect((await raw(server.url, 'GET', `http://${host}/v1/time`, undefined)).status).toBe(200);
  });
});

describe('without a token, /sim routes answer loopback callers only, however spelled', () => {
  it('refuses another host 403 on percent-encoded and absolute-form targets', async () => {
    const server = await sim.start();
    const { host } = new URL(server.url);
    for (const url of ['/%73im/deposit', '/%73im/reset', `http://${host}/sim/reset`]) {
      const res = await server.app.inject({ method: 'POST', url, payload: DEPOSIT, headers: { 'content-type': 'application/json' }, remoteAddress: '10.1.2.3' });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 403 });
    }
    const journal = await server.app.inject({ method: 'GET', url: '/%73im/journal', remoteAddress: '10.1.2.3' });
    expect(journal.statusCode).toBe(403);
    expect(server.exchange.engine.accounts.get(`0x${'77'.repeat(20)}/0`)).toBeUndefined();
  });
});
