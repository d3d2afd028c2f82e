/**
 * A reader thread of the JSONL worker route (jsonl-pipeline.ts): reads and scans its share of
 * the file into binary records (binary-format.ts layout) in chunks, which it transfers to the
 * replaying thread; that thread decodes them as it decodes a binary file.
 *
 * Contract: the file is cut into blocks of `blockBytes`; a thread takes blocks `first`,
 * first + threads, … and each block's lines are those that start in it
 * (line-reader.ts). Lines the byte scanner (line-scanner.ts) recognizes become records of
 * their market's index in `markets`, those of other markets are dropped, and every other line
 * goes over as a RAW_LINE_RECORD (its line number within the block, and its bytes) in its
 * place in the sequence, for the replaying thread to JSON.parse exactly as the in-thread
 * reader does. Records before `from` are dropped; the chunk holding the first record at or
 * after `to` is the last. Messages on `port`, in order: per block, its chunks `{buffer,
 * length}` (`length` float64 words of `buffer`) then `{lines}` (how many start in it); then
 * `{end: true}` or `{error}`. Each message bumps `control[PRODUCED]`. At most DEPTH chunks are
 * unconsumed: the thread waits on `control[CONSUMED]`, and stops when `control[CLOSED]` is
 * set. Buffers the reader is done with come back on `returns`.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { RAW_LINE_RECORD } from './binary-format.ts';
import { LineReader } from './line-reader.ts';
import { LineScanner, OTHER_MARKET, UNRECOGNIZED, type ScanMarket } from './line-scanner.ts';

export interface WorkerData {
  path: string;
  size: number;
  blockBytes: number;
  /** This thread's first block; it reads every `threads`th from there. */
  first: number;
  threads: number;
  markets: (ScanMarket & { name: string })[];
  from: number;
  to: number;
  port: MessagePort;
  returns: MessagePort;
  control: Int32Array;
}

export type FromWorker = { buffer: ArrayBuffer; length: number } | { lines: number } | { end: true } | { error: string };

export const PRODUCED = 0;
export const CONSUMED = 1;
export const CLOSED = 2;
/** Float64 words per chunk (2 MB, a block's records; a longer record gets a chunk of its own size). */
export const CHUNK = 256 * 1024;
/** Chunks in flight: enough to ride out a stall of either thread, few enough to stay small. */
const DEPTH = 4;

/** Posts a message and wakes the reader. */
export function send(data: Pick<WorkerData, 'port' | 'control'>, message: FromWorker, transfer: ArrayBuffer[] = []): void {
  data.port.postMessage(message, transfer);
  Atomics.add(data.control, PRODUCED, 1);
  Atomics.notify(data.control, PRODUCED);
}

export function run(data: WorkerData): void {
  const { control, from, to } = data;
  const scanner = new LineScanner(new Map(data.markets.map((m) => [m.name, m])));
  let out = new Float64Array(CHUNK);
  let bytes = new Uint8Array(out.buffer);
  let at = 0;
  /** Sends what the chunk holds and takes a fresh one of at least `words`; false when the reader closed. */
  const flush = (words: number): boolean => {
    if (at > 0) {
      send(data, { buffer: out.buffer as ArrayBuffer, length: at }, [out.buffer as ArrayBuffer]);
      at = 0;
      if (!room()) return false;
      const back = receiveMessageOnPort(data.returns)?.message as ArrayBuffer | undefined;
      out = back !== undefined && back.byteLength >= words * 8 ? new Float64Array(back) : new Float64Array(Math.max(CHUNK, words));
    } else {
      out = new Float64Array(Math.max(CHUNK, words));
    }
    bytes = new Uint8Array(out.buffer);
    return true;
  };
  /** Waits until fewer than DEPTH messages are unconsumed; false when the reader closed. */
  const room = (): boolean => {
    for (;;) {
      const consumed = Atomics.load(control, CONSUMED);
      if (Atomics.load(control, CLOSED) === 1) return false;
      if (Atomics.load(control, PRODUCED) - consumed < DEPTH) return true;
      Atomics.wait(control, CONSUMED, consumed);
    }
  };
  let buffer: Buffer | undefined;
  try {
    for (let block = data.first; block * data.blockBytes < data.size; block += data.threads) {
      const lines = new LineReader(data.path, block * data.blockBytes, (block + 1) * data.blockBytes, buffer);
      try {
        while (lines.next()) {
          const start = lines.start;
          const stop = lines.stop;
          if (stop === start) continue;
          const type = scanner.read(lines.buffer, start, stop);
          if (type === OTHER_MARKET) continue;
          if (type === UNRECOGNIZED) {
            const length = stop - start;
            const words = 3 + Math.ceil(length / 8);
            if (at + words > out.length && !flush(words)) return;
            out[at] = RAW_LINE_RECORD;
            out[at + 1] = lines.lineNo;
            out[at + 2] = length;
            bytes.set(lines.buffer.subarray(start, stop), (at + 3) * 8);
            at += words;
            continue;
          }
          const ts = scanner.ts;
          if (ts < from) continue;
          const words = scanner.recordLength();
          if (at + words > out.length && !flush(words)) return;
          at = scanner.writeRecord(out, at);
          if (ts >= to) {
            if (flush(0)) send(data, { end: true });
            return;
          }
        }
      } finally {
        lines.close();
        buffer = lines.buffer;
      }
      if (at > 0 && !flush(0)) return;
      send(data, { lines: lines.lineNo });
      if (!room()) return;
    }
    send(data, { end: true });
  } catch (err) {
    send(data, { error: err instanceof Error ? err.message : String(err) });
  }
}
