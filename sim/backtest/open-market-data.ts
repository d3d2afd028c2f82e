/**
 * Opens a recording for replay, choosing the reader: the binary format (binary-format.ts) when
 * the file starts with its magic; otherwise JSONL by the parse mode (data-format.ts ParseMode):
 * in `fast` mode, the worker route (jsonl-pipeline.ts) for files of at least WORKER_MIN_BYTES,
 * the in-thread scanner for smaller ones, where the threads' start-up and their extra CPU time
 * eat the gain (docs/decisions.md "Speed: the replay routes").
 */
import { statSync } from 'node:fs';
import type { MarketSpec } from '../../engine/index.ts';
import { BinaryReader, isBinaryFile } from './binary-format.ts';
import { MarketDataReader, type MarketDataSource, type ParseMode } from './data-format.ts';
import { WorkerReader, workerModule } from './jsonl-pipeline.ts';

/** The smallest JSONL file `fast` mode reads with reader threads (≈ 1.9 M events of the bench's recording). */
export const WORKER_MIN_BYTES = 256 * 1024 * 1024;

export function openMarketData(path: string, specs: ReadonlyMap<string, MarketSpec>, from = -Infinity, to = Infinity, mode: ParseMode = 'fast'): MarketDataSource {
  if (isBinaryFile(path)) return new BinaryReader(path, specs, from, to);
  if (mode === 'worker' || (mode === 'fast' && specs.size <= 255 && statSync(path).size >= WORKER_MIN_BYTES && workerModule() !== undefined)) {
    return new WorkerReader(path, specs, from, to);
  }
  return new MarketDataReader(path, specs, from, to, mode);
}
