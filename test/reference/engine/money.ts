/**
 * Money on the hot path: integer arithmetic in doubles, only where it is provably exact.
 *
 * Contract: money is bigint quote quantums (docs/decisions.md, "Money"), and no float ever
 * rounds it. A fill's value, fee and released cost basis are products and quotients of
 * integers that, at realistic sizes, stay far below 2^52; in that range a double holds every
 * integer exactly, so these functions return the very integer the bigint formula gives. Each
 * returns NaN as soon as an operand or a result could leave the range, and the caller then
 * takes the bigint path. NaN propagates: a chain of these calls is exact or NaN as a whole.
 *
 * Why: every bigint operation allocates; a fill did about twenty of them (docs/decisions.md,
 * "Engine throughput").
 */

/** Exclusive bound on magnitudes: below it q·b in `floorDivExact` stays under 2^53. */
const LIMIT = 2 ** 52;

/** `a · b` for integers, or NaN when |a · b| might be 2^52 or more. */
export function mulExact(a: number, b: number): number {
  const p = a * b;
  // Rounding is monotonic: a product of 2^52 or more never rounds below 2^52.
  return p < LIMIT && p > -LIMIT ? p : NaN;
}

/** floor(a / b) for an integer 0 ≤ a < 2^52 and an integer 0 < b < 2^52 (NaN passes through). */
export function floorDivExact(a: number, b: number): number {
  if (!(a >= 0 && a < LIMIT) || !(b > 0 && b < LIMIT)) return NaN;
  // a / b < 2^52 is off by less than 0.5, so the floor is off by at most one; the remainder,
  // exact because q · b < a + b < 2^53, corrects it.
  let q = Math.floor(a / b);
  const r = a - q * b;
  if (r < 0) q--;
  else if (r >= b) q++;
  return q;
}

/** An integer held in a double, or NaN when it is 2^52 or more in magnitude. */
export function exactInteger(n: number): number {
  return n < LIMIT && n > -LIMIT ? n : NaN;
}

/** `value` as an exact double, or NaN when it is 2^52 or more in magnitude. */
export function exactNumber(value: bigint): number {
  const n = Number(value);
  return n < LIMIT && n > -LIMIT ? n : NaN;
}
