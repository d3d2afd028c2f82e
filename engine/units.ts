/**
 * Exact conversion between the venue's decimal strings and the engine's integers.
 *
 * Contract: a decimal string converts to an integer count of a unit (tick, step, quote quantum)
 * only when it is an exact multiple; otherwise the caller gets `null` and rejects the request.
 * Parsing goes through big.js (the boundary), formatting back is integer arithmetic on a
 * precomputed unit (mantissa × 10^-scale), which is the hot path of every outgoing event.
 */
import Big from 'big.js';
import { plainRecord } from './plain-record.ts';

/** A positive decimal unit such as "0.1" or "0.00001", as mantissa × 10^-scale. */
export interface Unit {
  readonly text: string;
  readonly big: Big;
  readonly mantissa: number;
  readonly scale: number;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

const buildUnit = plainRecord<Unit>();

/** Parses a unit string; throws on anything that is not a positive decimal (configuration error). */
export function unitOf(text: string): Unit {
  if (!DECIMAL.test(text)) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  const big = new Big(text);
  if (big.lte(0)) throw new Error(`unit must be positive: ${text}`);
  const [, frac = ''] = big.toFixed().split('.');
  const scale = frac.length;
  const mantissa = Number(big.times(new Big(10).pow(scale)).toFixed(0));
  if (!Number.isSafeInteger(mantissa)) throw new Error(`unit too fine: ${text}`);
  return buildUnit({ text, big, mantissa, scale });
}

/** Parses a decimal string; null when it is not one. */
export function parseDecimal(text: string): Big | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64 || !DECIMAL.test(text)) return null;
  // big.js refuses a leading '+' that the pattern (and the venue) accept.
  return new Big(text.charCodeAt(0) === 43 ? text.slice(1) : text);
}

/**
 * The integer count of `unit` in `text`, or null when `text` is not a decimal, not an exact
 * multiple, or beyond 2^53.
 */
export function toUnits(text: string, unit: Unit): number | null {
  const plain = plainToUnits(text, unit);
  if (plain !== undefined) return plain;
  const value = parseDecimal(text);
  return value === null ? null : bigToUnits(value, unit);
}

/**
 * The same answer as `bigToUnits` for unsigned decimals of at most 15 significant digits at the
 * unit's scale, in integer double arithmetic: every order carries a price and a size, and the
 * two big.js divisions cost about 5 µs per order on the gateway's path. `undefined` hands the
 * string (a sign, more digits) to big.js.
 */
function plainToUnits(text: string, unit: Unit): number | null | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64 || !DECIMAL.test(text)) return null;
  const first = text.charCodeAt(0);
  if (first === 43 || first === 45) return undefined;
  const dot = text.indexOf('.');
  let digits = dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1);
  let shift = unit.scale - (dot < 0 ? 0 : text.length - dot - 1);
  if (shift < 0) {
    // Every multiple of the unit is a multiple of 10^-scale: finer digits must be zeros.
    for (let i = digits.length + shift; i < digits.length; i++) if (digits.charCodeAt(i) !== 48) return null;
    digits = digits.slice(0, digits.length + shift);
    shift = 0;
  }
  if (digits.length + shift > 15) return undefined;
  const scaled = Number(digits) * 10 ** shift;
  // A remainder, not a float quotient: a quotient can round a near-multiple to an integer.
  return scaled % unit.mantissa === 0 ? scaled / unit.mantissa : null;
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
