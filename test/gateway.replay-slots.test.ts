/**
 * The replay slots' indexed ring (gateway/auth/replay-slots.ts) against the contract of
 * gateway/auth/replay.ts, written out as the Set and age Map it replaced: the same slots after
 * any sequence of takes, adoptions, drops and clears, whatever the letter case; a slot is never
 * dropped before KEEP_US; images and journals replay to the same slots and ages.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../engine/spec.ts';
import { ReplaySlots, type ReplayJournal } from '../gateway/auth/replay-slots.ts';

const KEEP_US = 2 * LIMITS.timestampDriftMs * 1000;

/** The contract as the Set of lowercase slots and the Map of their ages (insertion order = age order). */
class Reference {
  readonly slots = new Set<string>();
  readonly ages = new Map<string, number>();
  has(signature: string): boolean {
    return this.slots.has(signature.toLowerCase());
  }
  take(signature: string, wall: number, sim: number): void {
    const now = Math.max(wall, sim);
    for (const known of this.slots) if (!this.ages.has(known)) this.ages.set(known, now);
    // A slot already held is taken again at the newest end (the old code refreshed its age in place).
    const slot = signature.toLowerCase();
    this.slots.delete(slot);
    this.ages.delete(slot);
    this.slots.add(slot);
    this.ages.set(slot, now);
    const past = Math.min(wall, sim) - KEEP_US;
    for (const [old, takenAt] of this.ages) {
      if (takenAt >= past) break;
      this.ages.delete(old);
      this.slots.delete(old);
    }
  }
  adopt(signature: string): void {
    this.slots.add(signature.toLowerCase());
  }
  forget(signature: string): void {
    this.slots.delete(signature.toLowerCase());
    this.ages.delete(signature.toLowerCase());
  }
  clear(): void {
    this.slots.clear();
    this.ages.clear();
  }
}

const hex = (n: number): string => n.toString(16).padStart(8, '0').repeat(16);
/** The signature in a letter case picked by `mask`. */
const spell = (s: string, mask: number): string => [...s].map((c, i) => ((mask >> i % 31) & 1 ? c.toUpperCase() : c)).join('');

describe('replay slots: one slot per signature whatever its letter case', () => {
  it('a signature taken in lowercase is found in upper or mixed case, and the reverse', () => {
    const slots = new ReplaySlots();
    const sig = hex(0xabcdef12);
    slots.take(sig, 1e15, 1e15);
    expect(slots.has(sig.toUpperCase())).toBe(true);
    expect(slots.has(spell(sig, 0x5555_5555))).toBe(true);
    const upper = hex(0x1234abcd).toUpperCase();
    slots.take(upper, 1e15, 1e15);
    expect(slots.has(upper.toLowerCase())).toBe(true);
    slots.take(upper.toLowerCase(), 1e15, 1e15);
    expect(slots.size).toBe(2);
    expect(slots.slots()).toEqual([sig, upper.toLowerCase()]);
  });

  it('signatures that differ in one character, or only past the hashed characters, are distinct slots', () => {
    const slots = new ReplaySlots();
    const a = 'a'.repeat(128);
    slots.take(a, 1e15, 1e15);
    for (let i = 0; i < 128; i++) expect(slots.has(a.slice(0, i) + 'b' + a.slice(i + 1))).toBe(false);
    expect(slots.has(a.slice(1))).toBe(false);
    // Same first and last 16 characters: the same hash, told apart by the full comparison.
    const b = 'a'.repeat(16) + 'c'.repeat(96) + 'a'.repeat(16);
    expect(slots.has(b)).toBe(false);
    slots.take(b, 1e15, 1e15);
    expect(slots.has(a) && slots.has(b)).toBe(true);
    expect(slots.size).toBe(2);
  });

  it('non-hex characters are compared exactly: only ASCII letters fold', () => {
    const slots = new ReplaySlots();
    slots.take('0x@' + 'a'.repeat(20), 1, 1);
    expect(slots.has('0x`' + 'a'.repeat(20))).toBe(false);
    expect(slots.has('0X@' + 'A'.repeat(20))).toBe(true);
  });
});

