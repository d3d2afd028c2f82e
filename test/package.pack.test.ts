/**
 * The package as users get it: `npm pack` builds the tarball (prepack → scripts/build.mjs), a
 * fresh project with no TypeScript tooling installs it (test/support/consumer-project.ts), and
 * there plain `node` imports every entry, `npx perpsim` runs the CLI (serve, backtest of a
 * TypeScript strategy), startExchange runs twice in one process, and a consumer TypeScript
 * project type-checks against the packed declarations under `node16` and `bundler` resolution.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey, Client } from '../client/index.ts';
import { generateRecording } from '../sim/backtest/generate.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { installPacked } from './support/consumer-project.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'perpsim-pack-'));
const project = join(work, 'consumer');
const ENV = { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false', NODE_ENV: 'production' };

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}
let packed: Packed;

function run(command: string, args: string[], options: { cwd?: string; timeout?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { cwd: options.cwd ?? project, env: ENV, timeout: options.timeout ?? 60_000, maxBuffer: 16 * 1024 * 1024 }, (_err, stdout, stderr) => {
      resolve({ code: child.exitCode, stdout, stderr });
    });
  });
}

/** Runs an ES module in the consumer project with plain node (no loader, no TypeScript). */
async function node(name: string, source: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  writeFileSync(join(project, name), source);
  return run(process.execPath, [name]);
}

beforeAll(async () => {
  const started = Date.now();
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO, timeout: 180_000 });
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout) as Packed[])[0]!;
  const packedAt = Date.now();
  installPacked(REPO, join(work, packed.filename), project);
  console.log(
    `npm pack: ${packed.filename}, ${packed.entryCount} files, ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${packedAt - started} ms; installed offline in ${Date.now() - packedAt} ms`,
  );
}, 300_000);
// The project's node_modules is a real install (some 100 MB): not left behind in the temp directory.
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

