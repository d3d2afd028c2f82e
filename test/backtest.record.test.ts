import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Backtest, type MarketDataRecord } from '../index.ts';
import { marketMaker } from '../examples/market-maker.ts';
import { recordMarketData } from '../sim/backtest/record.ts';
import { startServer, type Server } from '../sim/server.ts';

let server: Server;
beforeAll(async () => {
  server = await startServer({ port: 0, clock: 'accelerated', speed: 20, auth: false, tickMs: 20 });
});
afterAll(async () => {
  await server.close();
});

describe("perpsim record writes a running perpsim's public streams in the backtest format, and the backtest replays it", () => {
  it('records book snapshots and deltas, trades with their aggressor side, oracle prices and funding, in exchange-time order', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'perpsim-record-')), 'recorded.jsonl');
    const recording = await recordMarketData({ url: `${server.url.replace('http', 'ws')}/v1/ws`, out, markets: ['BTC-USD', 'ETH-USD'] });
    await recording.ready;
    // Wait for enough simulated activity (the accelerated clock runs the agents 20× faster).
    const start = server.exchange.clock();
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (server.exchange.clock() - start > 30_000_000) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    const written = await recording.stop();
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as MarketDataRecord | { type: 'header'; markets: string[] });
    expect(lines[0]).toMatchObject({ type: 'header', format: 'perpsim-market-data', version: 1, markets: ['BTC-USD', 'ETH-USD'] });
    const records = lines.slice(1) as MarketDataRecord[];
    expect(records.length).toBe(written);
    const types = new Set(records.map((r) => r.type));
    for (const t of ['book', 'trade', 'oracle']) expect(types.has(t as MarketDataRecord['type'])).toBe(true);
    for (const market of ['BTC-USD', 'ETH-USD']) {
      const firstBook = records.find((r) => r.type === 'book' && r.market === market) as { snapshot?: boolean; bids: unknown[] } | undefined;
      expect(firstBook?.snapshot).toBe(true);
      expect(firstBook!.bids.length).toBeGreaterThan(0);
    }
    expect(records.filter((r) => r.type === 'book' && !r.snapshot).length).toBeGreaterThan(0);
    const trades = records.filter((r): r is Extract<MarketDataRecord, { type: 'trade' }> => r.type === 'trade');
    expect(new Set(trades.map((t) => t.side))).toEqual(new Set(['BUY', 'SELL']));
    for (let i = 1; i < records.length; i++) expect(records[i]!.ts).toBeGreaterThanOrEqual(records[i - 1]!.ts);
    for (const r of records) expect(r.lts).toBeGreaterThanOrEqual(r.ts);

    const heard = { oracle: 0, trade: 0, book: 0 };
    const mm = marketMaker({ market: 'BTC-USD', requoteMs: 500 });
    const result = await new Backtest({ data: { file: out }, markets: ['BTC-USD', 'ETH-USD'], latency: { feed: { kind: 'recorded' } } }, {
      ...mm,
      onOraclePrice: () => void heard.oracle++,
      onTrade: () => void heard.trade++,
      onBook: (book, ctx) => {
        heard.book++;
        return mm.onBook!(book, ctx);
      },
    }).run();
    expect(result.summary.events).toBe(written);
    expect(heard).toEqual({
      oracle: records.filter((r) => r.type === 'oracle').length,
      trade: trades.length,
      book: records.filter((r) => r.type === 'book').length,
    });
  });
});
