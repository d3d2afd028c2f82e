/**
 * `npm run bench [-- name…]`: runs every benchmark (or the named ones) one after another, each in
 * its own Node process with --expose-gc so heap figures are comparable, passes their output
 * through, and writes each one's figures into docs/benchmarks.md (bench/report.ts: a table
 * with the figure, the baseline of the same run, the ratio, the target and the machine's
 * facts). `BENCH_WRITE=0` leaves the document alone (a smoke run's figures are not figures).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lastFigures, machineFacts, renderSection, updateDocument } from './report.ts';

const BENCHES: Record<string, string> = {
  engine: 'engine.bench.ts',
  'engine-floor': 'engine-floor.ts',
  'engine-stages': 'engine-stages.ts',
  'engine-taker': 'engine-taker.ts',
  'engine-working-set': 'engine-working-set.ts',
  levels: 'levels.bench.ts',
  risk: 'risk.bench.ts',
  ed25519: 'ed25519.bench.ts',
  ws: 'ws.bench.ts',
  gateway: 'gateway.bench.ts',
  backtest: 'backtest.bench.ts',
  journal: 'journal.bench.ts',
  differential: 'differential.ts',
  sweep: 'sweep.bench.ts',
  fanout: 'fanout.bench.ts',
};

const DOCUMENT = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

/** Runs one benchmark, echoing its output; resolves to its exit code and stdout. */
function run(file: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      process.stdout.write(chunk);
    });
    child.on('close', (code) => resolve({ code: code ?? 1, stdout }));
  });
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
const write = process.env.BENCH_WRITE !== '0';
for (const name of wanted.length > 0 ? wanted : Object.keys(BENCHES)) {
  const machine = machineFacts();
  console.log(`== ${name}`);
  const { code, stdout } = await run(fileURLToPath(new URL(BENCHES[name]!, import.meta.url)));
  if (code !== 0) process.exit(code);
  const figures = lastFigures(stdout);
  if (figures === undefined) {
    console.error(`${name}: no JSON line of figures at the end of its output`);
    process.exit(1);
  }
  if (write) {
    writeFileSync(DOCUMENT, updateDocument(readFileSync(DOCUMENT, 'utf8'), name, renderSection(name, figures, machine)));
    console.log(`(figures written to docs/benchmarks.md)`);
  }
}
