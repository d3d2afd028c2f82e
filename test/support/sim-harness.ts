/**
 * One simulator per test, over HTTP and WebSocket as a bot sees it: `start` runs perpsim
 * in-process on a free port; `call` sends JSON; an afterEach closes the sockets and the server.
 */
import { afterEach } from 'vitest';
import type WebSocket from 'ws';
import { startServer, type Server, type ServerOptions } from '../../sim/server.ts';

export type Json = Record<string, unknown>;

export interface SimHarness {
  start(options?: ServerOptions): Promise<Server>;
  readonly server: Server;
  /** Client sockets to close after the test (pass to connectClient). */
  sockets: WebSocket[];
  /** A string body is sent as is (e.g. broken JSON). */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: Json }>;
}

export function simHarness(): SimHarness {
  let current: Server | undefined;
  const sockets: WebSocket[] = [];
  afterEach(async () => {
    for (const s of sockets) s.close();
    sockets.length = 0;
    await current?.close();
    current = undefined;
  });
  const harness: SimHarness = {
    start: async (options = {}) => {
      current = await startServer({ port: 0, clock: 'virtual', agents: false, ...options });
      return current;
    },
    get server(): Server {
      if (current === undefined) throw new Error('no server started');
      return current;
    },
    sockets,
    call: async (method, path, body, headers = {}) => {
      const init: RequestInit = { method, headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers } };
      if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
      const res = await fetch(harness.server.url + path, init);
      return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
    },
  };
  return harness;
}
