import { existsSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { compileMarket, toUnits } from '../engine/index.ts';
import { Backtest, MarketDataReader, MarketDataWriter, type ParseMode } from '../index.ts';
import { DataFormatError, type ReplayEvent } from '../sim/backtest/data-format.ts';
import { decimalUnits } from '../sim/backtest/decimal-units.ts';
import { generateRecording } from '../sim/backtest/generate.ts';
import { pruneBundles, STALE_BUNDLE_MS, WorkerReader, workerModule } from '../sim/backtest/jsonl-pipeline.ts';
import { CHUNK } from '../sim/backtest/jsonl-worker.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { T0 } from './support/backtest-data.ts';

const btc = compileMarket(defaultMarkets()[0]!);
const eth = compileMarket(defaultMarkets()[1]!);
const specs = new Map([[btc.displayName, btc]]);

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'data.jsonl');
  writeFileSync(path, text);
  return path;
}

/** How the worker route splits a file: reader threads, block and head bytes (undefined: its defaults). */
type Split = [threads: number, block?: number, head?: number];

/**
 * Every event of a file as plain text (the fast readers reuse their event objects); `worker`
 * is the worker route (jsonl-pipeline.ts), by default with small blocks shared between two
 * threads and a head read in this thread, so small files cross every seam.
 */
function events(path: string, mode: ParseMode, from = -Infinity, to = Infinity, split: Split = [2, 1024, 3000]): { events: string[]; fallbackLines: number } {
  const reader = mode === 'worker' ? new WorkerReader(path, specs, from, to, workerModule(), ...split) : new MarketDataReader(path, specs, from, to, mode);
  const out: string[] = [];
  try {
    for (let e: ReplayEvent | undefined = reader.next(); e !== undefined; e = reader.next()) {
      out.push(JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)));
    }
  } finally {
    reader.close();
  }
  return { events: out, fallbackLines: reader.fallbackLines };
}

function errorOf(path: string, mode: ParseMode): string {
  try {
    events(path, mode);
    return 'no error';
  } catch (err) {
    return `${(err as Error).constructor.name}: ${(err as Error).message}`;
  }
}

