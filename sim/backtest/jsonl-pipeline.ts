/**
 * The JSONL worker route: a worker thread reads and scans the file (jsonl-worker.ts) while this
 * thread replays, so the two costs of a JSONL replay — byte scanning and the replay loop — run
 * on two cores (docs/decisions.md "Speed: the replay routes").
 *
 * Contract: the same events, in the same order, with the same errors as MarketDataReader in
 * `fast` mode. The worker hands over binary records (binary-format.ts) that this thread
 * decodes as a binary file's (RecordReader), and every line the scanner does not recognize as
 * a RAW_LINE_RECORD, JSON.parsed here with the same `parseLine` and line number. This thread
 * blocks in `Atomics.wait` when the worker is behind, so `next()` stays synchronous. `close()`
 * (at the end of the data, at `to`, or by the backtest when it stops early or fails) tells the
 * worker to stop and terminates it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { MarketSpec } from '../../engine/index.ts';
import { RecordReader, type BinaryEvent } from './binary-format.ts';
import { DataFormatError, MarketDataReader, parseLine } from './data-format.ts';
import { CLOSED, CONSUMED, PRODUCED, type FromWorker, type WorkerData } from './jsonl-worker.ts';

/**
 * The worker's code: jsonl-worker.ts bundled to plain JavaScript with esbuild, cached in the temp
 * directory under a hash of this directory's sources (names and contents: every clone of the
 * same commit shares one bundle, where file times made one per clone), so a worker starts in
 * tens of milliseconds instead of the half second and more of registering tsx in it; without
 * esbuild, the tsx entry (jsonl-worker-entry.mjs). Found next to this module when running from
 * source, in `../sim/backtest/` from `npm start`'s bundle in build/; in the installed package, the
 * built `jsonl-worker.js` beside the package's modules in dist/ (scripts/build.mjs); undefined
 * when none exists (`fast` mode then reads in this thread).
 */
export function workerModule(): string | undefined {
  for (const relative of ['./', '../sim/backtest/']) {
    const dir = new URL(relative, import.meta.url);
    if (dir.protocol !== 'file:' || !existsSync(fileURLToPath(new URL('jsonl-worker.ts', dir)))) continue;
    return bundled(fileURLToPath(dir)) ?? new URL('jsonl-worker-entry.mjs', dir).href;
  }
  const packaged = new URL('./jsonl-worker.js', import.meta.url);
  return packaged.protocol === 'file:' && existsSync(fileURLToPath(packaged)) ? packaged.href : undefined;
}

const built = new Map<string, string | undefined>();

const BUNDLE_PREFIX = 'perpsim-jsonl-worker-';
/** A bundle unused for this long belongs to sources that changed since: a day covers a run in progress. */
export const STALE_BUNDLE_MS = 24 * 60 * 60 * 1_000;

/**
 * Removes the worker bundles in `dir` not touched for STALE_BUNDLE_MS (each edit of the sources
 * leaves one behind). A bundle still in use was loaded or checked within the day: a process
 * touches the file it reuses (`bundled`), so only abandoned ones go.
 */
export function pruneBundles(dir: string, now: number): number {
  let removed = 0;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(BUNDLE_PREFIX) || !name.endsWith('.mjs')) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs < STALE_BUNDLE_MS) continue;
      rmSync(path, { force: true });
      removed++;
    } catch {
      // Another process pruned it first.
    }
  }
  return removed;
}

/** The cached bundle of `dir`/jsonl-worker.ts (built when missing), or undefined without esbuild. */
function bundled(dir: string): string | undefined {
  if (built.has(dir)) return built.get(dir);
  const hash = createHash('sha1');
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.ts')) continue;
    hash.update(`${name}\n`);
    hash.update(readFileSync(join(dir, name)));
  }
  const path = join(tmpdir(), `${BUNDLE_PREFIX}${hash.digest('hex').slice(0, 16)}.mjs`);
  let url: string | undefined = pathToFileURL(path).href;
  if (existsSync(path)) {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // Pruned by another process just now: built again below.
    }
  }
  if (!existsSync(path)) {
    pruneBundles(tmpdir(), Date.now());
    try {
      const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
      const { outputFiles } = esbuild.buildSync({ entryPoints: [join(dir, 'jsonl-worker-main.ts')], bundle: true, write: false, format: 'esm', platform: 'node', target: 'node20' });
      const partial = `${path}.${process.pid}.partial`;
      writeFileSync(partial, outputFiles[0]!.text);
      renameSync(partial, path);
    } catch {
      url = undefined;
    }
  }
  built.set(dir, url);
  return url;
}

/** Reader threads: with the replaying thread, enough to keep two cores busy (scanning costs about twice the replay). */
export const READER_THREADS = 2;
/**
 * Bytes per block of the file: 4 MB (about 28,000 events of the bench's recording), or a
 * sixteenth of a smaller file (at least 64 KB), so every file is shared between the threads.
 */
export function blockBytes(size: number): number {
  return Math.min(4 * 1024 * 1024, Math.max(64 * 1024, Math.ceil(size / 16)));
}

/**
 * Bytes this thread scans itself while the reader threads start (0.1-0.3 s on the loaded
 * 2-core machine, at about 200 MB/s scanned in this thread): 32 MB, or a quarter of a smaller file.
 */
export function headBytes(size: number): number {
  return Math.min(32 * 1024 * 1024, Math.floor(size / 4));
}

/** One reader thread and its channels. */
interface Reader {
  worker: Worker;
  port: MessagePort;
  returns: MessagePort;
  control: Int32Array;
}

