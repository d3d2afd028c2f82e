/**
 * Number display: prices with the market's tick decimals, sizes with its step decimals, USD
 * with two. Values arrive as the venue's decimal strings; they are formatted, never computed on,
 * except where a view derives a figure (cumulative sizes, estimates) and says so.
 */

export function decimalsOf(step: string | undefined): number {
  if (step === undefined) return 2;
  const dot = step.indexOf('.');
  return dot < 0 ? 0 : step.length - dot - 1;
}

const formats = new Map<number, Intl.NumberFormat>();

export function fixed(value: string | number | undefined | null, decimals: number): string {
  if (value === undefined || value === null || value === '') return '—';
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return String(value);
  let format = formats.get(decimals);
  if (format === undefined) {
    format = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    formats.set(decimals, format);
  }
  return format.format(n);
}

export const usd = (value: string | number | undefined | null): string => fixed(value, 2);

/** A fraction as a percentage with `decimals` places and a sign. */
export function percent(fraction: string | number | undefined | null, decimals = 2): string {
  if (fraction === undefined || fraction === null || fraction === '') return '—';
  const n = Number(fraction) * 100;
  if (!Number.isFinite(n)) return String(fraction);
  return `${n > 0 ? '+' : ''}${n.toFixed(decimals)}%`;
}

/** µs since the epoch as UTC `HH:MM:SS.mmm` (with the date when `withDate`). */
export function timeUs(us: number | string | undefined, withDate = false): string {
  if (us === undefined) return '—';
  const iso = new Date(Math.floor(Number(us) / 1000)).toISOString();
  return withDate ? `${iso.slice(0, 10)} ${iso.slice(11, 23)}` : iso.slice(11, 23);
}

export function countdown(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

export function shortAddress(address: string | undefined): string {
  return address === undefined ? '—' : `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/** 'pos' / 'neg' / '' for colouring a signed figure. */
export function signClass(value: string | number | undefined): string {
  const n = Number(value);
  return n > 0 ? 'pos' : n < 0 ? 'neg' : '';
}
