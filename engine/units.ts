/**
 * Exact conversion between the venue's decimal strings and the engine's integers.
 *
 * Contract: a decimal string converts to an integer count of a unit (tick, step, quote quantum)
 * only when it is an exact multiple; otherwise the caller gets `null` and rejects the request.
 * Parsing goes through big.js (the boundary), formatting back is integer arithmetic on a
 * precomputed unit (mantissa × 10^-scale), which is the hot path of every outgoing event.
 */
import Big from 'big.js';

/** A positive decimal unit such as "0.1" or "0.00001", as mantissa × 10^-scale. */
export interface Unit {
  readonly text: string;
  readonly big: Big;
  readonly mantissa: number;
  readonly scale: number;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** Parses a unit string; throws on anything that is not a positive decimal (configuration error). */
export function unitOf(text: string): Unit {
  if (!DECIMAL.test(text)) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  const big = new Big(text);
  if (big.lte(0)) throw new Error(`unit must be positive: ${text}`);
  const [, frac = ''] = big.toFixed().split('.');
  const scale = frac.length;
  const mantissa = Number(big.times(new Big(10).pow(scale)).toFixed(0));
  if (!Number.isSafeInteger(mantissa)) throw new Error(`unit too fine: ${text}`);
  return { text, big, mantissa, scale };
}

/** Parses a decimal string; null when it is not one. */
export function parseDecimal(text: string): Big | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64 || !DECIMAL.test(text)) return null;
  return new Big(text);
}

/**
 * The integer count of `unit` in `text`, or null when `text` is not a decimal, not an exact
 * multiple, or beyond 2^53.
 */
export function toUnits(text: string, unit: Unit): number | null {
  const value = parseDecimal(text);
  if (value === null) return null;
  return bigToUnits(value, unit);
}

export function bigToUnits(value: Big, unit: Unit): number | null {
  const count = value.div(unit.big);
  if (!count.eq(count.round(0, Big.roundDown))) return null;
  const n = Number(count.toFixed(0));
  return Number.isSafeInteger(n) ? n : null;
}

const POW10: string[] = ['', '0', '00', '000', '0000', '00000', '000000', '0000000', '00000000', '000000000'];

function zeros(n: number): string {
  return n < POW10.length ? POW10[n]! : '0'.repeat(n);
}

/**
 * Formats `count` units as a decimal string with exactly the unit's scale of decimals
 * ("100000.0" for 1,000,000 ticks of 0.1). Scale 0 prints an integer.
 */
export function formatUnits(count: number, unit: Unit): string {
  const raw = count * unit.mantissa;
  if (!Number.isSafeInteger(raw)) return formatBig(BigInt(count) * BigInt(unit.mantissa), unit.scale);
  if (unit.scale === 0) return String(raw);
  const negative = raw < 0;
  let digits = String(negative ? -raw : raw);
  if (digits.length <= unit.scale) digits = zeros(unit.scale - digits.length + 1) + digits;
  const cut = digits.length - unit.scale;
  return (negative ? '-' : '') + digits.slice(0, cut) + '.' + digits.slice(cut);
}

/** Formats an integer scaled by 10^-scale. */
export function formatBig(value: bigint, scale: number): string {
  if (scale === 0) return value.toString();
  const negative = value < 0n;
  let digits = (negative ? -value : value).toString();
  if (digits.length <= scale) digits = zeros(scale - digits.length + 1) + digits;
  const cut = digits.length - scale;
  return (negative ? '-' : '') + digits.slice(0, cut) + '.' + digits.slice(cut);
}

/** Drops trailing zeros after the point but keeps one decimal ("1.500" -> "1.5", "2.000" -> "2.0"). */
export function trimDecimal(text: string): string {
  const dot = text.indexOf('.');
  if (dot < 0) return text;
  let end = text.length;
  while (end > dot + 2 && text.charCodeAt(end - 1) === 48) end--;
  return text.slice(0, end);
}
