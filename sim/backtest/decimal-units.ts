/**
 * Recorded decimal text (a price or a size) to a count of engine units (ticks, quantums),
 * without big.js: the replay's hot path converts two to forty of these per event.
 *
 * Contract: text of the plain form `digits[.digits]` with at most 15 digits in all is read as
 * the exact integer `n` and its decimal count `d` (value = n·10^-d), and the count of the unit
 * (mantissa·10^-scale) is n·10^(scale-d) / mantissa, rounded to the nearest (half up) when the
 * text is off the unit — every intermediate is an integer below 2^53 or a single correctly
 * rounded division, so on-grid text converts exactly. Anything else (a sign, an exponent, more
 * digits, an empty string) takes the float route `round(Number(text)·10^scale / mantissa)`.
 * The byte scanner (line-scanner.ts) accepts exactly the plain form and calls `unitsOf` with
 * the same n and d, so the scanned and the JSON.parse paths give the same integers
 * (docs/decisions.md "Speed: the replay routes").
 */

/** 10^k for k ≤ 22, all exact doubles. */
export const POW10: readonly number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** `10 ** scale`, from POW10 where it holds it: `**` with a variable exponent calls pow, which the per-event conversions felt. */
export function pow10(scale: number): number {
  return POW10[scale] ?? 10 ** scale;
}

/** Most digits a plain decimal may have (10^15 < 2^53). */
export const MAX_DIGITS = 15;

/** The count of a unit (mantissa·10^-scale) in n·10^-d, rounded to the nearest. */
export function unitsOf(n: number, d: number, scale: number, mantissa: number): number {
  if (d <= scale) {
    const q = n * POW10[scale - d]!;
    if (Number.isSafeInteger(q)) return mantissa === 1 ? q : Math.round(q / mantissa);
    return Math.round((n * 10 ** (scale - d)) / mantissa);
  }
  return Math.round(n / (POW10[d - scale]! * mantissa));
}

/** Decimal text to a count of units (see the module contract). */
export function decimalUnits(text: string, scale: number, mantissa: number): number {
  const length = text.length;
  let n = 0;
  let digits = 0;
  let d = -1;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      digits++;
      if (d >= 0) d++;
    } else if (c === 46 && d < 0 && digits > 0) {
      d = 0;
    } else {
      return floatUnits(text, scale, mantissa);
    }
  }
  if (digits === 0 || digits > MAX_DIGITS || d === 0) return floatUnits(text, scale, mantissa);
  return unitsOf(n, d < 0 ? 0 : d, scale, mantissa);
}

/** The float route for unusual text. */
export function floatUnits(text: string, scale: number, mantissa: number): number {
  return Math.round((Number(text) * 10 ** scale) / mantissa);
}
