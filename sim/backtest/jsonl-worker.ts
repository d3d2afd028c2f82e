/**
 * The worker half of the JSONL worker route (jsonl-pipeline.ts): reads and scans the file into
 * binary records (binary-format.ts layout) in chunks, which it transfers to the replaying
 * thread; that thread decodes them as it decodes a binary file.
 *
 * Contract: lines the byte scanner (line-scanner.ts) recognizes become records of their
 * market's index in `markets`, those of other markets are dropped, and every other line goes
 * over as a RAW_LINE_RECORD (its line number and bytes) in its place in the sequence, for the
 * replaying thread to JSON.parse exactly as the in-thread reader does. Records before `from`
 * are dropped; the chunk holding the first record at or after `to` is the last. Messages on
 * `port`, in order: `{buffer, length, bytesRead}` per chunk (`length` float64 words of
 * `buffer`), then `{end: true}` or `{error}`; each one bumps `control[PRODUCED]`. At most
 * DEPTH chunks are unconsumed: the worker waits on `control[CONSUMED]`, and stops when
 * `control[CLOSED]` is set. Buffers the reader is done with come back on `returns`.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { RAW_LINE_RECORD } from './binary-format.ts';
import { LineReader } from './line-reader.ts';
import { LineScanner, OTHER_MARKET, UNRECOGNIZED, type ScanMarket } from './line-scanner.ts';

export interface WorkerData {
  path: string;
  markets: (ScanMarket & { name: string })[];
  from: number;
  to: number;
  port: MessagePort;
  returns: MessagePort;
  control: Int32Array;
}

export type FromWorker = { buffer: ArrayBuffer; length: number; bytesRead: number } | { end: true } | { error: string };

export const PRODUCED = 0;
export const CONSUMED = 1;
export const CLOSED = 2;
/** Float64 words per chunk (1 MB; a longer record gets a chunk of its own size). */
export const CHUNK = 128 * 1024;
/** Chunks in flight: enough to ride out a stall of either thread, few enough to stay small. */
const DEPTH = 4;

/** Posts a message and wakes the reader. */
export function send(data: Pick<WorkerData, 'port' | 'control'>, message: FromWorker, transfer: ArrayBuffer[] = []): void {
  data.port.postMessage(message, transfer);
  Atomics.add(data.control, PRODUCED, 1);
  Atomics.notify(data.control, PRODUCED);
}

export function run(data: WorkerData): void {
  const { control } = data;
  let lines: LineReader;
  try {
    lines = new LineReader(data.path);
  } catch (err) {
    send(data, { error: err instanceof Error ? err.message : String(err) });
    return;
  }
  const scanner = new LineScanner(new Map(data.markets.map((m) => [m.name, m])));
  const { from, to } = data;
  let out = new Float64Array(CHUNK);
  let bytes = new Uint8Array(out.buffer);
  let at = 0;
  /** Sends the chunk and takes a fresh one of at least `words`; false when the reader closed. */
  const flush = (words: number): boolean => {
    if (at > 0) {
      send(data, { buffer: out.buffer as ArrayBuffer, length: at, bytesRead: lines.bytesRead }, [out.buffer as ArrayBuffer]);
      at = 0;
      for (;;) {
        const consumed = Atomics.load(control, CONSUMED);
        if (Atomics.load(control, CLOSED) === 1) return false;
        if (Atomics.load(control, PRODUCED) - consumed < DEPTH) break;
        Atomics.wait(control, CONSUMED, consumed);
      }
      const back = receiveMessageOnPort(data.returns)?.message as ArrayBuffer | undefined;
      out = back !== undefined && back.byteLength >= words * 8 ? new Float64Array(back) : new Float64Array(Math.max(CHUNK, words));
    } else {
      out = new Float64Array(Math.max(CHUNK, words));
    }
    bytes = new Uint8Array(out.buffer);
    return true;
  };
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
      if (ts >= to) break;
    }
    if (at > 0 && !flush(0)) return;
    send(data, { end: true });
  } catch (err) {
    send(data, { error: err instanceof Error ? err.message : String(err) });
  } finally {
    lines.close();
  }
}
