/**
 * Compiler work per backtest run: the run bench/backtest-gc.ts makes (the example market maker over
 * the 1,000,000-event bench recording through the sweep threads' esbuild bundle), RUNS + 1 times in
 * one isolate, with V8's `--trace-opt --trace-deopt` read from a child's stdout. Per run: TurboFan
 * and Maglev optimizations completed and their compile ms (V8's three phases summed), deopts by
 * reason, and the functions that deopt in more than one run (the repeat offenders), plus thread and
 * process CPU. Run 1 is the thread's first (what every sweep thread pays); it is reported, not dropped.
 *
 *   node --import tsx bench/backtest-jit.ts      (RUNS=3 after the first; TOP=12 names per list;
 *                                                  V8_FLAGS to trace other things, TRACE_OUT=file keeps the raw trace)
 *
 * Ends with {"bench":"backtest-jit",…}.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { envInt } from './env.ts';
import { binaryFile, recordingFile } from './recording.ts';
import { markedRuns } from './marked-runs.ts';

const EVENTS = envInt('BENCH_EVENTS', 1_000_000);
const RUNS = envInt('RUNS', 3);
const TOP = envInt('TOP', 12);
const MARK = '@@run';

if (process.env.BACKTEST_JIT_CHILD === undefined) {
  const data = binaryFile(recordingFile(EVENTS));
  // V8 prints its traces through C stdio, block-buffered on a pipe: line-buffered through stdbuf (when there
  // is one) so that they interleave with the run markers where they happened.
  const argv = [process.execPath, ...(process.env.V8_FLAGS ?? '--trace-opt --trace-deopt').split(' '), '--import', 'tsx', process.argv[1]!];
  const stdbuf = existsSync('/usr/bin/stdbuf');
  const child = spawn(stdbuf ? '/usr/bin/stdbuf' : argv[0]!, stdbuf ? ['-oL', ...argv] : argv.slice(1), { env: { ...process.env, BACKTEST_JIT_CHILD: data }, stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout!.on('data', (c: Buffer) => void (text += c.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`child exited with ${code}`);
  if (process.env.TRACE_OUT !== undefined) writeFileSync(process.env.TRACE_OUT, text);
  type Run = { optimized: number; compileMs: number; deopts: number; reasons: Map<string, number>; deopted: Map<string, number>; compiled: Map<string, number>; threadCpuMs: number; processCpuMs: number; wallMs: number };
  const runs: Run[] = [];
  let acc: Run | undefined;
  const fn = (line: string): string => /<(?:JSFunction|SharedFunctionInfo) ?([^ >(]*)/.exec(line)?.[1] || '(anonymous)';
  for (const line of text.split('\n')) {
    if (line.startsWith(MARK)) {
      const m = JSON.parse(line.slice(MARK.length)) as { phase: 'start' | 'end'; threadCpuMs: number; processCpuMs: number; wallMs: number };
      if (m.phase === 'start') acc = { optimized: 0, compileMs: 0, deopts: 0, reasons: new Map(), deopted: new Map(), compiled: new Map(), threadCpuMs: 0, processCpuMs: 0, wallMs: 0 };
      else if (acc !== undefined) {
        runs.push({ ...acc, threadCpuMs: m.threadCpuMs, processCpuMs: m.processCpuMs, wallMs: m.wallMs });
        acc = undefined;
      }
      continue;
    }
    if (acc === undefined) continue;
    // V8 prints two lines per job ("completed compiling … took", then "completed optimizing"): the first is counted.
    if (line.startsWith('[completed compiling')) {
      const took = /took ([\d.]+), ([\d.]+), ([\d.]+) ms/.exec(line);
      const ms = took === null ? 0 : Number(took[1]) + Number(took[2]) + Number(took[3]);
      acc.optimized++;
      acc.compileMs += ms;
      acc.compiled.set(fn(line), (acc.compiled.get(fn(line)) ?? 0) + ms);
    } else if (line.startsWith('[bailout (kind: deopt')) {
      const reason = /reason: ([^)]*)\)/.exec(line)?.[1] ?? '?';
      acc.deopts++;
      acc.reasons.set(reason, (acc.reasons.get(reason) ?? 0) + 1);
      const key = `${fn(line)} (${reason})`;
      acc.deopted.set(key, (acc.deopted.get(key) ?? 0) + 1);
    }
  }
  const top = (m: Map<string, number>, n: number): [string, number][] => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  runs.forEach((r, i) => {
    console.log(`run ${i + 1}: wall ${r.wallMs.toFixed(0)} ms, thread CPU ${r.threadCpuMs.toFixed(0)} ms, process CPU ${r.processCpuMs.toFixed(0)} ms, ${r.optimized} optimizations, compile ${r.compileMs.toFixed(0)} ms, ${r.deopts} deopts ${JSON.stringify(top(r.reasons, 6))}`);
    console.log(`  most compile ms: ${top(r.compiled, TOP).map(([f, ms]) => `${f} ${ms.toFixed(0)}`).join(', ')}`);
    console.log(`  deopts: ${top(r.deopted, TOP).map(([f, n]) => `${f} ×${n}`).join(', ')}`);
  });
  const repeat = new Map<string, number>();
  for (const r of runs) for (const k of r.deopted.keys()) repeat.set(k, (repeat.get(k) ?? 0) + 1);
  console.log(`deopting in more than one run: ${top(new Map([...repeat].filter(([, n]) => n > 1)), TOP).map(([f, n]) => `${f} in ${n} runs`).join(', ')}`);
  console.log(JSON.stringify({ bench: 'backtest-jit', events: EVENTS, runs: runs.map((r) => ({ wallMs: Math.round(r.wallMs), threadCpuMs: Math.round(r.threadCpuMs), processCpuMs: Math.round(r.processCpuMs), optimizations: r.optimized, compileMs: Math.round(r.compileMs), deopts: r.deopts })) }));
} else {
  await markedRuns(process.env.BACKTEST_JIT_CHILD, RUNS + 1, MARK);
}
