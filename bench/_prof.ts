import { perpsimRunner } from '/work/main/bench/perpsim-runner.ts';
import { generateStream, MIX_PLACE_HEAVY } from '/work/main/bench/stream.ts';
const OPS = Number(process.env.OPS ?? 1_000_000);
const s = generateStream({ ops: OPS, seed: 42, mix: MIX_PLACE_HEAVY, targetPerMarket: 1000 });
for (let pass = 0; pass < 3; pass++) {
  const st = perpsimRunner.prepare(s);
  const t0 = performance.now();
  perpsimRunner.run(st, s, s.prefill, s.length);
  const sec = (performance.now() - t0) / 1000;
  console.log(`pass ${pass}: ${Math.round(OPS / sec).toLocaleString()} ops/s ${perpsimRunner.summary(st)}`);
}
