/**
 * Two engines compared in one process: `A=<checkout> B=<checkout> node --expose-gc --import tsx
 * bench/engine-ab.ts`. Each checkout's perpsim runner (and so its engine) is loaded from its
 * own directory; both replay the same 1M-op stream on fresh engines, alternating chunks of
 * CHUNK ops (default 50,000; the order flips every chunk), each chunk timed by process CPU time.
 * Prints, per pass after a warm-up pass, the totals and A/B. On a VM shared with other work,
 * where separate processes move by ±15-40 % pairwise, both sides see the same disturbance; but
 * they share one heap, so a change in garbage shows up muted (docs/decisions.md, "Engine
 * throughput"). Calibration: the same checkout twice measured 1.02, and the same engine from two
 * checkouts 1.02-1.04: B comes out ahead by a few per cent, so judge a change both ways round.
 */
import type { Stream } from './stream.ts';

interface RunnerModule {
  perpsimRunner: {
    prepare(s: Stream): unknown;
    run(st: unknown, s: Stream, from: number, to: number): void;
    summary(st: unknown): string;
  };
}

const A = process.env.A;
const B = process.env.B;
if (!A || !B) throw new Error('set A and B to the two checkouts to compare');
const CHUNK = Number(process.env.CHUNK ?? 50_000);
const PASSES = Number(process.env.PASSES ?? 3);
const ra = ((await import(A + '/bench/perpsim-runner.ts')) as RunnerModule).perpsimRunner;
const rb = ((await import(B + '/bench/perpsim-runner.ts')) as RunnerModule).perpsimRunner;
const { generateStream, MIX_PLACE_HEAVY } = await import('./stream.ts');
const s = generateStream({ ops: 1_000_000, seed: 42, mix: MIX_PLACE_HEAVY, targetPerMarket: 1_000 });
const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1_000;
};
for (let pass = 0; pass < PASSES; pass++) {
  const sa = ra.prepare(s);
  const sb = rb.prepare(s);
  globalThis.gc?.();
  let ta = 0;
  let tb = 0;
  for (let i = s.prefill, k = 0; i < s.length; i += CHUNK, k++) {
    const to = Math.min(s.length, i + CHUNK);
    for (const first of k % 2 === 0 ? [true, false] : [false, true]) {
      const c0 = cpuMs();
      if (first) ra.run(sa, s, i, to);
      else rb.run(sb, s, i, to);
      if (first) ta += cpuMs() - c0;
      else tb += cpuMs() - c0;
    }
  }
  if (pass === 0) continue;
  console.log(`pass ${pass}: A ${ta.toFixed(0)} ms, B ${tb.toFixed(0)} ms CPU; A/B ${(ta / tb).toFixed(3)} (${ra.summary(sa)} / ${rb.summary(sb)})`);
}
