/**
 * Rule: "same commands ⇒ same events".
 *
 * A long seeded pseudo-random command stream (placements of every kind, cancels, modifies and
 * cancel-replaces, cancelAll, dead man's switches, price moves, time steps that expire orders)
 * runs through two fresh engines; the sha256 of each event log (and of the command results)
 * must match. A different seed must give a different hash, so the comparison can fail. The
 * engine's sources must not read a clock or a random source.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { apply, createEngine } from '../engine/index.ts';
import type { Command, CommandResult, EngineEvent, SideCode, TifCode } from '../engine/types.ts';
import { createPrng } from '../sim/prng.ts';
import { DAY_US, FUNDING, T0, serialize, testMarket, TEST_ACCOUNTS } from './support/engine-fixture.ts';

const COMMANDS = 50_000;
const MARKETS = () => [testMarket(), testMarket({ id: 2, displayName: 'TWO-USD', baseAsset: 'TWO' })];
const MARKET_IDS = [1, 2] as const;
const ACCOUNTS = TEST_ACCOUNTS;

/**
 * The command stream of a seed: a pure function of it. Every placement is valid (on the tick,
 * above the minimum notional, MARKET orders IOC and within 10 % of the mark the stream itself
 * sets), so each one is issued the next orderId and later commands can name earlier orders.
 */
function commandStream(seed: number, n: number): Command[] {
  const rng = createPrng(seed);
  const out: Command[] = [];
  let time = T0;
  let nextId = 1;
  const mid = new Map<number, number>(MARKET_IDS.map((m) => [m, 1000]));
  /** Recent orderIds per account, and what the stream knows of each. */
  const recent: number[][] = ACCOUNTS.map(() => []);
  const known = new Map<number, { marketId: number; side: SideCode; clientId: string | undefined }>();
  for (const marketId of MARKET_IDS) out.push({ type: 'setOraclePrice', time, marketId, price: 1000 });
  for (const { address, accountIndex } of ACCOUNTS) out.push({ type: 'deposit', time, address, accountIndex, amount: FUNDING });

  const limitPrice = (marketId: number, side: SideCode): number => {
    const m = mid.get(marketId)!;
    // Mostly behind the mid, sometimes a few ticks through it, so orders both rest and cross.
    return side === 0 ? m - 8 + rng.int(12) : m + 8 - rng.int(12);
  };
  const pickOwn = (a: number): number | undefined => {
    const ids = recent[a]!;
    if (ids.length === 0) return undefined;
    return ids[ids.length - 1 - rng.int(Math.min(ids.length, 60))];
  };

  while (out.length < n) {
    time += 1 + rng.int(2_000);
    const a = rng.int(ACCOUNTS.length);
    const account = ACCOUNTS[a]!;
    const r = rng.next();
    if (r < 0.5) {
      const marketId = rng.pick(MARKET_IDS);
      const side = rng.int(2) as SideCode;
      const market = rng.next() < 0.1;
      const reduceOnly = rng.next() < 0.1;
      const t = rng.next();
      const tif: TifCode = market ? 2 : t < 0.6 ? 0 : t < 0.75 ? 2 : t < 0.85 ? 1 : 3;
      const m = mid.get(marketId)!;
      const band = Math.floor(m * 0.09);
      const price = market ? (side === 0 ? m + rng.int(band) : m - rng.int(band)) : limitPrice(marketId, side);
      // ≥ 70 quantums keeps every price the stream uses (≥ 819 ticks) above 5 USD.
      const size = reduceOnly ? 1 + rng.int(300) : 70 + rng.int(400);
      const clientId = rng.next() < 0.3 ? 'k' + rng.int(40) : undefined;
      out.push({
        type: 'placeOrder',
        time,
        ...account,
        marketId,
        side,
        orderType: market ? 1 : 0,
        tif,
        price,
        size,
        reduceOnly,
        clientId,
        goodTilTime: time + 30 * DAY_US + rng.int(600) * 1_000_000,
      });
      const id = nextId++;
      known.set(id, { marketId, side, clientId });
      recent[a]!.push(id);
      if (recent[a]!.length > 400) recent[a]!.splice(0, 100);
    } else if (r < 0.65) {
      const id = pickOwn(a);
      const facts = id === undefined ? undefined : known.get(id);
      const marketId = facts !== undefined && rng.next() < 0.9 ? facts.marketId : rng.pick(MARKET_IDS);
      if (rng.next() < 0.25 || id === undefined) out.push({ type: 'cancelOrder', time, ...account, marketId, clientId: 'k' + rng.int(40) });
      else out.push({ type: 'cancelOrder', time, ...account, marketId, orderId: id });
    } else if (r < 0.8) {
      const future = rng.next() < 0.05;
      const id = future ? nextId : pickOwn(a);
      const facts = id === undefined ? undefined : known.get(id);
      const marketId = facts?.marketId ?? rng.pick(MARKET_IDS);
      const side = facts?.side ?? (rng.int(2) as SideCode);
      const byClient = id === undefined || rng.next() < 0.15;
      out.push({
        type: 'modifyOrder',
        time,
        ...account,
        marketId,
        orderId: byClient ? undefined : id,
        clientId: byClient ? (facts?.clientId ?? 'k' + rng.int(40)) : undefined,
        price: limitPrice(marketId, side),
        size: 70 + rng.int(400),
        goodTilTime: rng.next() < 0.25 ? time + 30 * DAY_US + rng.int(600) * 1_000_000 : undefined,
      });
    } else if (r < 0.82) {
      out.push({ type: 'cancelAll', time, ...account, marketId: rng.next() < 0.5 ? rng.pick(MARKET_IDS) : undefined });
    } else if (r < 0.9) {
      // Mostly short steps (buffered modifies and switches come due); now and then a month,
      // which expires a slice of the resting GTT orders.
      time += rng.next() < 0.03 ? 30 * DAY_US + rng.int(600) * 1_000_000 : rng.int(3_000_000);
      out.push({ type: 'advanceTime', time });
    } else if (r < 0.97) {
      const marketId = rng.pick(MARKET_IDS);
      const m = Math.min(1100, Math.max(900, mid.get(marketId)! + rng.int(7) - 3));
      mid.set(marketId, m);
      out.push({ type: 'setOraclePrice', time, marketId, price: m });
    } else {
      const marketId = rng.next() < 0.5 ? rng.pick(MARKET_IDS) : undefined;
      out.push({ type: 'scheduleCancel', time, ...account, marketId, deadline: rng.next() < 0.2 ? null : time + 5_000_000 + rng.int(295_000_000) });
    }
  }
  return out;
}

