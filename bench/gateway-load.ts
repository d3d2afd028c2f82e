/**
 * The gateway bench's load generator: a child process (forked by `gateway.bench.ts`) that
 * drives autocannon on loopback, so the servers under test keep a core of their own instead of
 * sharing one event loop with the client.
 *
 * Messages from the parent, answered in order:
 * - `sign`: pre-signs requests of the order plan (`gateway-orders.ts`) and keeps them; answers
 *   how long it took. Signing is never inside a timed pass.
 * - `run`: one autocannon pass. Either the same request repeated for `durationS` seconds, or the
 *   pre-signed requests, each sent exactly once (autocannon `amount`), handed out in order
 *   across the connections by `setupRequest`. Answers status counts and latency percentiles.
 *
 * Latency is taken from autocannon's per-response event (fractional ms; autocannon's own
 * histogram rounds to whole ms), over 2xx responses only, as autocannon does. A pass lasts from
 * its start to its last response.
 */
import autocannon from 'autocannon';
import { benchWallets, signOrders, type SignedRequest, type SignOptions } from './gateway-orders.ts';

export type LoadRequest =
  | { kind: 'sign'; options: Omit<SignOptions, 'baseNs'> & { baseNs: string } }
  | { kind: 'run'; target: LoadTarget }
  | { kind: 'exit' };

export interface LoadTarget {
  url: string;
  connections: number;
  /** A fixed request for `durationS` seconds, or every pre-signed request once. */
  source: { kind: 'fixed'; method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string; durationS: number; /** Requests per second in all (autocannon overallRate); as fast as answered when absent. */ rate?: number } | { kind: 'signed'; /** As for `fixed`. */ rate?: number };
}

export interface LoadResult {
  kind: 'result';
  durationS: number;
  responses: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  p50Ms: number;
  p99Ms: number;
}

export type LoadReply = LoadResult | { kind: 'signed'; count: number; ms: number } | { kind: 'failed'; error: string };

let signed: SignedRequest[] = [];

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

async function run(target: LoadTarget): Promise<LoadResult> {
  const source = target.source;
  let options: autocannon.Options;
  if (source.kind === 'fixed') {
    options = {
      url: target.url + source.path,
      connections: target.connections,
      duration: source.durationS,
      method: source.method,
      ...(source.headers === undefined ? {} : { headers: source.headers }),
      ...(source.body === undefined ? {} : { body: source.body }),
      ...(source.rate === undefined ? {} : { overallRate: source.rate }),
    };
  } else {
    const list = signed;
    let next = 0;
    options = {
      url: target.url,
      connections: target.connections,
      amount: list.length,
      ...(source.rate === undefined ? {} : { overallRate: source.rate }),
      requests: [
        {
          method: 'POST',
          // Called once per request sent, plus once per connection when it is built (that
          // request is the connection's first): exactly list.length calls in all.
          setupRequest: (request) => {
            const r = list[next++ % list.length]!;
            return { ...request, path: r.path, headers: r.headers, body: r.body };
          },
        },
      ],
    };
  }
  // autocannon notices the end of a pass (the last of `amount`, or `duration` elapsed) on its
  // sample tick, and its own duration includes that wait: a 100 ms tick, and the pass timed here
  // from the start to the last response.
  options.sampleInt = 100;
  const latencies: number[] = [];
  const startedAt = performance.now();
  let lastAt = startedAt;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, r: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(r)));
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      lastAt = performance.now();
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const sorted = Float64Array.from(latencies).sort();
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  return {
    kind: 'result',
    durationS: (lastAt - startedAt) / 1000,
    responses: Object.values(statuses).reduce((a, b) => a + b, 0),
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}

const wallets = benchWallets();

process.on('message', (message: LoadRequest) => {
  const reply = (r: LoadReply): void => {
    process.send!(r);
  };
  switch (message.kind) {
    case 'sign': {
      const t = performance.now();
      signed = signOrders(wallets, { ...message.options, baseNs: BigInt(message.options.baseNs) });
      reply({ kind: 'signed', count: signed.length, ms: performance.now() - t });
      return;
    }
    case 'run':
      run(message.target).then(reply, (e: unknown) => reply({ kind: 'failed', error: String(e) }));
      return;
    case 'exit':
      process.disconnect();
      return;
    default: {
      const never: never = message;
      throw new Error(`unknown message ${JSON.stringify(never)}`);
    }
  }
});
