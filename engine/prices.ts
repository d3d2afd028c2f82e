/**
 * Oracle and mark prices, and regular trading hours.
 *
 * Mark price (docs/decisions.md): on every oracle update the basis (book mid − oracle) is folded
 * into an exponential moving average with time constant `markBasisTauUs` of engine time; the
 * mark is the median of the oracle, the oracle plus that average basis, and the book mid. With
 * a one-sided or empty book the mark is the oracle price; an oracle of 0 (unavailable) makes the
 * mark 0 too — never a fallback to another price. The mark is rounded to whole ticks.
 *
 * Regular trading hours are read in the market's own time zone through Intl (a pure function of
 * the command's time); a market with hours is outside them on weekends and outside the window.
 */
import { bestPrice, type Book } from './book.ts';
import type { MarketDef } from './types.ts';

export interface PriceState {
  book: Book;
  oraclePrice: number;
  markPrice: number;
  /** EMA of (mid − oracle) in ticks, and when it was last updated (µs; -1: never). */
  basisEma: number;
  basisAt: number;
}

export function bookMid(book: Book): number {
  const bid = bestPrice(book.bids);
  const ask = bestPrice(book.asks);
  // 0: an empty side (a price is at least one tick).
  if (bid === 0 || ask === 0) return 0;
  return (bid + ask) / 2;
}

function median3(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}

/** Takes a new oracle price at `time` and recomputes the mark. */
export function updateMark(ps: PriceState, oracle: number, time: number, tauUs: number): void {
  ps.oraclePrice = oracle;
  if (oracle <= 0) {
    ps.markPrice = 0;
    return;
  }
  const mid = bookMid(ps.book);
  if (mid <= 0) {
    ps.markPrice = oracle;
    return;
  }
  const sample = mid - oracle;
  if (ps.basisAt < 0) ps.basisEma = sample;
  else ps.basisEma += (sample - ps.basisEma) * (1 - Math.exp(-(time - ps.basisAt) / tauUs));
  ps.basisAt = time;
  const mark = Math.round(median3(oracle, oracle + ps.basisEma, mid));
  ps.markPrice = mark > 0 ? mark : oracle;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

/** True when `timeUs` falls outside the market's regular trading hours (false for 24/7). */
export function isOutsideRth(hours: MarketDef['regularTradingHours'], timeUs: number): boolean {
  if (hours === null) return false;
  let format = formatters.get(hours.timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: hours.timezone, hourCycle: 'h23', weekday: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(hours.timezone, format);
  }
  const parts = format.formatToParts(Math.floor(timeUs / 1000));
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '0';
  const weekday = WEEKDAYS[get('weekday')] ?? 0;
  const second = Number(get('hour')) * 3600 + Number(get('minute')) * 60 + Number(get('second'));
  if (weekday === 0 || weekday === 6) return true;
  const { startSecondsOfDay: start, endSecondsOfDay: end } = hours;
  const inside = start <= end ? second >= start && second < end : second >= start || second < end;
  return !inside;
}
