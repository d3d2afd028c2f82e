/**
 * The live engine against the reference model (test/reference/engine/: the engine as it was
 * before its second design, kept unchanged): seeded random streams of every command kind must
 * give equal results, equal event sequences and equal state hashes. A difference names the
 * seed, the command and the first event that differs; a bench mode runs the same harness for
 * 10,000,000 commands (bench/differential.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_KINDS, createCommandStream, EVENT_KINDS, type StreamShape } from './support/differential-stream.ts';
import { insertOrder, levelOrders, levelsBestFirst, removeOrder, type Book } from '../engine/book.ts';
import type { Order } from '../engine/order.ts';
import { DivergenceError, mergeCounts, runDifferential, uncovered, type DifferentialReport } from './support/differential.ts';

const SEEDS = [1, 2, 3, 4] as const;
const PER_SEED = 15_000;

describe('the live engine behaves exactly as the reference engine', () => {
  const reports: DifferentialReport[] = [];

  for (const seed of SEEDS) {
    it(`seed ${seed}: ${PER_SEED.toLocaleString('en-US')} random commands give equal results, events and state hashes`, () => {
      const report = runDifferential({ seed, commands: PER_SEED, digestEvery: 2_500 });
      reports.push(report);
      expect(report.commands).toBe(PER_SEED);
      expect(report.digests).toBe(PER_SEED / 2_500);
      // Liquidations reach the book and ADL in every seed, not only by luck in one.
      expect(report.eventCounts.liquidation).toBeGreaterThan(0);
      expect(report.eventCounts.adl).toBeGreaterThan(0);
    });
  }

  for (const seed of [1, 2] as const) {
    it(`seed ${seed} in record mode: the events read back from the record buffer are the reference's, command by command`, () => {
      const report = runDifferential({ seed, commands: PER_SEED, digestEvery: 5_000, eventRecords: true });
      expect(report.commands).toBe(PER_SEED);
      // Every record layout is exercised, and so is an event that rides as an object.
      for (const kind of ['order', 'fill', 'position', 'book', 'bbo', 'trades', 'liquidation', 'transfer']) expect(report.eventCounts[kind], kind).toBeGreaterThan(0);
    });
  }

  // The default stream keeps prices on the first tick tier and notionals small; these shapes put
  // them across the tier boundaries (1000 USD: tick 0.1 → 0.5; 10,000 USD: 0.5 → 1) and past
  // 2^53 quote quantums per order.
  const SHAPES: readonly [number, StreamShape, string][] = [
    [6, { priceScale: 10, sizeScale: 10_000 }, 'prices on the 0.1 and 0.5 USD tick tiers'],
    [7, { priceScale: 100, sizeScale: 10_000 }, 'prices on the 0.5 and 1 USD tick tiers'],
  ];
  for (const [seed, shape, what] of SHAPES) {
    it(`seed ${seed} with ${what} and notionals past 2^53 quantums: equal results, events and state hashes`, () => {
      const report = runDifferential({ seed, commands: PER_SEED, digestEvery: 5_000, shape });
      expect(report.commands).toBe(PER_SEED);
      for (const kind of ['fill', 'liquidation', 'adl']) expect(report.eventCounts[kind], kind).toBeGreaterThan(0);
      // The shape is what the name says: orders on both tiers, most of them worth more than 2^53 quantums.
      const stream = createCommandStream(seed, shape);
      const tiers = [0, 0, 0];
      let orders = 0;
      let past53 = 0;
      for (let i = 0; i < PER_SEED; i++) {
        const c = stream.next();
        for (const o of c.type === 'placeOrder' ? [c] : c.type === 'batchPlace' ? c.orders : []) {
          orders++;
          tiers[o.price <= 10_000 ? 0 : o.price <= 100_000 ? 1 : 2]!++;
          if (BigInt(o.size) * BigInt(o.price) * 100_000n > 2n ** 53n) past53++;
        }
      }
      const used = tiers.filter((n) => n > orders / 4).length;
      expect(used, JSON.stringify(tiers)).toBe(2);
      expect(past53).toBeGreaterThan(orders / 2);
    });
  }

  for (const seed of [3] as const) {
    it(`seed ${seed} with reused results and reused command records: equal results, events and state hashes`, () => {
      const report = runDifferential({ seed, commands: PER_SEED, digestEvery: 5_000, eventRecords: true, reuse: true });
      expect(report.commands).toBe(PER_SEED);
      // The paths that must not keep a caller's command or hand out the shared record were taken.
      for (const kind of ['modifyOrder', 'batchPlace', 'placeOrder', 'cancelOrder']) expect(report.commandCounts[kind], kind).toBeGreaterThan(0);
    });
  }

  it('the streams cover every command kind and every event kind (counts printed)', () => {
    expect(reports.length).toBe(SEEDS.length);
    const commands: Record<string, number> = {};
    const events: Record<string, number> = {};
    const statuses: Record<string, number> = {};
    for (const r of reports) {
      mergeCounts(commands, r.commandCounts);
      mergeCounts(events, r.eventCounts);
      mergeCounts(statuses, r.orderStatusCounts);
    }
    const total = reports.reduce((n, r) => n + r.commands, 0);
    console.log(`differential coverage over ${total} commands, seeds ${SEEDS.join(', ')}:\n  commands: ${JSON.stringify(commands)}\n  events:   ${JSON.stringify(events)}\n  order statuses: ${JSON.stringify(statuses)}`);
    expect(total).toBeGreaterThanOrEqual(50_000);
    expect(uncovered({ commandCounts: commands, eventCounts: events })).toEqual([]);
    expect(Object.keys(commands).sort()).toEqual([...COMMAND_KINDS].sort());
    expect(Object.keys(events).sort()).toEqual([...EVENT_KINDS].sort());
    for (const status of ['LIQUIDATED', 'ADL', 'TPSL_TRIGGERED', 'MARGIN_CANCELED']) expect(statuses[status], status).toBeGreaterThan(0);
  });

  it('a difference is caught: one quantum moved in the live engine fails the state hash', () => {
    const run = () =>
      runDifferential({
        seed: 5,
        commands: 600,
        digestEvery: 100,
        tamper: { at: 250, apply: (engine) => void (engine.insuranceFund += 1n) },
      });
    expect(run).toThrow(DivergenceError);
    expect(run).toThrow(/seed 5, command #299 .*state hashes differ/);
  });

  it('a difference in queue priority alone is caught: the front order of a level moved to its back', () => {
    let moved = false;
    const run = () =>
      runDifferential({
        seed: 5,
        commands: 600,
        digestEvery: 100,
        tamper: {
          at: 250,
          apply: (engine) => {
            for (const ms of engine.bySlot) {
              for (const side of [0, 1] as const) {
                const front = frontOfDeepLevel(ms.book, side);
                if (front === undefined) continue;
                removeOrder(ms.book, front);
                insertOrder(ms.book, front);
                moved = true;
                return;
              }
            }
          },
        },
      });
    expect(run).toThrow(/seed 5, command #299 .*state hashes differ/);
    expect(moved).toBe(true);
  });

  it("a difference in the risk table is caught: one quantum of a row's funding tally", () => {
    const run = () =>
      runDifferential({
        seed: 5,
        commands: 600,
        digestEvery: 100,
        tamper: { at: 250, apply: (engine) => void (engine.accounts.table.fundingAllTime[0] = engine.accounts.table.fundingAllTime[0]! + 1n) },
      });
    expect(run).toThrow(DivergenceError);
    expect(run).toThrow(/seed 5, command #2\d\d .*differ/);
  });

  it('the reference engine is self-contained: it imports nothing from the live engine/', () => {
    const dir = new URL('./reference/engine/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('engine.ts');
    const outside = files.flatMap((f) =>
      [...readFileSync(new URL(f, dir), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!).filter((s) => s.startsWith('.') && !s.startsWith('./')).map((s) => `${f}: ${s}`),
    );
    expect(outside).toEqual([]);
  });
});

/** The front order of a level of `book`'s `side` that holds at least two orders. */
function frontOfDeepLevel(book: Book, side: 0 | 1): Order | undefined {
  const bookSide = side === 0 ? book.bids : book.asks;
  for (const level of levelsBestFirst(bookSide)) if (level.count >= 2) return levelOrders(bookSide, level.price)[0];
  return undefined;
}
