import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startRedis } from './support/redis-server.ts';

async function ping(port: number): Promise<string> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    return await client.ping();
  } finally {
    client.disconnect();
  }
}

describe('the throwaway Redis of the queue tests', () => {
  it('never hands out a server another process started on the same port: it moves to another port', async () => {
    const first = await startRedis();
    try {
      const second = await startRedis(first.port);
      expect(second.port).not.toBe(first.port);
      await second.stop();
      // Stopping the second left the first running.
      expect(await ping(first.port)).toBe('PONG');
    } finally {
      await first.stop();
    }
  });
});
