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

/** `firstPort`: the port tried first (tests of the port check); a free one by default. */
export async function startRedis(firstPort?: number): Promise<RedisProcess> {
  ensureRedisServer();
  // The free port is found, then released, then bound by redis-server: another process may take
  // it in between (two test files or benches start Redis at once). A server answering on the
  // port is only ours if its process id is our child's; otherwise try another port.
  for (let attempt = 1; ; attempt++) {
    const started = await startOn(attempt === 1 && firstPort !== undefined ? firstPort : await freePort());
    if (started !== undefined) return started;
    if (attempt === 5) throw new Error('redis-server exited at start on five ports in a row (taken by another process, or redis-server cannot run here)');
  }
}

/** Redis on `port`, or undefined when the server answering there is not the one we started. */
async function startOn(port: number): Promise<RedisProcess | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-redis-'));
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  let pid = '';
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      pid = /process_id:(\d+)/.exec(await client.info('server'))?.[1] ?? '';
      break;
    } catch (err) {
      if (i > 100 || child.exitCode !== null) {
        await stop();
        if (child.exitCode !== null && i <= 100) return undefined;
        throw new Error(`redis-server did not start on port ${port}: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  client.disconnect();
  if (pid !== String(child.pid)) {
    await stop();
    return undefined;
  }
  return { url: `redis://127.0.0.1:${port}/0`, port, stop };
}
