/**
 * docs/benchmarks.md from the benchmarks' own JSON lines: one table per benchmark with each
 * figure, its baseline from the same run, the ratio and the target, under the machine's facts.
 *
 * Contract: `renderSection` is pure (figures + machine in, markdown out); `updateDocument`
 * replaces the generated block of one benchmark — between `<!-- bench:<name> -->` and
 * `<!-- /bench:<name> -->` — and leaves every other line of the document alone, so the prose
 * written around each block (what the stream is, what was tried) survives a re-run. A benchmark
 * without a block yet gets one appended under its own heading. The descriptors below say which
 * JSON key is a figure, which its baseline, and the issue's target; keys no descriptor names are
 * listed raw, so a new benchmark still reports before anyone describes it.
 */
import { cpus, loadavg, release, totalmem, type } from 'node:os';

export type Figures = Record<string, unknown>;

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  loadAverage: number;
  date: string;
}

export function machineFacts(now: Date = new Date()): Machine {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    os: `${type()} ${release()}`,
    loadAverage: loadavg()[0]!,
    date: now.toISOString().slice(0, 10),
  };
}

/** A target on a figure: at least / at most a value, or at least a ratio of its baseline. */
type Target = { atLeast: number } | { atMost: number } | { ratioAtLeast: number };

interface Row {
  figure: string;
  key: string;
  unit: string;
  /** The baseline's own unit when it differs from the figure's. */
  baseline?: { label: string; key: string; unit?: string };
  target?: Target;
  /** A second target on the absolute value, next to a ratio target. */
  alsoTarget?: Target;
}

interface Descriptor {
  title: string;
  command: string;
  rows: Row[];
}

