/**
 * A throwaway Redis for the queue tests: Debian's redis-server on a free loopback port with a
 * temporary directory and no persistence. When redis-server is missing it is installed with
 * apt-get if we are root (as .ci/run does); otherwise the test fails with a message saying so.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface RedisProcess {
  url: string;
  port: number;
  stop(): Promise<void>;
}

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function ensureRedisServer(): void {
  if (hasRedisServer()) return;
  if (process.getuid?.() !== 0) throw new Error('redis-server is not installed and this is not root: run `apt-get install -y redis-server` (Debian) first');
  process.stderr.write('redis-server missing: installing Debian\'s redis-server with apt-get\n');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (!hasRedisServer()) throw new Error('apt-get install redis-server did not provide redis-server');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<RedisProcess> {
  ensureRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (err) {
      if (i > 100 || child.exitCode !== null) throw new Error(`redis-server did not start on port ${port}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  client.disconnect();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