export class WorkerReader extends RecordReader {
  private readonly readers: Reader[] = [];
  /** Settles when every thread has exited (after `close()`, or on their own). */
  readonly exited: Promise<void>;
  private done = false;
  /** The block being decoded: its reader is readers[(block - firstBlock) % length]. */
  private block = 0;
  /** Lines before the block. */
  private lineBase = 0;
  /** The chunk being decoded, handed back to its thread when done. */
  private chunk: ArrayBuffer | undefined;
  private readonly size: number;
  /** The head of the file, read in this thread while the reader threads start. */
  private head: MarketDataReader | undefined;
  /** Lines handed over as text (header, funding, unrecognized shapes). */
  private rawLines = 0;
  bytesRead = 0;

  constructor(
    path: string,
    private readonly byName: ReadonlyMap<string, MarketSpec>,
    from = -Infinity,
    to = Infinity,
    module = workerModule(),
    threads = READER_THREADS,
    block?: number,
    head?: number,
  ) {
    super(from, to);
    if (module === undefined) throw new Error('the JSONL reader thread (jsonl-worker-entry.mjs) is not installed');
    if (byName.size > 255) throw new DataFormatError('at most 255 markets on the worker route (the record word keeps the market in 8 bits)');
    this.size = statSync(path).size;
    const blockSize = block ?? blockBytes(this.size);
    const headBlocks = Math.ceil((head ?? headBytes(this.size)) / blockSize);
    for (const spec of byName.values()) this.specs.push(spec);
    const markets = [...byName].map(([name, s]) => ({ name, id: s.id, tick: { scale: s.tick.scale, mantissa: s.tick.mantissa }, step: { scale: s.step.scale, mantissa: s.step.mantissa } }));
    for (let index = 0; index < threads; index++) {
      const data = new MessageChannel();
      const returns = new MessageChannel();
      const control = new Int32Array(new SharedArrayBuffer(3 * 4));
      const workerData: WorkerData = { path, size: this.size, blockBytes: blockSize, first: headBlocks + index, threads, markets, from, to, port: data.port2, returns: returns.port2, control };
      const worker = new Worker(new URL(module), { execArgv: [], workerData, transferList: [data.port2, returns.port2] });
      worker.unref();
      data.port1.unref();
      returns.port1.unref();
      this.readers.push({ worker, port: data.port1, returns: returns.port1, control });
    }
    this.block = this.firstBlock = headBlocks;
    this.blockBytes = blockSize;
    if (headBlocks > 0) this.head = new MarketDataReader(path, byName, from, to, 'scan', headBlocks * blockSize);
    this.exited = Promise.all(this.readers.map((r) => new Promise<void>((resolve) => r.worker.once('exit', () => resolve())))).then(() => undefined);
  }

  private readonly blockBytes: number;
  /** The first block the reader threads read. */
  private readonly firstBlock: number;

  /** Lines handed over to JSON.parse (header, funding, unrecognized shapes), as MarketDataReader counts them. */
  get fallbackLines(): number {
    return this.rawLines + (this.head?.fallbackLines ?? this.headFallbackLines);
  }

  private headFallbackLines = 0;

  override next(): BinaryEvent | undefined {
    const head = this.head;
    if (head !== undefined) {
      const event = head.next();
      if (event !== undefined) {
        this.bytesRead = head.bytesRead;
        return event;
      }
      this.head = undefined;
      this.headFallbackLines = head.fallbackLines;
      this.lineBase = head.linesRead;
      if (head.reachedTo) {
        this.close();
        return undefined;
      }
    }
    return super.next();
  }

  /** Takes the next chunk in file order (waiting for it); false at the end of the data. */
  protected fill(): boolean {
    if (this.done) return false;
    if (this.pos < this.end) throw new Error('a record crosses a chunk of the JSONL reader threads');
    for (;;) {
      const reader = this.readers[(this.block - this.firstBlock) % this.readers.length]!;
      if (this.chunk !== undefined) {
        reader.returns.postMessage(this.chunk, [this.chunk]);
        this.chunk = undefined;
      }
      const message = take(reader);
      if ('lines' in message) {
        this.lineBase += message.lines;
        this.block++;
        this.bytesRead = Math.min(this.size, this.block * this.blockBytes);
        continue;
      }
      if ('end' in message) {
        this.close();
        return false;
      }
      if ('error' in message) {
        this.close();
        throw new DataFormatError(message.error);
      }
      this.chunk = message.buffer;
      this.values = new Float64Array(message.buffer);
      this.pos = 0;
      this.end = message.length;
      return true;
    }
  }

  protected override rawLine(): BinaryEvent | undefined {
    const v = this.values;
    const at = this.pos;
    const length = v[at + 2]!;
    this.pos = at + 3 + Math.ceil(length / 8);
    this.rawLines++;
    const text = Buffer.from(v.buffer, (at + 3) * 8, length).toString('utf8');
    return parseLine(text, this.byName, this.lineBase + v[at + 1]!);
  }

  /** Stops the threads (idempotent). */
  close(): void {
    if (this.done) return;
    this.done = true;
    this.pos = this.end;
    this.head?.close();
    for (const r of this.readers) {
      Atomics.store(r.control, CLOSED, 1);
      Atomics.notify(r.control, CONSUMED);
      void r.worker.terminate();
      r.port.close();
      r.returns.close();
    }
  }
}

/** The thread's next message, waiting for it; it is consumed. */
function take(reader: Reader): FromWorker {
  const control = reader.control;
  for (;;) {
    const produced = Atomics.load(control, PRODUCED);
    const received = receiveMessageOnPort(reader.port);
    if (received !== undefined) {
      Atomics.add(control, CONSUMED, 1);
      Atomics.notify(control, CONSUMED);
      return received.message as FromWorker;
    }
    Atomics.wait(control, PRODUCED, produced);
  }
}