export const DESCRIPTORS: Record<string, Descriptor> = {
  engine: {
    title: 'engine (issue 2)',
    command: 'npm run bench:engine',
    rows: [
      { figure: 'perpsim engine, issue 2 mix (risk + matching + events)', key: 'opsPerSec', unit: 'ops/s', baseline: { label: 'bare typed-array book', key: 'bareBookOpsPerSec' }, target: { ratioAtLeast: 0.25 }, alsoTarget: { atLeast: 5_000_000 } },
      { figure: 'perpsim engine vs nodejs-order-book', key: 'opsPerSec', unit: 'ops/s', baseline: { label: 'nodejs-order-book', key: 'nodejsOrderBookOpsPerSec' } },
      { figure: 'heap per 1,000,000 resting orders', key: 'heapMBPer1MOrders', unit: 'MB', target: { atMost: 400 } },
    ],
  },
  'engine-floor': {
    title: 'engine floor (issues 2 and 3: working set against work per command)',
    command: 'npm run bench -- engine-floor',
    rows: [
      { figure: 'engine, 25 hot accounts, same book depth', key: 'hotAccountsOpsPerCpuSec', unit: 'ops per CPU-second', baseline: { label: 'bench world (2,100 accounts)', key: 'benchWorldOpsPerCpuSec' } },
      { figure: 'engine, 25 hot accounts, ~100 orders per market', key: 'allHotOpsPerCpuSec', unit: 'ops per CPU-second', baseline: { label: 'bench world (2,100 accounts)', key: 'benchWorldOpsPerCpuSec' } },
      { figure: 'engine, bench world', key: 'benchWorldOpsPerCpuSec', unit: 'ops per CPU-second', baseline: { label: 'bare typed-array book', key: 'bareBookOpsPerCpuSec' } },
    ],
  },
  levels: {
    title: 'levels (issue 2: price levels)',
    command: 'npm run bench:levels',
    rows: [{ figure: 'sorted level array + price index', key: 'arrayOpsPerSec', unit: 'ops/s', baseline: { label: 'functional-red-black-tree', key: 'rbTreeOpsPerSec' } }],
  },
  risk: {
    title: 'risk (issue 3)',
    command: 'npm run bench:risk',
    rows: [
      { figure: 'one oracle update, 100,000 positions, median', key: 'oracleTickMsMedian', unit: 'ms', baseline: { label: 'scan every position', key: 'scanAllMsMedian' }, target: { atMost: 5 } },
      { figure: 'full engine, issue 2 mix, funded accounts', key: 'fullEngineOpsPerSec', unit: 'ops/s', target: { atLeast: 1_000_000 } },
    ],
  },
  ed25519: {
    title: 'ed25519 (issue 4: signature verification)',
    command: 'npm run bench -- ed25519',
    rows: [
      { figure: 'node:crypto verify, cached KeyObject', key: 'nodeCryptoVerifiesPerSec', unit: 'verifies/s', baseline: { label: '@noble/ed25519', key: 'nobleVerifiesPerSec' } },
      { figure: "sodium-native verify (the gateway's verifyEd25519)", key: 'sodiumVerifiesPerSec', unit: 'verifies/s', baseline: { label: 'node:crypto, cached KeyObject', key: 'nodeCryptoVerifiesPerSec' } },
    ],
  },
  gateway: {
    title: 'gateway (issue 4: REST)',
    command: 'npm run bench:gateway',
    rows: [
      { figure: 'signed POST /v1/placeOrder', key: 'signedOrdersPerSec', unit: 'orders/s', baseline: { label: 'sodium-native verify, 1 core', key: 'verifyBaselinePerSec', unit: 'verifies/s' }, target: { ratioAtLeast: 1 } },
      { figure: 'signed POST /v1/placeOrder, worker-thread vs inline verification', key: 'signedOrdersPerSec', unit: 'orders/s', baseline: { label: 'verification inline', key: 'inlineVerifySignedOrdersPerSec' } },
      { figure: 'GET /v1/bbo/BTC-USD', key: 'bboReadsPerSec', unit: 'req/s', baseline: { label: 'fastify hello-world POST', key: 'helloWorldPerSec', unit: 'req/s' }, target: { ratioAtLeast: 0.7 } },
      { figure: 'GET /v1/bbo/BTC-USD, against a GET of the same reply size', key: 'bboReadsPerSec', unit: 'req/s', baseline: { label: 'fastify hello-world GET', key: 'helloWorldGetPerSec', unit: 'req/s' }, target: { ratioAtLeast: 0.7 } },
      { figure: 'signed placeOrder latency p99', key: 'p99Ms', unit: 'ms' },
      { figure: 'main-thread CPU per signed order', key: 'mainThreadCpuUsPerOrder', unit: 'µs', baseline: { label: 'per hello-world POST', key: 'helloWorldMainThreadCpuUsPerReq' } },
      { figure: 'load-generator CPU per signed order', key: 'loadGeneratorCpuUsPerOrder', unit: 'µs', baseline: { label: 'per hello-world POST', key: 'helloWorldLoadGeneratorCpuUsPerReq' } },
      { figure: 'server-process CPU per signed order (verification threads included)', key: 'serverCpuUsPerOrder', unit: 'µs' },
    ],
  },
  ws: {
    title: 'ws (issue 5: WebSocket)',
    command: 'npm run bench:ws',
    rows: [
      { figure: 'signed placeOrder over WS RPC', key: 'signedOrdersPerSec', unit: 'orders/s', baseline: { label: 'single-core verify', key: 'verifyBaselinePerSec', unit: 'verifies/s' }, target: { ratioAtLeast: 1 } },
      { figure: 'fan-out frames delivered, 1,000 subscribers', key: 'fanoutFramesPerSec', unit: 'frames/s' },
      { figure: 'event-loop delay p99 during fan-out', key: 'eventLoopLagP99Ms', unit: 'ms' },
      { figure: 'main-thread CPU per signed order', key: 'mainThreadCpuUsPerOrder', unit: 'µs' },
      { figure: 'clients\' CPU per signed order', key: 'clientCpuUsPerOrder', unit: 'µs' },
      { figure: 'server-process CPU per signed order (verification threads included)', key: 'serverCpuUsPerOrder', unit: 'µs' },
    ],
  },
  journal: {
    title: 'journal (issue 7: durability)',
    command: 'npm run bench:journal',
    rows: [
      { figure: 'signed placeOrder over REST, journaled', key: 'journaledOrdersPerSec', unit: 'orders/s', baseline: { label: '--memory', key: 'memoryOrdersPerSec' }, target: { ratioAtLeast: 0.8 } },
      { figure: 'restart with a 1,000,000-order journal (newest snapshot + the journal after it)', key: 'restartSecondsFor1MOrders', unit: 's', target: { atMost: 5 } },
      { figure: 'restart replaying the whole 1,000,000-order journal (no snapshot)', key: 'fullReplaySecondsFor1MOrders', unit: 's' },
      { figure: 'restart after a clean stop (its snapshot only)', key: 'cleanRestartSeconds', unit: 's' },
    ],
  },
  fanout: {
    title: 'fanout (issue 24: 2,000 WebSocket subscribers, 500 paused, 100 signed orders/s)',
    command: 'npm run bench:fanout',
    rows: [
      { figure: 'GET /health latency p99 under fan-out', key: 'healthP99Ms', unit: 'ms', target: { atMost: 50 } },
      { figure: 'signed placeOrder acknowledgement p99 under fan-out', key: 'ackP99Ms', unit: 'ms', target: { atMost: 100 } },
      { figure: 'server event-loop delay p99 (its own, from a preloaded probe)', key: 'serverLoopDelayP99Ms', unit: 'ms' },
      { figure: 'server CPU per 1,000 channel frames delivered', key: 'serverCpuMsPer1kFrames', unit: 'ms' },
      { figure: 'server RSS at peak', key: 'rssPeakMb', unit: 'MB', target: { atMost: 1024 } },
      { figure: 'server RSS after every socket closed, × its start', key: 'rssAfterToStart', unit: '×', target: { atMost: 1.2 } },
    ],
  },
  backtest: {
    title: 'backtest (issue 8)',
    command: 'npm run bench:backtest',
    rows: [
      { figure: 'replayed events, do-nothing strategy, binary file', key: 'eventsPerSec', unit: 'events/s', baseline: { label: 'JSONL, every line JSON.parsed', key: 'jsonParseEventsPerSec' }, target: { atLeast: 1_000_000 } },
      { figure: 'replayed events, do-nothing strategy, JSONL fast route', key: 'jsonlEventsPerSec', unit: 'events/s', baseline: { label: 'JSONL, every line JSON.parsed', key: 'jsonParseEventsPerSec' } },
      { figure: 'replayed events, example market maker, binary file', key: 'marketMakerEventsPerSec', unit: 'events/s', baseline: { label: 'do-nothing strategy', key: 'eventsPerSec' } },
    ],
  },
};

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function formatFigure(value: number, unit: string): string {
  const text = Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : value.toLocaleString('en-US', { maximumSignificantDigits: 3 });
  return unit === '' ? text : `${text} ${unit}`;
}

