/**
 * Price → level handle for one book side: an open-addressing hash table on integer ticks.
 *
 * Layout: linear probing over a power-of-two table of price keys (Float64Array, NaN = empty)
 * with the level handles in a parallel Int32Array; deletion shifts the following cluster back,
 * so there are no tombstones and probe lengths stay short. The table doubles at 50 % load.
 * A miss reads as -1 (handles are non-negative).
 *
 * Why not a Map: every resting order, cancel and book delta looks a level up by price; the
 * engine benchmark measured Map get/set/delete on numeric keys as one of its larger costs, and a
 * probe into one typed array touches a single cache line (docs/decisions.md).
 */
import { plainRecord } from './plain-record.ts';

export interface PriceIndex {
  keys: Float64Array;
  values: Int32Array;
  mask: number;
  size: number;
}

export const NO_LEVEL = -1;

const buildPriceIndex = plainRecord<PriceIndex>();

export function createPriceIndex(capacity = 64): PriceIndex {
  return buildPriceIndex({ keys: new Float64Array(capacity).fill(NaN), values: new Int32Array(capacity).fill(NO_LEVEL), mask: capacity - 1, size: 0 });
}

function slotOf(price: number, mask: number): number {
  // Fibonacci hashing of the low 32 bits spreads neighbouring ticks over the table.
  return Math.imul(price | 0, 0x9e3779b1) >>> 0 & mask;
}

/** The handle stored for `price`, or NO_LEVEL. */
export function priceGet(index: PriceIndex, price: number): number {
  const keys = index.keys;
  const mask = index.mask;
  for (let i = slotOf(price, mask); ; i = (i + 1) & mask) {
    const key = keys[i]!;
    if (key === price) return index.values[i]!;
    if (key !== key) return NO_LEVEL;
  }
}

export function priceSet(index: PriceIndex, price: number, value: number): void {
  if ((index.size + 1) * 2 > index.keys.length) grow(index);
  const keys = index.keys;
  const mask = index.mask;
  for (let i = slotOf(price, mask); ; i = (i + 1) & mask) {
    const key = keys[i]!;
    if (key === price) {
      index.values[i] = value;
      return;
    }
    if (key !== key) {
      keys[i] = price;
      index.values[i] = value;
      index.size++;
      return;
    }
  }
}

export function priceDelete(index: PriceIndex, price: number): void {
  const keys = index.keys;
  const values = index.values;
  const mask = index.mask;
  let i = slotOf(price, mask);
  for (;;) {
    const key = keys[i]!;
    if (key !== key) return;
    if (key === price) break;
    i = (i + 1) & mask;
  }
  // Backward-shift deletion: move later members of the cluster into the hole when their home
  // slot is not between the hole and their position.
  let hole = i;
  for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
    const key = keys[j]!;
    if (key !== key) break;
    const home = slotOf(key, mask);
    const between = hole <= j ? hole < home && home <= j : hole < home || home <= j;
    if (!between) {
      keys[hole] = key;
      values[hole] = values[j]!;
      hole = j;
    }
  }
  keys[hole] = NaN;
  values[hole] = NO_LEVEL;
  index.size--;
}

function grow(index: PriceIndex): void {
  const oldKeys = index.keys;
  const oldValues = index.values;
  const capacity = oldKeys.length * 2;
  index.keys = new Float64Array(capacity).fill(NaN);
  index.values = new Int32Array(capacity).fill(NO_LEVEL);
  index.mask = capacity - 1;
  index.size = 0;
  for (let i = 0; i < oldKeys.length; i++) {
    const key = oldKeys[i]!;
    if (key === key) priceSet(index, key, oldValues[i]!);
  }
}