describe('the fast reader answers exactly the events the JSON.parse reader answers, for any JSONL', () => {
  it('a generated recording: same events, and only the header and funding lines are JSON.parsed', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'gen.jsonl');
    generateRecording(path, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 20_000, seed: 3, start: T0 + 3_595_000_000 });
    const fast = events(path, 'fast');
    const json = events(path, 'json');
    expect(fast.events.length).toBe(20_000);
    expect(fast.events).toEqual(json.events);
    expect(events(path, 'worker')).toEqual(fast);
    const funding = json.events.filter((e) => e.includes('"funding"')).length;
    expect(funding).toBeGreaterThan(0);
    expect(fast.fallbackLines).toBe(1 + funding);
  });

  it("the recorder's shapes (mark on oracle lines, snapshot only when true) take the fast path", () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'rec.jsonl');
    const writer = new MarketDataWriter(path, { markets: ['BTC-USD', 'ETH-USD'], source: 'test' });
    writer.write({ type: 'book', ts: T0, lts: T0 + 9, market: 'BTC-USD', snapshot: true, bids: [['96990.0', '0.5']], asks: [['97000.0', '0.25']] });
    writer.write({ type: 'book', ts: T0 + 1, lts: T0 + 9, market: 'BTC-USD', bids: [], asks: [['97000.0', '0']] });
    writer.write({ type: 'trade', ts: T0 + 2, lts: T0 + 9, market: 'BTC-USD', side: 'SELL', price: '96990.0', size: '0.1' });
    writer.write({ type: 'oracle', ts: T0 + 3, lts: T0 + 9, market: 'BTC-USD', price: '96995.5', mark: '96995.1' });
    writer.write({ type: 'oracle', ts: T0 + 4, lts: T0 + 9, market: 'ETH-USD', price: '3500.25', mark: '3500.2' });
    writer.close();
    const fast = events(path, 'fast');
    expect(fast.events).toEqual(events(path, 'json').events);
    expect(fast.events.length).toBe(4);
    expect(fast.fallbackLines).toBe(1);
  });

  it('unusual but valid lines (whitespace, key order, escapes, exponents, other fields, CRLF, no lts, off-grid text) give the same events', () => {
    const lines = [
      '{ "type": "oracle", "ts": 1735689600000000, "market": "BTC-USD", "price": "97000.0" }',
      '{"market":"BTC-USD","price":"97000.1","lts":1735689600000009,"ts":1735689600000001,"type":"oracle"}',
      '{"type":"oracle","ts":1735689600000002,"lts":1735689600000002,"market":"BTC\\u002dUSD","price":"97000.2"}',
      '{"type":"oracle","ts":1735689600000003,"lts":1735689600000003,"market":"BTC-USD","price":"9.70003e4"}',
      '{"type":"oracle","ts":1735689600000004,"lts":1735689600000004,"market":"BTC-USD","price":"97000.4","note":"x"}',
      '{"type":"oracle","ts":1735689600000005,"lts":1735689600000005,"market":"BTC-USD","price":"97000.5"}\r',
      '{"type":"trade","ts":1735689600000006,"market":"BTC-USD","side":"BUY","price":"97000.04","size":"0.000000015"}',
      '{"type":"trade","ts":1735689600000007,"lts":1.735689600000007e15,"market":"BTC-USD","side":"sell","price":"97000.0","size":"1"}',
      '{"type":"book","ts":1735689600000008,"market":"BTC-USD","snapshot":false,"bids":[["97000.0","1.0"], ["96999.9","2"]],"asks":[]}',
      '{"type":"book","ts":1735689600000009,"market":"BTC-USD","snapshot":1,"bids":[],"asks":[["97000.1","0.123456789012345678"]]}',
      '{"type":"book","ts":1735689600000010,"market":"BTC-USD","bids":[],"asks":[["97000.2","3"]],"bids":[["96999.0","4"]]}',
      '{"type":"trade","ts":1735689600000011,"market":"BTC-USD","side":"BUY","price":"097000.0","size":".5"}',
      '{"type":"oracle","ts":1735689600000012,"market":"ETH-USD","price":"3500.0"}',
      '{"type":"oracle","ts":1735689600000013,"market":"BTC-USD","price":"1234567890123456.7"}',
      '{"type":"funding","ts":1735689600000014,"market":"BTC-USD","rate":"-0.0000125"}',
      '',
      `{"type":"book","ts":1735689600000015,"market":"BTC-USD","bids":[${Array.from({ length: 300_000 }, (_, i) => `["${90000 + i}.5","1"]`).join(',')}],"asks":[]}`,
      '{"type":"oracle","ts":1735689600000016,"market":"BTC-USD","price":"97000.6"}',
    ];
    const path = file(lines.join('\n'));
    const fast = events(path, 'fast');
    const json = events(path, 'json');
    expect(fast.events.length).toBe(16);
    expect(fast.events).toEqual(json.events);
    // Blocks of 64 KB: a block inside the 4-MB line reads on to its end.
    expect(events(path, 'worker', -Infinity, Infinity, [2, 64 * 1024, 1000])).toEqual(fast);
    expect(fast.fallbackLines).toBeGreaterThan(8);
  });

  it('random records in random layouts: the same events from both readers', () => {
    const decimal = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 9 })).map(([n, d]) => new Big(n).div(new Big(10).pow(d)).toFixed(d)),
      fc.constantFrom('0', '1e3', '-1.5', '', '00.10', '5.'),
    );
    const record = fc.record({
      type: fc.constantFrom('oracle', 'trade', 'book', 'funding'),
      ts: fc.integer({ min: 0, max: 1e6 }).map((n) => T0 + n),
      lts: fc.option(fc.integer({ min: 0, max: 1e6 }).map((n) => T0 + n), { nil: undefined }),
      market: fc.constantFrom('BTC-USD', 'ETH-USD'),
      price: decimal,
      size: decimal,
      rate: fc.constantFrom('0.0000125', '-0.0000125', '0', '1e-5'),
      side: fc.constantFrom('BUY', 'SELL'),
      snapshot: fc.option(fc.boolean(), { nil: undefined }),
      bids: fc.array(fc.tuple(decimal, decimal), { maxLength: 4 }),
      asks: fc.array(fc.tuple(decimal, decimal), { maxLength: 4 }),
    });
    let cases = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(record, fc.boolean(), fc.integer({ min: 0, max: 1000 })), { minLength: 1, maxLength: 30 }), (rows) => {
        const text = rows
          .map(([r, spaced, order]) => {
            const entries = Object.entries(r).filter(([, v]) => v !== undefined);
            // A rotation of the keys, sometimes with whitespace.
            const k = order % entries.length;
            const rotated = [...entries.slice(k), ...entries.slice(0, k)];
            return JSON.stringify(Object.fromEntries(rotated), null, spaced ? 1 : undefined).replaceAll('\n', '');
          })
          .join('\n');
        const path = file(text);
        const fast = events(path, 'fast');
        expect(fast.events).toEqual(events(path, 'json').events);
        // The reader threads on a sixth of the cases (each starts two threads).
        if (++cases % 6 === 0) expect(events(path, 'worker', -Infinity, Infinity, [2, 256, 300])).toEqual(fast);
      }),
      { numRuns: 60 },
    );
  });

  it('a line that is not JSON fails with the same error and line number on both routes', () => {
    const path = file('{"type":"oracle","ts":1735689600000000,"market":"BTC-USD","price":"1.0"}\n\n{"type":"oracle","ts":17356896\n');
    expect(errorOf(path, 'fast')).toBe(errorOf(path, 'json'));
    expect(errorOf(path, 'worker')).toBe(errorOf(path, 'json'));
    expect(errorOf(path, 'fast')).toBe(`${DataFormatError.name}: line 3: not JSON`);
  });

  it('the window [from, to) applies the same way on both routes', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'gen.jsonl');
    generateRecording(path, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 3_000, seed: 5, start: T0 });
    const window = [T0 + 500_000, T0 + 1_500_000] as const;
    const fast = events(path, 'fast', ...window);
    expect(fast.events.length).toBeGreaterThan(100);
    expect(fast.events).toEqual(events(path, 'json', ...window).events);
    expect(events(path, 'worker', ...window)).toEqual(fast);
  });
});