function describeTarget(target: Target, unit: string): string {
  if ('ratioAtLeast' in target) return `≥ ${target.ratioAtLeast} ×`;
  if ('atLeast' in target) return `≥ ${formatFigure(target.atLeast, unit)}`;
  return `≤ ${formatFigure(target.atMost, unit)}`;
}

function meets(target: Target, value: number, ratio: number | undefined): boolean | undefined {
  if ('ratioAtLeast' in target) return ratio === undefined ? undefined : ratio >= target.ratioAtLeast;
  if ('atLeast' in target) return value >= target.atLeast;
  return value <= target.atMost;
}

function verdict(target: Target | undefined, value: number, ratio: number | undefined, unit: string): string {
  if (target === undefined) return '';
  const met = meets(target, value, ratio);
  return `${describeTarget(target, unit)}: ${met === undefined ? 'not measured' : met ? 'met' : '**not met**'}`;
}

/** The generated block of one benchmark (without its markers). */
export function renderSection(name: string, figures: Figures, machine: Machine): string {
  const descriptor = DESCRIPTORS[name];
  const lines: string[] = [];
  lines.push(`Command: \`${descriptor?.command ?? `npm run bench -- ${name}`}\`, ${machine.date}; ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, load average ${machine.loadAverage.toFixed(2)} at the start.`);
  lines.push('');
  lines.push('| figure | value | baseline (same run) | ratio | target |');
  lines.push('|---|---:|---:|---:|---|');
  const described = new Set<string>();
  for (const row of descriptor?.rows ?? []) {
    described.add(row.key);
    if (row.baseline) described.add(row.baseline.key);
    const value = number(figures[row.key]);
    if (value === undefined) continue;
    const base = row.baseline === undefined ? undefined : number(figures[row.baseline.key]);
    const ratio = base === undefined || base === 0 ? undefined : value / base;
    const targets = [verdict(row.target, value, ratio, row.unit), verdict(row.alsoTarget, value, ratio, row.unit)].filter((t) => t !== '');
    const baseText = row.baseline === undefined ? '—' : base === undefined ? `${row.baseline.label}: not measured` : `${row.baseline.label}: ${formatFigure(base, row.baseline.unit ?? row.unit)}`;
    lines.push(`| ${row.figure} | ${formatFigure(value, row.unit)} | ${baseText} | ${ratio === undefined ? '—' : `${ratio.toFixed(ratio < 0.1 ? 3 : 2)} ×`} | ${targets.join('; ') || '—'} |`);
  }
  for (const [key, value] of Object.entries(figures)) {
    if (key === 'bench' || described.has(key)) continue;
    const n = number(value);
    lines.push(`| \`${key}\` | ${n === undefined ? String(value) : formatFigure(n, '')} | — | — | — |`);
  }
  lines.push('');
  lines.push('```');
  lines.push(JSON.stringify(figures));
  lines.push('```');
  return lines.join('\n');
}

const begin = (name: string): string => `<!-- bench:${name} -->`;
const end = (name: string): string => `<!-- /bench:${name} -->`;

/** `document` with the block of `name` replaced by `section` (appended under a heading when new). */
export function updateDocument(document: string, name: string, section: string): string {
  const block = `${begin(name)}\n${section}\n${end(name)}`;
  const from = document.indexOf(begin(name));
  const to = document.indexOf(end(name));
  if (from >= 0 && to > from) return document.slice(0, from) + block + document.slice(to + end(name).length);
  const title = DESCRIPTORS[name]?.title ?? name;
  return `${document.replace(/\s*$/, '')}\n\n## ${title}\n\n${block}\n`;
}

/** The figures of a benchmark's output: its last line that parses as `{"bench": …}`. */
export function lastFigures(output: string): Figures | undefined {
  const lines = output.trim().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as unknown;
      if (typeof parsed === 'object' && parsed !== null && typeof (parsed as Figures).bench === 'string') return parsed as Figures;
    } catch {
      // not a JSON line: keep looking
    }
  }
  return undefined;
}
