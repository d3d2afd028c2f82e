/**
 * `npm run soak [-- --minutes 30 --rate 300 --accounts 20 --modes db,memory]`: does the
 * server's memory stay flat under a steady order flow?
 *
 * For each mode (`db`: `serve --db <temp file>`, history on disk; `memory`: `serve --memory`,
 * where the in-memory retention bounds apply) it starts perpsim as `npm start` runs it, in a child
 * process (bench/server-process.ts: RSS from /proc, heap from a preloaded probe), and drives it
 * with `perpsim load --rate R --duration <minutes> --accounts A` (sim/load.ts, in a process of
 * its own: signed REST order writes, open loop). RSS and heapUsed are sampled every second. After
 * the warm-up (`--warmup` minutes, default a fifth of the run) the samples are cut into windows
 * (`--window` seconds, default a sixth of what is left, at least 10 s); the lowest sample of
 * each window is the floor a leak raises, whatever the garbage collector's rhythm, and the
 * least-squares slope of those floors over time is the figure: MB per minute, target ≤ 1
 * (issue 24). Figures for the record come from a 30-minute run; the default is 3 minutes.
 * `--mix` is passed to the load generator: with `--memory` the default mix takes about 50
 * minutes to fill the bounded history lists (docs/performance-log.md "Memory under a steady
 * order flow"); an IOC-heavy mix fills them within a 12-minute warm-up.
 *
 * Prints, per mode, the windows' floors, the slopes and the load generator's acknowledged orders,
 * latency and refusals by reason; ends with one JSON line {"bench":"soak",...}. The load keeps
 * each account at most `--max-open` resting orders (sim/load.ts, default 100), so the flow is
 * steady: without that the accounts filled the book to the venue's open-order cap within a few
 * minutes and a fifth of the writes were refused (OPEN_ORDER_CAP_EXCEEDED).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServerProcess } from './server-process.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    rate: { type: 'string', default: '300' },
    accounts: { type: 'string', default: '20' },
    warmup: { type: 'string' },
    window: { type: 'string' },
    modes: { type: 'string', default: 'db,memory' },
    // perpsim load's --mix (default: its own); e.g. an IOC-heavy mix fills --memory's retention lists in minutes.
    mix: { type: 'string' },
  },
});

function positive(name: string, text: string | undefined): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`soak: --${name} must be a positive number, not ${String(text)}`);
    process.exit(2);
  }
  return n;
}

const MINUTES = positive('minutes', values.minutes);
const RATE = positive('rate', values.rate);
const ACCOUNTS = positive('accounts', values.accounts);
const WARMUP_S = values.warmup === undefined ? (MINUTES * 60) / 5 : positive('warmup', values.warmup) * 60;
const WINDOW_S = values.window === undefined ? Math.max(10, (MINUTES * 60 - WARMUP_S) / 6) : positive('window', values.window);
const MODES = values.modes!.split(',').map((m) => m.trim());
for (const mode of MODES) {
  if (mode !== 'db' && mode !== 'memory') {
    console.error(`soak: --modes takes db and/or memory, not ${mode}`);
    process.exit(2);
  }
}
const MB = 1024 * 1024;
const START = fileURLToPath(new URL('../scripts/start.mjs', import.meta.url));

interface Sample {
  /** Seconds since the load started. */
  t: number;
  rss: number;
  heap: number;
  /** The V8 heap as committed (heapTotal): the part of the RSS that the heap holds, used or not. */
  heapTotal: number;
  /** Memory outside the JS heap that V8 knows of (Buffers and other ArrayBuffers included). */
  external: number;
}

interface LoadSummary {
  sent: number;
  acknowledged: number;
  ackP99Ms: number;
  /** Refused and failed writes by reason (the load generator's report). */
  refusals: Record<string, number>;
}

/** Runs `perpsim load ... --json` to its end; its report. */
function runLoad(url: string, seconds: number): Promise<LoadSummary> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [START, 'load', '--url', url, '--rate', String(RATE), '--duration', String(seconds), '--accounts', String(ACCOUNTS), ...(values.mix === undefined ? [] : ['--mix', values.mix]), '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`perpsim load exited ${code}`));
      const report = JSON.parse(out.slice(out.indexOf('{'))) as { sent: number; acknowledged: number; latency?: { ack?: { p99?: number } }; ackLatencyMs?: { p99?: number }; refusals?: Record<string, number> };
      resolve({ sent: report.sent, acknowledged: report.acknowledged, ackP99Ms: report.latency?.ack?.p99 ?? report.ackLatencyMs?.p99 ?? Number.NaN, refusals: report.refusals ?? {} });
    });
  });
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

interface ModeResult {
  mode: string;
  rssFloorsMb: number[];
  heapFloorsMb: number[];
  heapTotalFloorsMb: number[];
  externalFloorsMb: number[];
  rssSlopeMbPerMin: number;
  heapSlopeMbPerMin: number;
  heapTotalSlopeMbPerMin: number;
  rssStartMb: number;
  rssEndMb: number;
  load: LoadSummary;
}

