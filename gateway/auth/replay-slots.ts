/**
 * The replay slots' structure (gateway/auth/replay.ts states the contract): an indexed ring, no
 * Set or Map of strings, nothing allocated per write.
 */
import { LIMITS } from '../../engine/spec.ts';

/**
 * How long a slot is kept past the later of the two clocks at the time it was taken (µs). A
 * signed request is accepted only within `timestampDriftMs` of the wall clock or of the
 * simulated clock (auth/timestamp.ts), so its timestamp is at most that far ahead of the later
 * clock when it is accepted; once the earlier of the two clocks (both only move forward) is
 * more than that far past the timestamp, the timestamp check refuses the request whatever the
 * slot says. Twice the window covers both sides, so a dropped slot can never be accepted again.
 */
const KEEP_US = 2 * LIMITS.timestampDriftMs * 1000;

/** What persistence journals: each take with its clocks (replayed as it ran), and each clear. */
export interface ReplayJournal {
  take(signature: string, wallUs: number, simUs: number): void;
  clear(): void;
}

/**
 * The slots in a state image, oldest first: each slot's lowercase hex and when it was taken
 * (µs; NaN for a slot whose age is not known, see `ReplaySlots.adopt`).
 */
export interface ReplayImage {
  slots: string[];
  takenAt: Float64Array;
}

/** ASCII upper-case letters to lower case, anything else as it is. */
function lower(c: number): number {
  return c >= 65 && c <= 90 ? c | 32 : c;
}

/** The same slot: the same text up to the letter case of ASCII letters. */
function sameSlot(a: string, b: string): boolean {
  if (a === b) return true;
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y && lower(x) !== lower(y)) return false;
  }
  return true;
}

/**
 * A case-blind hash of the slot's first and last 16 characters (all of a short one): R's and
 * S's bytes of an Ed25519 signature, so a signer that reuses R (legal) does not collide.
 * Seeded per process, so collisions cannot be prepared offline; a collision only costs a probe.
 */
