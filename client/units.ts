/**
 * Decimal strings to the integers Scheme 1 signs, and back, without floating point.
 *
 * Contract (interface.md Scheme 1 "Field meanings", rule 2): `p` = price / the market's
 * top-level tickSize and `q` = size / stepSize, each exact with no remainder (the tickTiers
 * ladder only restricts which prices the venue accepts; the divisor never changes). Withdraw
 * and transfer amounts are quote quantums, 1e9 per USD (supplement §5). A value that does not
 * divide exactly is refused here with a RangeError: it has no signable form, and the venue would
 * answer 400 Tick anyway.
 */
import Big from 'big.js';

/** Quote quantums per USD. */
export const QUANTUMS_PER_USD = '1000000000';

/**
 * `value / unit` as an exact integer.
 *
 * @example toUnits('3400.05', '0.01') // 340005n
 * @throws RangeError when `value` is not a whole multiple of `unit`, or not a decimal.
 */
export function toUnits(value: string, unit: string, what = 'value'): bigint {
  let amount: Big;
  try {
    amount = new Big(value);
  } catch {
    throw new RangeError(`${what} is not a decimal: ${value}`);
  }
  // Division rounds at Big.DP places; multiplying back is exact and catches any remainder.
  const whole = amount.div(unit).round(0, Big.roundDown);
  if (!whole.times(unit).eq(amount)) throw new RangeError(`${what} ${value} is not a multiple of ${unit}`);
  return BigInt(whole.toFixed(0));
}

/** `units × unit` as a plain decimal string (no exponent). */
export function fromUnits(units: bigint | number | string, unit: string): string {
  return new Big(units.toString()).times(unit).toFixed();
}

/** A USD decimal to quote quantums (exact; at most 9 decimals). */
export function usdToQuantums(usd: string): bigint {
  return toUnits(usd, '0.000000001', 'amount');
}

/** Quote quantums to a USD decimal string. */
export function quantumsToUsd(quantums: bigint | string): string {
  return new Big(quantums.toString()).div(QUANTUMS_PER_USD).toFixed();
}
