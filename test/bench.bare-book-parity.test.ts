import { describe, expect, it } from 'vitest';
import { apply, levelsBestFirst, type CommandResult, type EngineEvent } from '../engine/index.ts';
import {
  BareBook,
  PLACED_FILLED,
  PLACED_IOC_CANCELED,
  PLACED_OPEN,
  PLACED_PARTIAL,
  PLACED_POST_ONLY_REJECTED,
  TIF_ALO,
  TIF_GTT,
  TIF_IOC,
} from '../bench/bare-book.ts';
import { accountColumns, commandAt, newEngine, type PerpsimState } from '../bench/perpsim-runner.ts';
import { MARKETS, marketId, PRICE_SPAN } from '../bench/setup.ts';
import {
  generateStream,
  MIX_EXCHANGE_CORE,
  MIX_PLACE_HEAVY,
  OP_ALO,
  OP_CANCEL,
  OP_GTT,
  OP_MODIFY,
  OP_NAMES,
  type Mix,
  type Stream,
} from '../bench/stream.ts';

// bench:engine divides perpsim's rate by the bare book's. That ratio means something only if the
// bare book does the same matching work on the same stream: here both replay it op by op and
// must agree on every outcome, every traded quantity and the final book, level by level.

/** A place's outcome in the bare book's terms, from the engine's result. */
function placeOutcome(res: CommandResult): number {
  if (res.kind !== 'order') return -1;
  switch (res.status) {
    case 'OPEN':
      return PLACED_OPEN;
    case 'PARTIALLY_FILLED':
      return PLACED_PARTIAL;
    case 'FILLED':
      return PLACED_FILLED;
    case 'CANCELED':
      return PLACED_IOC_CANCELED;
    case 'REJECTED':
      return PLACED_POST_ONLY_REJECTED;
    default:
      return -1;
  }
}

function bareTif(kind: number): number {
  return kind === OP_GTT ? TIF_GTT : kind === OP_ALO ? TIF_ALO : TIF_IOC;
}

interface Parity {
  ops: number;
  byKind: number[];
  traded: number;
  placeOutcomes: number[];
}

function replayBoth(s: Stream): Parity {
  const fills: EngineEvent[] = [];
  const engine = newEngine((e) => {
    if (e.type === 'fill' && e.role === 'TAKER') fills.push(e);
  });
  const st: PerpsimState = {
    engine, accts: accountColumns(), idBase: engine.nextOrderId, counter: { events: 0 },
    tally: null, eventTally: null, commands: null,
  };
  const bare = new BareBook(MARKETS, PRICE_SPAN, s.refs);
  const out: Parity = { ops: 0, byKind: OP_NAMES.map(() => 0), traded: 0, placeOutcomes: [0, 0, 0, 0, 0] };
  for (let i = 0; i < s.length; i++) {
    const k = s.kind[i]!;
    const where = `op ${i} (${OP_NAMES[k]})`;
    fills.length = 0;
    const tradedBefore = bare.tradedQty;
    const res = apply(engine, commandAt(st, s, i));
    if (k < OP_CANCEL) {
      const outcome = bare.place(s.ref[i]!, s.market[i]!, s.side[i]!, s.price[i]!, s.size[i]!, bareTif(k));
      expect(placeOutcome(res), where).toBe(outcome);
      out.placeOutcomes[outcome]!++;
    } else if (k === OP_CANCEL) {
      const hit = bare.cancel(s.ref[i]!);
      expect(res.kind === 'order' && res.status === 'CANCELED', where).toBe(hit);
    } else if (k === OP_MODIFY) {
      const hit = bare.modify(s.ref[i]!, s.price[i]!, s.size[i]!);
      expect(res.kind === 'order' && (res.status === 'OPEN' || res.status === 'PARTIALLY_FILLED'), where).toBe(hit);
    }
    let engineTraded = 0;
    for (const f of fills) if (f.type === 'fill') engineTraded += f.size;
    expect(engineTraded, where).toBe(bare.tradedQty - tradedBefore);
    out.traded += engineTraded;
    out.byKind[k]!++;
    out.ops++;
  }
  for (let m = 0; m < MARKETS; m++) {
    const book = engine.markets.get(marketId(m))!.book;
    for (const side of [0, 1] as const) {
      const levels = [...levelsBestFirst(side === 0 ? book.bids : book.asks)].map((l): [number, number] => [l.price, l.size]);
      const bareLevels: [number, number][] = [];
      for (let p = 1; p < PRICE_SPAN; p++) {
        const size = bare.levelSize(m, p);
        if (size > 0 && sideAt(bare, m, p) === side) bareLevels.push([p, size]);
      }
      expect(levels.sort((a, b) => a[0] - b[0]), `market ${m} side ${side}`).toEqual(bareLevels);
    }
  }
  return out;
}

/** Which side a bare level belongs to: bids are at or below the best bid. */
function sideAt(bare: BareBook, m: number, price: number): 0 | 1 {
  const bid = bare.bestBid[m]!;
  return bid !== -1 && price <= bid ? 0 : 1;
}

describe('the bare book bench:engine measures perpsim against', () => {
  const cases: [string, Mix, number][] = [
    ['the place-heavy mix, seed 42', MIX_PLACE_HEAVY, 42],
    ['the place-heavy mix, seed 7', MIX_PLACE_HEAVY, 7],
    ['the exchange-core mix, seed 3', MIX_EXCHANGE_CORE, 3],
  ];
  for (const [name, mix, seed] of cases) {
    it(`matches exactly as the engine does, op by op, on ${name}`, () => {
      const s = generateStream({ ops: 40_000, seed, mix, targetPerMarket: 200 });
      const p = replayBoth(s);
      expect(p.ops).toBe(s.length);
      // The stream reaches every op kind and every fill outcome it is meant to, so the
      // comparison covered matching, not only resting.
      for (let k = 0; k < OP_NAMES.length; k++) if (s.opCounts[k]! > 0) expect(p.byKind[k], OP_NAMES[k]).toBeGreaterThan(0);
      expect(p.traded).toBe(s.expected.tradedQty);
      expect(p.placeOutcomes[PLACED_FILLED]).toBeGreaterThan(0);
      expect(p.placeOutcomes[PLACED_OPEN]).toBeGreaterThan(0);
      expect(p.placeOutcomes[PLACED_IOC_CANCELED]).toBeGreaterThan(0);
    });
  }
});