async function soak(mode: string): Promise<ModeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-soak-'));
  const args = mode === 'db' ? ['--db', join(dir, 'soak.db')] : ['--memory'];
  // BENCH_SERVER_NODE_ARGS: node options for the server's process (as in bench:fanout), e.g. a V8 heap flag to compare.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const server = await startServerProcess([...args, '--port', '0'], { nodeArgs });
  const samples: Sample[] = [];
  const t0 = performance.now();
  const timer = setInterval(() => {
    const m = server.memory();
    samples.push({ t: (performance.now() - t0) / 1000, rss: server.rssBytes(), heap: m?.heapUsed ?? Number.NaN, heapTotal: m?.heapTotal ?? Number.NaN, external: m?.external ?? Number.NaN });
  }, 1_000);
  try {
    const rssStart = server.rssBytes();
    const load = await runLoad(server.url, MINUTES * 60);
    clearInterval(timer);
    const kept = samples.filter((s) => s.t >= WARMUP_S && s.t <= MINUTES * 60);
    const windows = new Map<number, Sample[]>();
    for (const s of kept) {
      const w = Math.floor((s.t - WARMUP_S) / WINDOW_S);
      windows.set(w, [...(windows.get(w) ?? []), s]);
    }
    // A window with fewer than half its samples (the run's tail) is left out.
    const full = [...windows.entries()].filter(([, ss]) => ss.length >= WINDOW_S / 2).sort(([a], [b]) => a - b);
    const floors = full.map(([w, ss]) => ({ minute: (WARMUP_S + (w + 0.5) * WINDOW_S) / 60, rss: Math.min(...ss.map((s) => s.rss)) / MB, heap: Math.min(...ss.map((s) => s.heap)) / MB, heapTotal: Math.min(...ss.map((s) => s.heapTotal)) / MB, external: Math.min(...ss.map((s) => s.external)) / MB }));
    return {
      mode,
      rssFloorsMb: floors.map((f) => round(f.rss, 1)),
      heapFloorsMb: floors.map((f) => round(f.heap, 1)),
      heapTotalFloorsMb: floors.map((f) => round(f.heapTotal, 1)),
      externalFloorsMb: floors.map((f) => round(f.external, 1)),
      rssSlopeMbPerMin: round(slope(floors.map((f) => ({ x: f.minute, y: f.rss })))),
      heapSlopeMbPerMin: round(slope(floors.map((f) => ({ x: f.minute, y: f.heap })))),
      heapTotalSlopeMbPerMin: round(slope(floors.map((f) => ({ x: f.minute, y: f.heapTotal })))),
      rssStartMb: round(rssStart / MB, 1),
      rssEndMb: round(server.rssBytes() / MB, 1),
      load,
    };
  } finally {
    clearInterval(timer);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`soak: ${MINUTES} min at ${RATE} orders/s over ${ACCOUNTS} accounts${values.mix === undefined ? '' : ` (mix ${values.mix})`} per mode (${MODES.join(', ')}); warm-up ${round(WARMUP_S / 60)} min, windows of ${round(WINDOW_S)} s; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
const results: ModeResult[] = [];
for (const mode of MODES) {
  const r = await soak(mode);
  results.push(r);
  console.log(`  ${mode.padEnd(6)} RSS floors ${r.rssFloorsMb.join(', ')} MB: slope ${r.rssSlopeMbPerMin} MB/min (target ≤ 1); heap floors ${r.heapFloorsMb.join(', ')} MB: slope ${r.heapSlopeMbPerMin} MB/min; heap committed ${r.heapTotalFloorsMb.join(', ')} MB: slope ${r.heapTotalSlopeMbPerMin} MB/min; external ${r.externalFloorsMb.join(', ')} MB`);
  const reasons = Object.entries(r.load.refusals).sort((a, b) => b[1] - a[1]);
  console.log(`         RSS ${r.rssStartMb} MB at start, ${r.rssEndMb} MB at the end; ${r.load.acknowledged} of ${r.load.sent} orders acknowledged, ack p99 ${r.load.ackP99Ms} ms; refusals: ${reasons.length === 0 ? 'none' : reasons.map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
}
const by = (mode: string): ModeResult | undefined => results.find((r) => r.mode === mode);
console.log(
  JSON.stringify({
    bench: 'soak',
    minutes: MINUTES,
    rate: RATE,
    mix: values.mix ?? null,
    dbRssSlopeMbPerMin: by('db')?.rssSlopeMbPerMin ?? null,
    dbHeapSlopeMbPerMin: by('db')?.heapSlopeMbPerMin ?? null,
    memoryRssSlopeMbPerMin: by('memory')?.rssSlopeMbPerMin ?? null,
    memoryHeapSlopeMbPerMin: by('memory')?.heapSlopeMbPerMin ?? null,
    dbHeapTotalSlopeMbPerMin: by('db')?.heapTotalSlopeMbPerMin ?? null,
    memoryHeapTotalSlopeMbPerMin: by('memory')?.heapTotalSlopeMbPerMin ?? null,
    dbRssFloorsMb: by('db')?.rssFloorsMb ?? null,
    memoryRssFloorsMb: by('memory')?.rssFloorsMb ?? null,
    dbAcknowledged: by('db')?.load.acknowledged ?? null,
    dbSent: by('db')?.load.sent ?? null,
    dbRefusals: by('db')?.load.refusals ?? null,
    memoryAcknowledged: by('memory')?.load.acknowledged ?? null,
    memorySent: by('memory')?.load.sent ?? null,
    memoryRefusals: by('memory')?.load.refusals ?? null,
    loadAverage: round(loadavg()[0]!, 1),
  }),
);