/** Resolves once nothing answers at `url` any more; throws when something still does after `ms`. */
async function closedWithin(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    } catch {
      return;
    }
    if (Date.now() > until) throw new Error(`the server at ${url} still answers ${ms} ms after SIGTERM to its process group`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the packed package', () => {
  it('holds what runs and nothing else: the built JavaScript, declarations, source maps, workers, the bin', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((p) => !p.startsWith('dist/'))).toEqual(['README.md', 'bin/perpsim.mjs', 'bin/strategy-loader.mjs', 'package.json']);
    for (const entry of ['index', 'client', 'testing', 'cli', 'jsonl-worker', 'sweep-run']) expect(paths).toContain(`dist/${entry}.js`);
    for (const types of ['index', 'client/index', 'testing/index']) expect(paths).toContain(`dist/types/${types}.d.ts`);
    expect(paths).toContain('dist/verify-worker.mjs');
    expect(paths).toContain('dist/run-worker.mjs');
    expect(paths).toContain('dist/ui/app.js');
    expect(paths).toContain('dist/index.js.map');
    expect(paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);
  });

  it('plain node imports perpsim, perpsim/client and perpsim/testing', async () => {
    const result = await node(
      'imports.mjs',
      `const root = await import('perpsim');
const client = await import('perpsim/client');
const testing = await import('perpsim/testing');
console.log(JSON.stringify({ Backtest: typeof root.Backtest, writeOutputs: typeof root.writeOutputs, Client: typeof client.Client, ApiKey: typeof client.ApiKey, startExchange: typeof testing.startExchange }));`,
    );
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ Backtest: 'function', writeOutputs: 'function', Client: 'function', ApiKey: 'function', startExchange: 'function' });
  });

  it('npx perpsim --version prints the version', async () => {
    const result = await run('npx', ['perpsim', '--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version}\n` });
  });

  it('npx perpsim serve --port 0 --memory answers /health and accepts a signed order', async () => {
    // Its own process group: npx does not pass SIGTERM on to the server it started, so the test
    // stops the whole group, and waits until the server's port is closed (no server outlives it).
    const child = spawn('npx', ['perpsim', 'serve', '--port', '0', '--memory'], { cwd: project, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let url: string | undefined;
    try {
      let output = '';
      url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listen line within 60 s: ${output}`)), 60_000);
        const read = (chunk: Buffer): void => {
          output += chunk.toString();
          const line = output.split('\n').find((l) => l.includes('perpsim listening'));
          if (line === undefined) return;
          clearTimeout(timer);
          resolve((JSON.parse(line) as { url: string }).url);
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.on('exit', (code) => reject(new Error(`perpsim exited (${code}): ${output}`)));
      });
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      // The web console ships built in the package (dist/ui), served with no build step.
      const page = await fetch(`${url}/ui`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('app.js');
      expect((await fetch(`${url}/ui/app.js`)).status).toBe(200);
      const address = '0x3333333333333333333333333333333333333333';
      const key = await ApiKey.generate();
      const client = new Client({ baseUrl: url, address, key });
      await client.sim.registerApiKey(address, key.publicKey);
      await client.sim.deposit(address, '10000');
      const ack = await client.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3000.00', quantity: '0.1' });
      expect(ack.status).toBe('ACK');
      expect((await client.order(ack.orderId)).status).toBe('OPEN');
      await client.close();
    } finally {
      const exited = child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve));
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // The group is gone already.
      }
      await exited;
      if (url !== undefined) await closedWithin(url, 15_000);
    }
  });

  it('startExchange runs two exchanges in one process, each takes a signed order, and the process exits after close()', async () => {
    const result = await node(
      'two.mjs',
      `import { ApiKey } from 'perpsim/client';
import { startExchange } from 'perpsim/testing';
const exchanges = await Promise.all([startExchange({ clock: 'virtual', agents: false }), startExchange({ seed: 3 })]);
const acks = [];
for (const ex of exchanges) {
  const address = '0x4444444444444444444444444444444444444444';
  const key = await ApiKey.generate();
  await ex.sim.registerApiKey(address, key.publicKey);
  await ex.sim.deposit(address, '10000');
  acks.push((await ex.client({ address, key }).placeOrder({ market: 'ETH-USD', side: 'BUY', price: '1000.00', quantity: '0.1' })).status);
}
await Promise.all(exchanges.map((ex) => ex.close()));
console.log(JSON.stringify({ urls: new Set(exchanges.map((ex) => ex.url)).size, acks }));`,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ urls: 2, acks: ['ACK', 'ACK'] });
  });

  it('npx perpsim backtest runs a TypeScript strategy from the project (tsx, a dependency) and writes its report', async () => {
    writeFileSync(
      join(project, 'strategy.ts'),
      `import type { Strategy } from 'perpsim';
let books: number = 0;
const strategy: Strategy = {
  onBook(): void {
    books += 1;
  },
  onEnd(): void {
    console.log(\`books seen: \${books}\`);
  },
};
export default strategy;
`,
    );
    const result = await run('npx', ['perpsim', 'backtest', 'strategy.ts', '--data', 'sim', '--markets', 'BTC-USD', '--from', '2025-03-01T00:00:00Z', '--to', '2025-03-01T00:01:00Z', '--out', 'out']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/books seen: [1-9]\d*/);
    expect(readFileSync(join(project, 'out', 'report.html'), 'utf8')).toContain('<html');
    expect(JSON.parse(readFileSync(join(project, 'out', 'summary.json'), 'utf8'))).toHaveProperty('events');
  });

  it('npx perpsim sweep runs a TypeScript strategy factory over a grid on worker threads from dist/', async () => {
    writeFileSync(
      join(project, 'sweep-strategy.ts'),
      `import type { BacktestConfig, Strategy } from 'perpsim';
export const parameters = { label: 1 };
export default (config: BacktestConfig): Strategy => ({
  onEnd(ctx): void {
    console.log(\`label \${String(ctx.params.label ?? config.params?.label)}\`);
  },
});
`,
    );
    const result = await run('npx', ['perpsim', 'sweep', 'sweep-strategy.ts', '--data', 'sim', '--markets', 'BTC-USD', '--from', '2025-03-01T00:00:00Z', '--to', '2025-03-01T00:01:00Z', '--param', 'label=1,2', '--workers', '2', '--out', 'sweep-out']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('2 runs, 0 failed');
    const doc = JSON.parse(readFileSync(join(project, 'sweep-out', 'sweep.json'), 'utf8')) as { runs: { params: Record<string, number>; status: string }[] };
    expect(doc.runs.map((r) => [r.params.label, r.status])).toEqual([[1, 'ok'], [2, 'ok']]);
  });

  it("the JSONL reader threads run from the package's dist/ (the worker route reads what the in-thread reader does)", async () => {
    const file = join(work, 'recording.jsonl');
    generateRecording(file, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 5_000, seed: 3, start: 1_735_689_600_000_000 });
    const result = await node(
      'worker.mjs',
      `import { Backtest } from 'perpsim';
const summary = async (parse) => (await new Backtest({ data: { file: ${JSON.stringify(file)}, parse }, markets: ['BTC-USD'] }, {}).run()).summary;
const [worker, fast] = [await summary('worker'), await summary('fast')];
console.log(JSON.stringify({ events: worker.events, same: JSON.stringify(worker) === JSON.stringify(fast) }));`,
    );
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ events: 5_000, same: true });
  });

  it('a strict consumer TypeScript project type-checks against the packed declarations, moduleResolution node16 and bundler', async () => {
    const check = async (resolution: 'node16' | 'bundler') => {
      const dir = join(project, `types-${resolution}`);
      mkdirSync(join(dir, 'types'), { recursive: true });
      // Only Node's own types from outside: every other type must come with perpsim's dependencies.
      symlinkSync(join(REPO, 'node_modules/@types/node'), join(dir, 'types/node'));
      writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
      const module = resolution === 'node16' ? 'node16' : 'esnext';
      // node16 also checks every packed declaration file (skipLibCheck off); bundler, as such projects usually run, only their use.
      const compilerOptions = { module, moduleResolution: resolution, target: 'es2022', strict: true, noEmit: true, skipLibCheck: resolution === 'bundler', types: ['node'], typeRoots: ['./types'] };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
      return { resolution, ...(await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', dir], { timeout: 120_000 })) };
    };
    const results = await Promise.all([check('node16'), check('bundler')]);
    expect(results.map((r) => ({ resolution: r.resolution, code: r.code, output: r.stdout + r.stderr }))).toEqual([
      { resolution: 'node16', code: 0, output: '' },
      { resolution: 'bundler', code: 0, output: '' },
    ]);
  });
});

/** Uses the three entries; the @ts-expect-error lines fail the check if the declarations were `any`. */
const CONSUMER = `import { Backtest, type Strategy } from 'perpsim';
import { ApiKey, Client, type ClientOptions } from 'perpsim/client';
import { startExchange, type ExchangeOptions, type RunningExchange } from 'perpsim/testing';

const strategy: Strategy = {
  async onBook(book, ctx) {
    const bid: number | undefined = book.bids[0]?.[0];
    if (bid === undefined) return;
    await ctx.client.placeOrder({ marketId: book.marketId, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'ALO', quantity: ctx.formatSize(book.marketId, 0.01), price: ctx.formatPrice(book.marketId, bid, 'BUY') });
  },
};
const options: ExchangeOptions = { clock: 'virtual', agents: false, seed: 1, auth: true, rateLimits: false };
const ex: RunningExchange = await startExchange(options);
const key = await ApiKey.generate();
const address = '0x1111111111111111111111111111111111111111';
await ex.sim.registerApiKey(address, key.publicKey);
const client: Client = ex.client({ address, key });
const standalone = new Client({ baseUrl: ex.url, address, key } satisfies ClientOptions);
const ack = await client.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.5' });
const orderId: string = ack.orderId;
const backtest = new Backtest({ data: 'sim', markets: ['BTC-USD'], seed: 7 }, strategy);
void backtest;
void orderId;
await standalone.close();
await ex.close();

// @ts-expect-error a clock mode that does not exist
await startExchange({ clock: 'fast' });
// @ts-expect-error the base URL is required
new Client({});
// @ts-expect-error an order id is a string
const wrong: number = ack.orderId;
void wrong;
`;
