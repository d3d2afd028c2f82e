/**
 * The capped history lists as rings (gateway/shared/ring.ts) against the plain array they
 * replaced: `push`, then `shift` past the cap. Any sequence of pushes (the cap may change, as an
 * image written under other limits can bring a longer list), clears and image round trips
 * (oldest-first array out, ring back in) leaves the ring reading as the array: length, every
 * index, the oldest-first copy, the dropped entry, newest-first pages, window reads, the newest
 * match.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { newRing, ringAt, ringClear, ringFindNewest, ringLength, ringNewestFirst, ringNewestInWindow, ringOf, ringPush, ringToArray, type Ring } from '../gateway/shared/ring.ts';
import { newestFirst } from '../gateway/shared/window.ts';

interface Entry {
  time: number;
  id: number;
}

type Op = { kind: 'push'; cap: number; n: number } | { kind: 'clear' } | { kind: 'image' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('push' as const), cap: fc.integer({ min: 0, max: 12 }), n: fc.integer({ min: 1, max: 30 }) }), weight: 12 },
  { arbitrary: fc.constant({ kind: 'clear' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'image' as const }), weight: 2 },
);

function expectSame(ring: Ring<Entry>, list: Entry[], limit: number, from: number, to: number): void {
  expect(ringLength(ring)).toBe(list.length);
  expect(ringToArray(ring)).toEqual(list);
  for (let i = 0; i < list.length; i++) expect(ringAt(ring, i)).toBe(list[i]);
  const odd = (e: Entry): boolean => e.id % 2 === 1;
  expect(ringNewestFirst(ring, odd, limit)).toEqual(newestFirst(list, odd, limit));
  expect(ringFindNewest(ring, odd)).toBe([...list].reverse().find(odd));
  const window: Entry[] = [];
  for (let i = list.length - 1; i >= 0 && list[i]!.time >= from; i--) if (list[i]!.time <= to) window.push(list[i]!);
  expect([...ringNewestInWindow(ring, from, to)]).toEqual(window);
}

describe('capped lists as rings', () => {
  it('read as an array with push and shift past the cap under any pushes, cap changes, clears and image round trips', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), (ops, limit, a, b) => {
        let ring = newRing<Entry>();
        const list: Entry[] = [];
        let id = 0;
        for (const o of ops) {
          if (o.kind === 'push') {
            for (let k = 0; k < o.n; k++) {
              const e = { time: id >> 2, id: id++ };
              list.push(e);
              const expected = list.length > o.cap ? list.shift() : undefined;
              expect(ringPush(ring, e, o.cap)).toBe(expected);
            }
          } else if (o.kind === 'clear') {
            ringClear(ring);
            list.length = 0;
          } else {
            ring = ringOf(structuredClone(ringToArray(ring)));
            list.splice(0, list.length, ...structuredClone(list));
            expect(ringToArray(ring)).toEqual(list);
            // Identity is the image's, not the live list's: re-anchor the reference on the ring's entries.
            list.splice(0, list.length, ...ringToArray(ring));
          }
          expectSame(ring, list, limit, Math.min(a, b) / 4, Math.max(a, b) / 4);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('moves no entry once full: a push overwrites the oldest slot', () => {
    const ring = newRing<number>();
    for (let i = 0; i < 5; i++) ringPush(ring, i, 5);
    const items = ring.items;
    expect(ringPush(ring, 5, 5)).toBe(0);
    expect(ring.items).toBe(items);
    expect(ring.items).toEqual([5, 1, 2, 3, 4]);
    expect(ringToArray(ring)).toEqual([1, 2, 3, 4, 5]);
  });
});