describe('the worker route (jsonl-pipeline.ts) answers the in-thread reader’s events, errors and window', () => {
  it('a file of several chunks and blocks, its size a multiple of neither, with unrecognized lines among them, split in several ways', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'gen.jsonl');
    generateRecording(path, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 60_000, seed: 4, start: T0 + 3_595_000_000 });
    // Other writers' shapes, another market and an empty line in the middle of the file.
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.splice(30_000, 0, '{ "type": "oracle", "ts": 1735693195000000, "market": "BTC-USD", "price": "97000.0" }', '', '{"type":"oracle","ts":1735693195000001,"market":"ETH-USD","price":"3500.0"}');
    writeFileSync(path, lines.join('\n'));
    const scan = events(path, 'scan');
    expect(scan.events.length).toBe(60_001);
    expect(scan.fallbackLines).toBeGreaterThan(2);
    expect(statSync(path).size % (CHUNK * 8)).not.toBe(0);
    expect(events(path, 'worker', -Infinity, Infinity, [2])).toEqual(scan);
    expect(events(path, 'worker', -Infinity, Infinity, [1, 1 << 20, 0])).toEqual(scan);
    expect(events(path, 'worker', -Infinity, Infinity, [3, 100_000, 0])).toEqual(scan);
    expect(events(path, 'json').events).toEqual(scan.events);
  });

  it('without esbuild, the tsx entry (jsonl-worker-entry.mjs) runs the same threads', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'gen.jsonl');
    generateRecording(path, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 2_000, seed: 8, start: T0 });
    const entry = new URL('../sim/backtest/jsonl-worker-entry.mjs', import.meta.url).href;
    const reader = new WorkerReader(path, specs, -Infinity, Infinity, entry, 2, 16 * 1024, 0);
    let count = 0;
    try {
      while (reader.next() !== undefined) count++;
    } finally {
      reader.close();
    }
    expect(count).toBe(2_000);
    expect(reader.fallbackLines).toBe(events(path, 'scan').fallbackLines);
  });

  it('a truncated file and a missing file fail with the in-thread reader’s errors', () => {
    const whole = '{"type":"oracle","ts":1735689600000000,"market":"BTC-USD","price":"1.0"}\n{"type":"funding","ts":1735689600000001,"market":"BTC-USD","rate":"0.00001"}\n';
    const truncated = file(`${whole}{"type":"book","ts":1735689600000002,"market":"BTC-USD","bids":[["1.0","2"]`);
    expect(errorOf(truncated, 'worker')).toBe(errorOf(truncated, 'scan'));
    expect(errorOf(truncated, 'worker')).toBe(errorOf(truncated, 'json'));
    expect(errorOf(truncated, 'worker')).toBe(`${DataFormatError.name}: line 3: not JSON`);
    // A bad line deep in a block a reader thread reads: the same line number.
    const lines = Array.from({ length: 3_000 }, (_, i) => `{"type":"oracle","ts":${T0 + i},"market":"BTC-USD","price":"97000.${i % 10}"}`);
    lines[2_500] = '{"type":"oracle","ts":';
    const bad = file(lines.join('\n'));
    expect(errorOf(bad, 'scan')).toBe(`${DataFormatError.name}: line 2501: not JSON`);
    expect(errorOf(bad, 'worker')).toBe(errorOf(bad, 'scan'));
    const missing = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'none.jsonl');
    expect(() => new WorkerReader(missing, specs).next()).toThrow(/ENOENT/);
  });

  it('the thread ends when the reader is closed early and when the window ends', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'gen.jsonl');
    generateRecording(path, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 50_000, seed: 5, start: T0 });
    const early = new WorkerReader(path, specs);
    expect(early.next()).toBeDefined();
    early.close();
    await early.exited;
    for (const split of [[2], [2, 64 * 1024, 0]] as Split[]) {
      const window = new WorkerReader(path, specs, -Infinity, T0 + 100_000, workerModule(), ...split);
      while (window.next() !== undefined);
      await window.exited;
    }
  });

  it('a backtest whose strategy throws closes the reader', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpsim-fast-')), 'gen.jsonl');
    generateRecording(path, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 5_000, seed: 6, start: T0 });
    const close = vi.spyOn(WorkerReader.prototype, 'close');
    try {
      const failing = new Backtest({ data: { file: path, parse: 'worker' }, markets: ['BTC-USD'] }, { onTrade: () => { throw new Error('strategy failed'); } });
      await expect(failing.run()).rejects.toThrow('strategy failed');
      expect(close).toHaveBeenCalled();
    } finally {
      close.mockRestore();
    }
  });
});

