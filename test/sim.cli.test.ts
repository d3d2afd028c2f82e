import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteDriver } from '../gateway/persistence/sqlite-driver.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../gateway/persistence/schema.ts';
import { ConfigError, loadConfig, parseConfig } from '../sim/config.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { startServer, type Server } from '../sim/server.ts';

const Database = sqliteDriver();

const dir = mkdtempSync(join(tmpdir(), 'perpsim-cli-'));
function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

/** The problems a config value is rejected with (fails when it is accepted). */
function problems(value: unknown): string[] {
  try {
    parseConfig(value);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('config accepted');
}

const btc = defaultMarkets()[0]!;
const tiers = [
  { name: 'base', minVolume: '0', makerFeePpm: 100, takerFeePpm: 400 },
  { name: 'pro', minVolume: '1000000.5', makerFeePpm: -20, takerFeePpm: 250 },
];

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'sim/main.ts', ...args], { env: { ...process.env, ...env }, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

describe('loadConfig reads a JSON config file into engine and simulator types', () => {
  it('accepts every section and converts fee tier volumes to quote quantums', () => {
    const config = loadConfig(
      file('good.json', {
        markets: [btc],
        prices: { 'BTC-USD': '50000' },
        feeTiers: tiers,
        agents: { levels: 5 },
        feeds: { volatility: 0.2, seed: 7 },
        limits: { openOrdersPerMarket: 10 },
        geo: { blocked: ['US'] },
      }),
    );
    expect(config.markets).toEqual([btc]);
    expect(config.prices).toEqual({ 'BTC-USD': '50000' });
    expect(config.feeTiers).toEqual([
      { name: 'base', minVolume: 0n, makerFeePpm: 100, takerFeePpm: 400 },
      { name: 'pro', minVolume: 1_000_000_500_000_000n, makerFeePpm: -20, takerFeePpm: 250 },
    ]);
    expect(config.agents).toEqual({ levels: 5 });
    expect(config.walk).toEqual({ volatility: 0.2 });
    expect(config.seed).toBe(7);
    expect(config.limits).toEqual({ openOrdersPerMarket: 10 });
    expect(config.geoBlocked).toEqual(['US']);
  });

  it('accepts an empty object (every default kept)', () => {
    expect(parseConfig({})).toEqual({});
  });

  it('reports every bad field with its JSON path in one error', () => {
    expect(
      problems({
        markets: [{ ...btc, tickSize: 'abc', status: 'PAUSED', category: 'STOCKS' }],
        prices: { 'BTC-USD': 5 },
        feeTiers: [{ name: 'base', minVolume: '-1', makerFeePpm: 1.5, takerFeePpm: 1 }],
        agents: { levels: 'many' },
        feeds: { jumpProbability: 2 },
        limits: { openOrdersPerMarket: 0 },
        geo: { blocked: ['usa'] },
      }),
    ).toEqual([
      'markets[0].status: must be one of "ONLINE", "OFFLINE"',
      'markets[0].category: must be one of "EQUITIES", "COMMODITIES", "INDICES", "CRYPTO", "FOREX", null',
      'markets[0].tickSize: must be a non-negative decimal string',
      'prices.BTC-USD: must be string',
      'feeTiers[0].minVolume: must be a non-negative decimal string',
      'feeTiers[0].makerFeePpm: must be integer',
      'agents.levels: must be integer',
      'feeds.jumpProbability: must be <= 1',
      'limits.openOrdersPerMarket: must be >= 1',
      'geo.blocked[0]: must be a two-letter ISO country code',
    ]);
  });

  it('rejects unknown keys at the top level and inside sections', () => {
    expect(problems({ marketz: [], agents: { level: 3 }, markets: [{ ...btc, extra: true }] })).toEqual([
      'marketz: unknown key',
      'markets[0].extra: unknown key',
      'agents.level: unknown key',
    ]);
  });

  it('rejects fee tiers that do not start at 0 or do not increase, and volumes finer than 1e-9 USD', () => {
    expect(problems({ feeTiers: [{ ...tiers[1]!, minVolume: '5' }, { ...tiers[1]!, minVolume: '5' }, { ...tiers[1]!, minVolume: '6.0000000001' }] })).toEqual([
      'feeTiers[0].minVolume: the first tier must start at 0',
      "feeTiers[1].minVolume: must be above the previous tier's",
      'feeTiers[2].minVolume: finer than 1e-9 USD',
    ]);
  });

  it('rejects duplicate markets and markets the engine refuses', () => {
    expect(problems({ markets: [btc, btc] })).toEqual(['markets[1].id: duplicate market id 1', 'markets[1].displayName: duplicate display name BTC-USD']);
    expect(problems({ markets: [{ ...btc, tickSize: '0.3' }] })).toEqual(['markets: BTC-USD: tier tick 0.1 is not a multiple of 0.3']);
  });

  it('names the file when it is not JSON or not an object', () => {
    expect(() => loadConfig(file('broken.json', '{ "markets": '))).toThrow(/^config file .*broken\.json is invalid:\n {2}is not JSON/);
    expect(() => loadConfig(file('array.json', []))).toThrow(/array\.json is invalid:\n {2}\(root\): must be object/);
  });
});

describe('the perpsim command line', () => {
  it('--help explains every serve option', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    for (const option of ['--host', '--port', '--db', '--memory', '--sync', '--snapshot-every', '--keep-journal', '--seed', '--config', '--clock', '--speed', '--no-agents', '--no-auth', '--no-rate-limits', '--control-token', '--log-level']) {
      expect(stdout).toContain(option);
    }
  });

  it('exits 2 with a message on a bad option value', async () => {
    const port = await cli(['serve', '--port', 'abc']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("'--port <port>' argument 'abc' is invalid");
    const clock = await cli(['--clock', 'foo']);
    expect(clock.code).toBe(2);
    expect(clock.stderr).toContain('Allowed choices are realtime, accelerated, virtual');
  });

  it('exits 2 with a clear message on a database from a newer perpsim, and on --db with --memory', async () => {
    const newer = join(dir, 'newer.db');
    const raw = new Database(newer);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const refused = await cli(['--db', newer, '--port', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`newer.db has schema version ${SCHEMA_VERSION + 1}, newer than this perpsim understands`);
    const both = await cli(['--db', join(dir, 'x.db'), '--memory']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("option '--db <file>' cannot be used with option '--memory'");
  });

  it('exits 2 with the bad fields of an invalid config file', async () => {
    const { code, stderr } = await cli(['--config', file('bad.json', { bogus: 1 })]);
    expect(code).toBe(2);
    expect(stderr).toContain('bad.json is invalid:\n  bogus: unknown key');
  });
});

describe('startServer takes markets, fee tiers and limits from a config', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('runs only the configured markets at the configured prices, with its fee tiers and limits', async () => {
    const config = parseConfig({ markets: [btc], prices: { 'BTC-USD': '50000' }, feeTiers: tiers, limits: { openOrdersPerMarket: 10 } });
    server = await startServer({ port: 0, agents: false, markets: config.markets!, prices: config.prices!, risk: { feeTiers: config.feeTiers! }, limits: config.limits! });
    const engine = server.exchange.engine;
    expect([...engine.markets.keys()]).toEqual([1]);
    expect(engine.markets.get(1)!.oraclePrice).toBe(500_000); // 50000 USD at a 0.1 tick
    expect(engine.risk.feeTiers).toEqual(config.feeTiers);
    expect(engine.limits.openOrdersPerMarket).toBe(10);
  });
});
