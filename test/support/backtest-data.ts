import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MarketDataRecord } from '../../index.ts';

export const T0 = 1_735_689_600_000_000;
export const MS = 1000;

/** A record with its time as ms after T0 and the market defaulting to BTC-USD. */
export type RelativeRecord = MarketDataRecord extends infer R ? (R extends MarketDataRecord ? Omit<R, 'ts' | 'lts' | 'market'> & { at: number; market?: string } : never) : never;

/** Writes records (ts relative to T0 in ms, lts = ts) as a JSONL recording; answers its path. */
export function recording(records: RelativeRecord[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-bt-'));
  const path = join(dir, 'data.jsonl');
  const lines = records.map(({ at, market, ...rest }) => JSON.stringify({ ...rest, ts: T0 + at * MS, lts: T0 + at * MS, market: market ?? 'BTC-USD' }));
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}
