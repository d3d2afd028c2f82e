/**
 * Time windows and newest-first pages: what history reads share (the read-filters of
 * operations/, the history stores, the affiliate lists). A leaf: it imports nothing.
 */

/** Inclusive bounds, µs. */
export interface Window {
  from: number;
  to: number;
}

export interface Page<T> {
  rows: T[];
  /** Entries that matched the filters before the limit was applied. */
  total: number;
}

export function inWindow(time: number, window: Window): boolean {
  return time >= window.from && time <= window.to;
}

/** Newest first: walks `list` (oldest first) backwards, keeping matches, up to `limit` rows. */
export function newestFirst<T>(list: readonly T[], matches: (entry: T) => boolean, limit: number): Page<T> {
  const rows: T[] = [];
  let total = 0;
  for (let i = list.length - 1; i >= 0; i--) {
    const entry = list[i]!;
    if (!matches(entry)) continue;
    total++;
    if (rows.length < limit) rows.push(entry);
  }
  return { rows, total };
}