function slotHash(s: string, seed: number): number {
  const n = s.length;
  let h = seed ^ n;
  if (n <= 32) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ lower(s.charCodeAt(i)), 0x01000193);
  } else {
    for (let i = 0; i < 16; i++) h = Math.imul(h ^ lower(s.charCodeAt(i)), 0x01000193);
    for (let i = n - 16; i < n; i++) h = Math.imul(h ^ lower(s.charCodeAt(i)), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const FIRST_CAPACITY = 1024;

/**
 * The replay slots: a ring of signatures in the order they were taken (ages only grow while the
 * clocks move forward, so the oldest slots are at the head and dropping them is a walk from
 * there), indexed by an open-addressing table of ring positions keyed by a case-blind hash of the
 * signature, compared in full (case-blind) on a hit. A slot is kept as the string it arrived as:
 * no lowercase copy per write; images and the state hash see the lowercase spelling.
 *
 * `take` drops every slot taken more than KEEP_US before the earlier clock, so the ring holds
 * about two minutes of signed writes. A slot whose age is not known (from an image or a journal
 * written before slots had ages) is aged at the next take, from that take's clocks, as before.
 */
export class ReplaySlots {
  /** Ring: the signature at each position (undefined: a slot removed out of order). */
  private texts: (string | undefined)[] = new Array<string | undefined>(FIRST_CAPACITY).fill(undefined);
  private hashes = new Int32Array(FIRST_CAPACITY);
  private ages = new Float64Array(FIRST_CAPACITY);
  /**
   * Pairs (ring position + 1, 0 for free; the slot's hash), twice as many pairs as the ring has
   * positions, linear probing: a probe compares hashes without reading the ring.
   */
  private table = new Int32Array(4 * FIRST_CAPACITY);
  private head = 0;
  /** Ring positions in use from the head, removed ones included. */
  private used = 0;
  private live = 0;
  private unaged = 0;
  private readonly seed = (Math.random() * 0x100000000) | 0;
  /** The last signature looked up and its hash (a write checks, then takes, the same string). */
  private lastText = '';
  private lastHash = 0;
  /** Set by persistence (--db): every take and clear is journaled. */
  journal: ReplayJournal | undefined;

  /** Slots held. */
  get size(): number {
    return this.live;
  }

  /** Ring positions allocated (what the memory follows): grows when full, halves once 7/8 are free. */
  get capacity(): number {
    return this.texts.length;
  }

  /** True when the signature, in any letter case, holds a slot. */
  has(signature: string): boolean {
    return this.find(signature, this.hashOf(signature)) >= 0;
  }

  /**
   * Takes the signature's slot at the later of the two clocks (µs), then drops the slots taken
   * more than KEEP_US before the earlier one, oldest first, stopping at the first younger slot.
   * A slot already held is taken again: it moves to the newest end with this take's age, so it
   * lives at least as long as it would have (callers check `has` first; this is the safe answer
   * if one does not).
   */
  take(signature: string, wallUs: number, simUs: number): void {
    this.journal?.take(signature, wallUs, simUs);
    const now = wallUs > simUs ? wallUs : simUs;
    if (this.unaged > 0) this.ageUnaged(now);
    const h = this.hashOf(signature);
    const held = this.find(signature, h);
    if (held >= 0) this.remove(held);
    this.dropBefore((wallUs < simUs ? wallUs : simUs) - KEEP_US);
    this.push(signature, h, now);
  }

  /** Holds a slot whose age is not known (an older image or journal); aged at the next take. */
  adopt(signature: string): void {
    const h = this.hashOf(signature);
    if (this.find(signature, h) >= 0) return;
    this.push(signature, h, NaN);
    this.unaged++;
  }

  /** Removes one slot (an older journal's record of a drop). */
  forget(signature: string): void {
    const p = this.find(signature, this.hashOf(signature));
    if (p < 0) return;
    if (Number.isNaN(this.ages[p]!)) this.unaged--;
    this.remove(p);
  }

  clear(): void {
    this.journal?.clear();
    const capacity = this.texts.length;
    if (this.used * 8 < capacity) {
      for (let k = 0, p = this.head; k < this.used; k++, p = (p + 1) & (capacity - 1)) {
        if (this.texts[p] !== undefined) this.unindex(p);
        this.texts[p] = undefined;
      }
    } else {
      this.table.fill(0);
      this.texts.fill(undefined);
    }
    this.head = 0;
    this.used = 0;
    this.live = 0;
    this.unaged = 0;
  }

  /** The slots, oldest first, in lowercase (what the state hash digests: the set's old form). */
  slots(): string[] {
    const out: string[] = [];
    this.forEach((text) => out.push(text.toLowerCase()));
    return out;
  }

  /** A copy for a state image. */
  image(): ReplayImage {
    const slots: string[] = [];
    const takenAt: number[] = [];
    this.forEach((text, age) => {
      slots.push(text.toLowerCase());
      takenAt.push(age);
    });
    return { slots, takenAt: Float64Array.from(takenAt) };
  }

  /**
   * Replaces the slots with an image's: this version's `ReplayImage`, or the Set of lowercase
   * slots without ages that images held before (adopted, aged at the next take).
   */
  load(image: ReplayImage | Set<string>): void {
    const journal = this.journal;
    this.journal = undefined;
    try {
      this.clear();
    } finally {
      this.journal = journal;
    }
    if (image instanceof Set) {
      for (const slot of image) this.adopt(slot);
      return;
    }
    for (let i = 0; i < image.slots.length; i++) {
      const age = image.takenAt[i]!;
      const slot = image.slots[i]!;
      const h = this.hashOf(slot);
      if (this.find(slot, h) >= 0) continue;
      this.push(slot, h, age);
      if (Number.isNaN(age)) this.unaged++;
    }
  }

  private forEach(visit: (text: string, age: number) => void): void {
    const mask = this.texts.length - 1;
    for (let k = 0, p = this.head; k < this.used; k++, p = (p + 1) & mask) {
      const text = this.texts[p];
      if (text !== undefined) visit(text, this.ages[p]!);
    }
  }

  private hashOf(signature: string): number {
    if (signature === this.lastText) return this.lastHash;
    const h = slotHash(signature, this.seed);
    this.lastText = signature;
    this.lastHash = h;
    return h;
  }

  /** The slot's ring position, or -1. */
  private find(signature: string, h: number): number {
    const table = this.table;
    const mask = table.length - 2;
    for (let i = (h << 1) & mask; ; i = (i + 2) & mask) {
      const entry = table[i]!;
      if (entry === 0) return -1;
      if (table[i + 1] === h && sameSlot(this.texts[entry - 1]!, signature)) return entry - 1;
    }
  }

  private push(signature: string, h: number, age: number): void {
    if (this.used === this.texts.length) this.resize();
    const p = (this.head + this.used) & (this.texts.length - 1);
    this.texts[p] = signature;
    this.hashes[p] = h;
    this.ages[p] = age;
    this.used++;
    this.live++;
    this.index(p);
  }

  private index(p: number): void {
    const table = this.table;
    const mask = table.length - 2;
    const h = this.hashes[p]!;
    let i = (h << 1) & mask;
    while (table[i] !== 0) i = (i + 2) & mask;
    table[i] = p + 1;
    table[i + 1] = h;
  }

  /** Removes the slot at ring position p out of order (its position stays used until the head passes it). */
  private remove(p: number): void {
    this.unindex(p);
    this.texts[p] = undefined;
    this.live--;
  }

  /** Takes ring position p out of the table (backward-shift deletion: no tombstones). */
  private unindex(p: number): void {
    const table = this.table;
    const mask = table.length - 2;
    let i = (this.hashes[p]! << 1) & mask;
    while (table[i] !== p + 1) i = (i + 2) & mask;
    for (let j = (i + 2) & mask; table[j] !== 0; j = (j + 2) & mask) {
      const home = (table[j + 1]! << 1) & mask;
      // The pair at j may move to the hole at i unless its home lies cyclically in (i, j].
      const stays = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!stays) {
        table[i] = table[j]!;
        table[i + 1] = table[j + 1]!;
        i = j;
      }
    }
    table[i] = 0;
  }

  private dropBefore(past: number): void {
    const mask = this.texts.length - 1;
    while (this.used > 0) {
      const p = this.head;
      if (this.texts[p] !== undefined) {
        // A NaN age (unaged) compares false: the walk stops there, as at a young slot.
        if (!(this.ages[p]! < past)) break;
        this.remove(p);
      }
      this.head = (p + 1) & mask;
      this.used--;
    }
    // After a burst the ring gives its memory back: half the positions once 7/8 of them are free.
    if (this.texts.length > FIRST_CAPACITY && this.live * 8 < this.texts.length) this.relayout(this.texts.length >> 1);
  }

  private ageUnaged(now: number): void {
    const mask = this.texts.length - 1;
    for (let k = 0, p = this.head; k < this.used; k++, p = (p + 1) & mask) {
      if (this.texts[p] !== undefined && Number.isNaN(this.ages[p]!)) this.ages[p] = now;
    }
    this.unaged = 0;
  }

  /** A full ring: twice the capacity (the same when half of it is removed slots). */
  private resize(): void {
    this.relayout(this.live * 2 <= this.texts.length ? this.texts.length : this.texts.length * 2);
  }

  /** The live slots laid out from position 0 of a ring of `capacity` positions, indexed anew. */
  private relayout(capacity: number): void {
    const texts = new Array<string | undefined>(capacity).fill(undefined);
    const hashes = new Int32Array(capacity);
    const ages = new Float64Array(capacity);
    let n = 0;
    const mask = this.texts.length - 1;
    for (let k = 0, p = this.head; k < this.used; k++, p = (p + 1) & mask) {
      const text = this.texts[p];
      if (text === undefined) continue;
      texts[n] = text;
      hashes[n] = this.hashes[p]!;
      ages[n] = this.ages[p]!;
      n++;
    }
    this.texts = texts;
    this.hashes = hashes;
    this.ages = ages;
    this.table = new Int32Array(4 * capacity);
    this.head = 0;
    this.used = n;
    for (let p = 0; p < n; p++) this.index(p);
  }
}