describe('abandoned worker bundles are removed from the temp directory', () => {
  it('removes bundles untouched for a day and keeps fresh ones and other files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpsim-prune-'));
    const now = Date.now();
    const names = ['perpsim-jsonl-worker-aaaaaaaaaaaaaaaa.mjs', 'perpsim-jsonl-worker-bbbbbbbbbbbbbbbb.mjs', 'other.mjs'];
    for (const name of names) writeFileSync(join(dir, name), '');
    const old = new Date(now - STALE_BUNDLE_MS - 1_000);
    utimesSync(join(dir, names[0]!), old, old);
    utimesSync(join(dir, names[2]!), old, old);
    expect(pruneBundles(dir, now)).toBe(1);
    expect(names.map((n) => existsSync(join(dir, n)))).toEqual([false, true, true]);
  });
});

describe('recorded decimals convert to ticks and quantums exactly, without big.js on the hot path', () => {
  it('on-grid prices and sizes give the same count as the engine’s big.js conversion', () => {
    fc.assert(
      fc.property(fc.constantFrom(btc, eth), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 3 }), (spec, count, pad) => {
        for (const unit of [spec.tick, spec.step]) {
          const text = new Big(count).times(unit.big).toFixed(unit.scale + pad);
          expect(decimalUnits(text, unit.scale, unit.mantissa)).toBe(toUnits(text, unit));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('off-grid text rounds to the nearest unit; unusual text takes the float route', () => {
    expect(decimalUnits('97000.04', btc.tick.scale, btc.tick.mantissa)).toBe(970_000);
    expect(decimalUnits('97000.06', btc.tick.scale, btc.tick.mantissa)).toBe(970_001);
    expect(decimalUnits('0.000000015', btc.step.scale, btc.step.mantissa)).toBe(2);
    expect(decimalUnits('9.7e4', btc.tick.scale, btc.tick.mantissa)).toBe(970_000);
    expect(decimalUnits('-1.5', btc.tick.scale, btc.tick.mantissa)).toBe(-15);
  });
});
