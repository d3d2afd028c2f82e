/**
 * GC work per backtest run: the example market maker over the 1,000,000-event bench recording
 * (one of bench:sweep's runs, spreadBps 4, requoteMs 5000, through the sweep threads' bundle of
 * run.ts), run RUNS times in this thread after one warm-up run. Per run (mean of the timed runs): this thread's CPU, the process's CPU (every
 * thread: V8's GC and compiler helpers included), scavenges and mark-compacts, bytes allocated,
 * bytes promoted to the old generation and copied within the young one (what scavenges cost), the GC time on this thread (pauses) and on V8's helper threads (`background.*`), all from
 * V8's `--trace-gc-nvp` lines, which this script reads from its own stdout through a child:
 *
 *   node --import tsx bench/backtest-gc.ts            (spawns itself with --trace-gc-nvp)
 *
 * Ends with {"bench":"backtest-gc",…}.
 */
import { spawn } from 'node:child_process';
import { envInt } from './env.ts';
import { binaryFile, recordingFile } from './recording.ts';
import { markedRuns } from './marked-runs.ts';

const EVENTS = envInt('BENCH_EVENTS', 1_000_000);
const RUNS = envInt('RUNS', 4);
const MARK = '@@run';

if (process.env.BACKTEST_GC_CHILD === undefined) {
  const data = binaryFile(recordingFile(EVENTS));
  const child = spawn(process.execPath, ['--trace-gc-nvp', '--import', 'tsx', process.argv[1]!], { env: { ...process.env, BACKTEST_GC_CHILD: data }, stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout!.on('data', (c: Buffer) => void (text += c.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`child exited with ${code}`);
  type Acc = { scavenges: number; markCompacts: number; allocated: number; promoted: number; copied: number; pauseMs: number; backgroundMs: number };
  const runs: (Acc & { threadCpuMs: number; processCpuMs: number; wallMs: number })[] = [];
  let acc: Acc | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith(MARK)) {
      const m = JSON.parse(line.slice(MARK.length)) as { phase: 'start' | 'end'; threadCpuMs: number; processCpuMs: number; wallMs: number };
      if (m.phase === 'start') acc = { scavenges: 0, markCompacts: 0, allocated: 0, promoted: 0, copied: 0, pauseMs: 0, backgroundMs: 0 };
      else if (acc !== undefined) {
        runs.push({ ...acc, threadCpuMs: m.threadCpuMs, processCpuMs: m.processCpuMs, wallMs: m.wallMs });
        acc = undefined;
      }
      continue;
    }
    if (acc === undefined || !line.includes(' pause=')) continue;
    const fields = new Map<string, string>();
    for (const kv of line.slice(line.indexOf(' pause=') + 1).split(' ')) {
      const eq = kv.indexOf('=');
      if (eq > 0) fields.set(kv.slice(0, eq), kv.slice(eq + 1));
    }
    const gc = fields.get('gc');
    if (gc === 's') acc.scavenges++;
    else if (gc === 'ms' || gc === 'mc') acc.markCompacts++;
    acc.allocated += Number(fields.get('allocated') ?? 0);
    acc.promoted += Number(fields.get('promoted') ?? 0);
    acc.copied += Number(fields.get('new_space_survived') ?? 0);
    acc.pauseMs += Number(fields.get('pause') ?? 0);
    for (const [k, v] of fields) if (k.startsWith('background.')) acc.backgroundMs += Number(v);
  }
  const timed = runs.slice(1);
  const mean = (f: (r: (typeof runs)[number]) => number): number => timed.reduce((s, r) => s + f(r), 0) / timed.length;
  const out = {
    bench: 'backtest-gc',
    events: EVENTS,
    runs: timed.length,
    wallMs: Math.round(mean((r) => r.wallMs)),
    threadCpuMs: Math.round(mean((r) => r.threadCpuMs)),
    processCpuMs: Math.round(mean((r) => r.processCpuMs)),
    scavenges: Math.round(mean((r) => r.scavenges)),
    markCompacts: Number(mean((r) => r.markCompacts).toFixed(1)),
    allocatedMB: Math.round(mean((r) => r.allocated) / 1e6),
    promotedMB: Number((mean((r) => r.promoted) / 1e6).toFixed(1)),
    survivedMB: Number((mean((r) => r.copied) / 1e6).toFixed(1)),
    gcPauseMs: Math.round(mean((r) => r.pauseMs)),
    gcHelperMs: Math.round(mean((r) => r.backgroundMs)),
  };
  for (const r of timed) console.log(`run: wall ${r.wallMs.toFixed(0)} ms, thread CPU ${r.threadCpuMs.toFixed(0)} ms, process CPU ${r.processCpuMs.toFixed(0)} ms, ${r.scavenges} scavenges, ${r.markCompacts} mark-compacts, ${(r.allocated / 1e6).toFixed(0)} MB allocated (${(r.promoted / 1e6).toFixed(1)} MB promoted, ${(r.copied / 1e6).toFixed(1)} MB copied in the young generation), GC pauses ${r.pauseMs.toFixed(0)} ms, GC on helper threads ${r.backgroundMs.toFixed(0)} ms`);
  console.log(JSON.stringify(out));
} else {
  await markedRuns(process.env.BACKTEST_GC_CHILD, RUNS + 1, MARK);
}
