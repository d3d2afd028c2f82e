/**
 * The JSONL worker route: a worker thread reads and scans the file (jsonl-worker.ts) while this
 * thread replays, so the two costs of a JSONL replay — byte scanning and the replay loop — run
 * on two cores (docs/decisions.md "Backtesting" → "Speed: the worker route").
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
import { existsSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { MarketSpec } from '../../engine/index.ts';
import { RecordReader, type BinaryEvent } from './binary-format.ts';
import { DataFormatError, parseLine } from './data-format.ts';
import { CLOSED, CONSUMED, PRODUCED, type FromWorker, type WorkerData } from './jsonl-worker.ts';

/**
 * The worker's code: jsonl-worker.ts bundled to plain JavaScript with esbuild, cached in the temp
 * directory under a hash of this directory's files (names, sizes, times), so a worker starts in
 * tens of milliseconds instead of the half second and more of registering tsx in it; without
 * esbuild, the tsx entry (jsonl-worker-entry.mjs). Found next to this module when running from
 * source, in `../sim/backtest/` from the CLI's bundle in dist/; undefined when neither exists
 * (`fast` mode then reads in this thread).
 */
export function workerModule(): string | undefined {
  for (const relative of ['./', '../sim/backtest/']) {
    const dir = new URL(relative, import.meta.url);
    if (dir.protocol !== 'file:' || !existsSync(fileURLToPath(new URL('jsonl-worker.ts', dir)))) continue;
    return bundled(fileURLToPath(dir)) ?? new URL('jsonl-worker-entry.mjs', dir).href;
  }
  return undefined;
}

const built = new Map<string, string | undefined>();

/** The cached bundle of `dir`/jsonl-worker.ts (built when missing), or undefined without esbuild. */
function bundled(dir: string): string | undefined {
  if (built.has(dir)) return built.get(dir);
  const hash = createHash('sha1');
  for (const name of readdirSync(dir).sort()) {
    const stat = statSync(join(dir, name));
    hash.update(`${name} ${stat.size} ${stat.mtimeMs}\n`);
  }
  const path = join(tmpdir(), `perpsim-jsonl-worker-${hash.digest('hex').slice(0, 16)}.mjs`);
  let url: string | undefined = pathToFileURL(path).href;
  if (!existsSync(path)) {
    try {
      const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
      const contents = "import { workerData } from 'node:worker_threads'; import { run } from './jsonl-worker.ts'; run(workerData);";
      const { outputFiles } = esbuild.buildSync({ stdin: { contents, resolveDir: dir, loader: 'ts' }, bundle: true, write: false, format: 'esm', platform: 'node', target: 'node20' });
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

export class WorkerReader extends RecordReader {
  private readonly worker: Worker;
  /** Settles when the thread has exited (after `close()`, or on its own). */
  readonly exited: Promise<void>;
  private readonly port: MessagePort;
  private readonly returns: MessagePort;
  private readonly control = new Int32Array(new SharedArrayBuffer(3 * 4));
  private done = false;
  /** The chunk being decoded, handed back to the worker when done. */
  private chunk: ArrayBuffer | undefined;
  /** Lines handed over as text (header, funding, unrecognized shapes). */
  fallbackLines = 0;
  bytesRead = 0;

  constructor(
    path: string,
    private readonly byName: ReadonlyMap<string, MarketSpec>,
    from = -Infinity,
    to = Infinity,
    module = workerModule(),
  ) {
    super(from, to);
    if (module === undefined) throw new Error('the JSONL reader thread (jsonl-worker-entry.mjs) is not installed');
    if (byName.size > 255) throw new DataFormatError('at most 255 markets on the worker route (the record word keeps the market in 8 bits)');
    for (const spec of byName.values()) this.specs.push(spec);
    const data = new MessageChannel();
    const returns = new MessageChannel();
    this.port = data.port1;
    this.returns = returns.port1;
    const workerData: WorkerData = {
      path,
      markets: [...byName].map(([name, s]) => ({ name, id: s.id, tick: { scale: s.tick.scale, mantissa: s.tick.mantissa }, step: { scale: s.step.scale, mantissa: s.step.mantissa } })),
      from,
      to,
      port: data.port2,
      returns: returns.port2,
      control: this.control,
    };
    this.worker = new Worker(new URL(module), { execArgv: [], workerData, transferList: [data.port2, returns.port2] });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.unref();
    this.port.unref();
    this.returns.unref();
  }

  /** Takes the worker's next chunk (waiting for it); false at the end of the data. */
  protected fill(): boolean {
    if (this.done) return false;
    if (this.pos < this.end) throw new Error('a record crosses a chunk of the JSONL reader thread');
    if (this.chunk !== undefined) {
      this.returns.postMessage(this.chunk, [this.chunk]);
      this.chunk = undefined;
    }
    const control = this.control;
    let message: FromWorker;
    for (;;) {
      const produced = Atomics.load(control, PRODUCED);
      const received = receiveMessageOnPort(this.port);
      if (received !== undefined) {
        message = received.message as FromWorker;
        break;
      }
      Atomics.wait(control, PRODUCED, produced);
    }
    Atomics.add(control, CONSUMED, 1);
    Atomics.notify(control, CONSUMED);
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
    this.bytesRead = message.bytesRead;
    return true;
  }

  protected override rawLine(): BinaryEvent | undefined {
    const v = this.values;
    const at = this.pos;
    const length = v[at + 2]!;
    this.pos = at + 3 + Math.ceil(length / 8);
    this.fallbackLines++;
    const text = Buffer.from(v.buffer, (at + 3) * 8, length).toString('utf8');
    return parseLine(text, this.byName, v[at + 1]!);
  }

  /** Stops the worker (idempotent). */
  close(): void {
    if (this.done) return;
    this.done = true;
    this.pos = this.end;
    Atomics.store(this.control, CLOSED, 1);
    Atomics.notify(this.control, CONSUMED);
    void this.worker.terminate();
    this.port.close();
    this.returns.close();
  }
}
