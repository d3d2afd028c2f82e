import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReplaySide } from '../sim/backtest/replay-book.ts';

/** The side's contract in the plainest form: sizes and consumption by price in Maps, sorted on every read. */
class ModelSide {
  readonly sizes = new Map<number, number>();
  readonly consumed = new Map<number, number>();
  constructor(readonly isBid: boolean) {}
  set(price: number, size: number): void {
    this.consumed.delete(price);
    if (size <= 0) this.sizes.delete(price);
    else this.sizes.set(price, size);
  }
  consume(price: number, qty: number): void {
    if (qty > 0 && this.sizes.has(price)) this.consumed.set(price, (this.consumed.get(price) ?? 0) + qty);
  }
  clear(): void {
    this.sizes.clear();
    this.consumed.clear();
  }
  visible(price: number): number {
    const size = this.sizes.get(price);
    return size === undefined ? 0 : size - (this.consumed.get(price) ?? 0);
  }
  /** Every held level, best first: [price, visible]. */
  levels(): [number, number][] {
    const prices = [...this.sizes.keys()].sort((a, b) => (this.isBid ? b - a : a - b));
    return prices.map((p) => [p, this.visible(p)]);
  }
}

type Op = { kind: 'set'; price: number; size: number } | { kind: 'consume'; price: number; qty: number } | { kind: 'clear' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('set' as const), price: fc.integer({ min: 90, max: 110 }), size: fc.integer({ min: -1, max: 50 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('consume' as const), price: fc.integer({ min: 90, max: 110 }), qty: fc.integer({ min: 0, max: 20 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('a replayed book side (levels in parallel arrays) answers as levels kept by price would', () => {
  it('after any sequence of sets, own-fill consumption and clears: levels by rank, visible sizes, best, top and crossing', () => {
    const buffer: number[] = [];
    fc.assert(
      fc.property(fc.boolean(), fc.array(op, { maxLength: 80 }), fc.integer({ min: 85, max: 115 }), fc.integer({ min: 1, max: 60 }), (isBid, ops, limit, need) => {
        const side = new ReplaySide(isBid);
        const model = new ModelSide(isBid);
        for (const o of ops) {
          if (o.kind === 'set') {
            side.set(o.price, o.size);
            model.set(o.price, o.size);
          } else if (o.kind === 'consume') {
            side.consume(o.price, o.qty);
            model.consume(o.price, o.qty);
          } else {
            side.clear();
            model.clear();
          }
        }
        const levels = model.levels();
        expect(side.count).toBe(levels.length);
        expect(Array.from({ length: side.count }, (_, k) => [side.priceAt(k), side.visibleAt(k)])).toEqual(levels);
        for (let p = 89; p <= 111; p++) expect(side.visible(p)).toBe(model.visible(p));
        const shown = levels.filter(([, s]) => s > 0);
        expect(side.best()).toBe(shown[0]?.[0] ?? 0);
        expect(side.top(3)).toEqual(shown.slice(0, 3).flat());
        const crossing: number[] = [];
        let held = 0;
        for (const [p, s] of shown) {
          if (held >= need || (isBid ? p < limit : p > limit)) break;
          crossing.push(p, s);
          held += s;
        }
        expect(side.crossing(limit, need)).toEqual(crossing);
        // Into a reused buffer that holds older values: the same values first, their count answered.
        const written = side.crossingInto(limit, need, buffer);
        expect(written).toBe(crossing.length);
        expect(buffer.slice(0, written)).toEqual(crossing);
      }),
      { numRuns: 300 },
    );
  });
});