describe('replay slots: dropped only once the timestamp window alone refuses their requests', () => {
  it('a slot taken at the later clock stays until the earlier clock is KEEP_US past it', () => {
    const slots = new ReplaySlots();
    const t = 1_800_000_000_000_000;
    slots.take(hex(1), t, t - 5_000_000);
    slots.take(hex(2), t + KEEP_US, t + KEEP_US);
    expect(slots.has(hex(1))).toBe(true);
    slots.take(hex(3), t + KEEP_US + 1, t + KEEP_US + 1);
    expect(slots.has(hex(1))).toBe(false);
    expect(slots.size).toBe(2);
    // A wall clock that stands still keeps every slot.
    slots.take(hex(4), t + KEEP_US + 1, t + 10 * KEEP_US);
    expect(slots.size).toBe(3);
  });

  it('holds a million slots across ring growth and drops, each found while kept', () => {
    const slots = new ReplaySlots();
    const t = 1_800_000_000_000_000;
    const step = KEEP_US / 200_000;
    for (let i = 0; i < 1_000_000; i++) {
      slots.take(hex(i), t + i * step, t + i * step);
      if (i % 99_991 === 0) expect(slots.has(hex(i - 199_999 < 0 ? 0 : i - 199_999))).toBe(true);
    }
    expect(slots.size).toBe(200_001);
    expect(slots.has(hex(999_999 - 200_000))).toBe(true);
    expect(slots.has(hex(999_999 - 200_001))).toBe(false);
  });

  it('gives the memory of a burst back once its slots are dropped', () => {
    const slots = new ReplaySlots();
    const t = 1_800_000_000_000_000;
    for (let i = 0; i < 100_000; i++) slots.take(hex(i), t, t);
    expect(slots.capacity).toBeGreaterThanOrEqual(100_000);
    for (let i = 0; i < 20; i++) slots.take(hex(100_000 + i), t + KEEP_US + 1 + i, t + KEEP_US + 1 + i);
    expect(slots.size).toBe(20);
    expect(slots.capacity).toBeLessThanOrEqual(1024);
    for (let i = 0; i < 20; i++) expect(slots.has(hex(100_000 + i))).toBe(true);
  });
});

type Op =
  | { kind: 'take'; n: number; mask: number; wall: number; sim: number }
  | { kind: 'has'; n: number; mask: number }
  | { kind: 'adopt'; n: number }
  | { kind: 'forget'; n: number; mask: number }
  | { kind: 'clear' }
  | { kind: 'reload' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('take' as const), n: fc.nat(300), mask: fc.nat(), wall: fc.nat(40), sim: fc.nat(40) }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('has' as const), n: fc.nat(300), mask: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('adopt' as const), n: fc.nat(300) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('forget' as const), n: fc.nat(300), mask: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reload' as const }) },
);

describe('replay slots: the same slots as the Set and age Map they replaced, after any sequence', () => {
  it('takes, look-ups, adoptions, old-journal drops, clears and image round trips agree with the reference', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        let slots = new ReplaySlots();
        const model = new Reference();
        // Clocks move forward by 0-40 s a take (the window is KEEP_US = 120 s), each on its own.
        let wall = 1_800_000_000_000_000;
        let sim = wall;
        for (const o of ops) {
          switch (o.kind) {
            case 'take':
              wall += o.wall * 1_000_000;
              sim += o.sim * 1_000_000;
              slots.take(spell(hex(o.n), o.mask), wall, sim);
              model.take(spell(hex(o.n), o.mask), wall, sim);
              break;
            case 'has':
              expect(slots.has(spell(hex(o.n), o.mask))).toBe(model.has(hex(o.n)));
              break;
            case 'adopt':
              slots.adopt(hex(o.n));
              model.adopt(hex(o.n));
              break;
            case 'forget':
              slots.forget(spell(hex(o.n), o.mask));
              model.forget(hex(o.n));
              break;
            case 'clear':
              slots.clear();
              model.clear();
              break;
            case 'reload': {
              const copy = new ReplaySlots();
              copy.load(structuredClone(slots.image()));
              slots = copy;
              break;
            }
          }
          expect(slots.size).toBe(model.slots.size);
        }
        expect(slots.slots()).toEqual([...model.slots]);
        for (let n = 0; n <= 300; n++) expect(slots.has(hex(n).toUpperCase())).toBe(model.has(hex(n)));
      }),
      { numRuns: 300 },
    );
  });

  it('a journal of takes and clears replayed into empty slots gives the same slots and ages', () => {
    const live = new ReplaySlots();
    const records: unknown[][] = [];
    const journal: ReplayJournal = { take: (...args) => records.push(['take', ...args]), clear: () => records.push(['clear']) };
    live.journal = journal;
    let t = 1_800_000_000_000_000;
    for (let i = 0; i < 5_000; i++) {
      t += 37_000;
      live.take(spell(hex(i), i), t, t - (i % 7) * 1_000_000);
      if (i === 1_000) live.clear();
    }
    const replayed = new ReplaySlots();
    for (const [kind, signature, wallUs, simUs] of records) {
      if (kind === 'clear') replayed.clear();
      else replayed.take(signature as string, wallUs as number, simUs as number);
    }
    expect(replayed.image()).toEqual(live.image());
  });

  it('slots of an image without ages (the Set form) are aged at the next take', () => {
    const slots = new ReplaySlots();
    slots.load(new Set([hex(1), hex(2)]));
    expect(slots.has(hex(2).toUpperCase())).toBe(true);
    const t = 1_800_000_000_000_000;
    slots.take(hex(3), t, t);
    expect([...slots.image().takenAt]).toEqual([t, t, t]);
    slots.take(hex(4), t + KEEP_US + 1, t + KEEP_US + 1);
    expect(slots.slots()).toEqual([hex(4)]);
  });
});
