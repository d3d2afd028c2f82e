/**
 * The differential test at scale: `npm run bench -- differential` or
 * `node --import tsx bench/differential.ts [commands]` (default 10,000,000; DIFF_COMMANDS too).
 * The live engine and the reference engine (test/reference/engine/) take seeded random streams
 * of every command kind, 1,000,000 commands per seed on fresh engines; results and event
 * sequences are compared after every command and state hashes every 100,000 commands
 * (test/support/differential.ts). Exits 1 at the first difference, and when a run of 100,000
 * commands or more leaves a command or event kind uncovered. Prints the coverage per
 * command and event kind, then one JSON line of figures: the commands run, the events
 * compared, and each engine's own time (ops per second of the engine alone, not of the harness).
 * DIFF_REUSE=1 runs the live engine in record mode with reused results and every command blanked
 * after `apply` (the in-process callers' way, test/support/differential.ts `reuse`).
 * DIFF_PRICE_SCALE and DIFF_SIZE_SCALE (1) shape the stream: prices × the first (10 puts them on the
 * 0.1 and 0.5 USD tick tiers, 100 on the 0.5 and 1 USD tiers), sizes and dollar amounts × the
 * second (10,000: most orders worth more than 2^53 quote quantums); test/support/differential-stream.ts.
 */
import { loadavg } from 'node:os';
import { envInt } from './env.ts';
import { DivergenceError, mergeCounts, runDifferential, uncovered } from '../test/support/differential.ts';

const total = process.argv[2] !== undefined ? Number(process.argv[2].replaceAll('_', '')) : envInt('DIFF_COMMANDS', 10_000_000);
if (!Number.isInteger(total) || total <= 0) throw new Error(`the command count must be a positive integer, got ${process.argv[2]}`);
const PER_SEED = Math.min(total, envInt('DIFF_PER_SEED', 1_000_000));
const FIRST_SEED = envInt('DIFF_SEED', 1);
const REUSE = process.env.DIFF_REUSE === '1';
const SHAPE = { priceScale: envInt('DIFF_PRICE_SCALE', 1), sizeScale: envInt('DIFF_SIZE_SCALE', 1) };
const SHAPED = SHAPE.priceScale !== 1 || SHAPE.sizeScale !== 1;

const load = loadavg()[0]!;
console.log(`differential bench: ${total.toLocaleString('en-US')} commands, ${PER_SEED.toLocaleString('en-US')} per seed from seed ${FIRST_SEED}${REUSE ? ', reused results and commands, record mode' : ''}${SHAPED ? `, prices × ${SHAPE.priceScale}, sizes × ${SHAPE.sizeScale}` : ''}, load average ${load.toFixed(2)} at start`);
const started = performance.now();
const commands: Record<string, number> = {};
const events: Record<string, number> = {};
const statuses: Record<string, number> = {};
let done = 0;
let eventTotal = 0;
let digests = 0;
let liveSeconds = 0;
let referenceSeconds = 0;
let seed = FIRST_SEED;
try {
  while (done < total) {
    const n = Math.min(PER_SEED, total - done);
    const base = done;
    const r = runDifferential({
      seed,
      commands: n,
      digestEvery: 100_000,
      progressEvery: 250_000,
      eventRecords: REUSE,
      reuse: REUSE,
      shape: SHAPE,
      onProgress: (k) => process.stderr.write(`  ${(base + k).toLocaleString('en-US')} commands, ${((performance.now() - started) / 1000).toFixed(0)} s\n`),
    });
    mergeCounts(commands, r.commandCounts);
    mergeCounts(events, r.eventCounts);
    mergeCounts(statuses, r.orderStatusCounts);
    done += n;
    eventTotal += r.events;
    digests += r.digests;
    liveSeconds += r.liveSeconds;
    referenceSeconds += r.referenceSeconds;
    console.log(`seed ${seed}: ${n.toLocaleString('en-US')} commands, ${r.events.toLocaleString('en-US')} events equal, final state hash ${r.digest.slice(0, 16)}…`);
    seed++;
  }
} catch (err) {
  if (!(err instanceof DivergenceError)) throw err;
  console.log(`DIVERGENCE: ${err.message}`);
  console.log(JSON.stringify({ bench: 'differential', commands: done, divergences: 1, failingSeed: seed }));
  process.exit(1);
}
const missing = uncovered({ commandCounts: commands, eventCounts: events });
console.log(`coverage:\n  commands: ${JSON.stringify(commands)}\n  events:   ${JSON.stringify(events)}\n  order statuses: ${JSON.stringify(statuses)}`);
// A short run (a smoke test) may miss a rare kind; from 100,000 commands on, every kind must occur.
const coverageRequired = total >= 100_000;
if (missing.length > 0) console.log(`NOT COVERED${coverageRequired ? '' : ' (a short run: not required)'}: ${missing.join(', ')}`);
const wall = (performance.now() - started) / 1000;
console.log(
  JSON.stringify({
    bench: 'differential',
    commands: done,
    seeds: seed - FIRST_SEED,
    eventsCompared: eventTotal,
    stateHashesCompared: digests,
    divergences: 0,
    uncoveredKinds: missing.length,
    liquidations: events.liquidation ?? 0,
    adlEvents: events.adl ?? 0,
    liveEngineOpsPerSec: Math.round(done / liveSeconds),
    referenceEngineOpsPerSec: Math.round(done / referenceSeconds),
    liveOverReference: Number((referenceSeconds / liveSeconds).toFixed(3)),
    wallSeconds: Number(wall.toFixed(1)),
    loadAverage: Number(load.toFixed(2)),
    priceScale: SHAPE.priceScale,
    sizeScale: SHAPE.sizeScale,
  }),
);
if (missing.length > 0 && coverageRequired) process.exit(1);