interface RunOutcome {
  eventsHash: string;
  resultsHash: string;
  events: EngineEvent[];
  results: CommandResult[];
}

/** A fresh engine through the whole stream; each run gets its own copy of the commands. */
function run(commands: readonly Command[]): RunOutcome {
  const events: EngineEvent[] = [];
  const engine = createEngine({ markets: MARKETS() }, (e) => events.push(e));
  const results: CommandResult[] = [];
  for (const command of structuredClone(commands)) results.push(apply(engine, command));
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  return { eventsHash: sha(serialize(events)), resultsHash: sha(JSON.stringify(results)), events, results };
}

describe('rule: "same commands ⇒ same events"', () => {
  const commands = commandStream(20_240_601, COMMANDS);
  let first: RunOutcome;
  beforeAll(() => {
    first = run(commands);
  });

  it(`same commands ⇒ same events: ${COMMANDS.toLocaleString('en-US')} seeded commands through two fresh engines hash alike`, () => {
    const second = run(commands);
    if (second.eventsHash !== first.eventsHash) {
      // Name the first event that differs rather than two opaque hashes.
      const a = first.events;
      const b = second.events;
      let i = 0;
      while (i < a.length && i < b.length && serialize([a[i]!]) === serialize([b[i]!])) i++;
      expect.fail(`event logs diverge at event #${i} (of ${a.length} / ${b.length}):\n  first:  ${serialize(a.slice(i, i + 1))}\n  second: ${serialize(b.slice(i, i + 1))}`);
    }
    expect(second.events.length).toBe(first.events.length);
    expect(second.resultsHash).toBe(first.resultsHash);
  });

  it('the stream is not trivial: it trades, rests, expires, cancel-replaces and buffers', () => {
    const count = (predicate: (e: EngineEvent) => boolean) => first.events.filter(predicate).length;
    expect(commands.length).toBe(COMMANDS);
    expect(count((e) => e.type === 'fill')).toBeGreaterThan(5_000);
    expect(count((e) => e.type === 'order' && e.status === 'OPEN')).toBeGreaterThan(5_000);
    expect(count((e) => e.type === 'order' && e.rejectionReason === 'EXPIRED')).toBeGreaterThan(100);
    expect(count((e) => e.type === 'order' && e.cancelReason === 'MODIFY_CANCELED')).toBeGreaterThan(100);
    expect(count((e) => e.type === 'switch' && e.action === 'fired')).toBeGreaterThan(10);
    expect(first.results.filter((r) => r.kind === 'buffered').length).toBeGreaterThan(100);
    // Every placement was valid, so the stream's orderId bookkeeping matched the engine's.
    expect(first.results.filter((r) => r.kind === 'invalid')).toEqual([]);
  });

  it('same commands ⇒ same events is a real check: another seed gives another hash', () => {
    const other = run(commandStream(20_240_602, COMMANDS));
    expect(other.eventsHash).not.toBe(first.eventsHash);
  });

  it('the engine reads no clock and no random source (engine/**/*.ts)', () => {
    const dir = new URL('../engine/', import.meta.url);
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('engine.ts');
    expect(files).toContain('commands/place.ts');
    const forbidden: [string, RegExp][] = [
      ['Date.now', /\bDate\s*\.\s*now\b/],
      ['Math.random', /\bMath\s*\.\s*random\b/],
      ['performance.now', /\bperformance\s*\.\s*now\b/],
      ['new Date(', /\bnew\s+Date\s*\(/],
      ['process.hrtime', /\bprocess\s*\.\s*hrtime\b/],
      ['crypto randomness', /\b(getRandomValues|randomUUID|randomBytes|randomInt)\b/],
      ['timers', /\b(setTimeout|setInterval|setImmediate|queueMicrotask)\s*\(/],
    ];
    const hits: string[] = [];
    for (const file of files) {
      const code = stripComments(readFileSync(new URL(file, dir), 'utf8'));
      code.split('\n').forEach((line, i) => {
        for (const [name, pattern] of forbidden) if (pattern.test(line)) hits.push(`engine/${file}:${i + 1}: ${name}: ${line.trim()}`);
      });
    }
    expect(hits).toEqual([]);
  });
});

/** Blanks block and line comments (keeping line numbers); `//` inside a string such as a URL is kept. */
function stripComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}
