/**
 * `npm run bench [-- name…]`: runs every benchmark (or the named ones) one after another, each in
 * its own Node process with --expose-gc so heap figures are comparable, and passes their output
 * through. Each benchmark prints its own JSON line last.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHES: Record<string, string> = {
  engine: 'engine.bench.ts',
  levels: 'levels.bench.ts',
  risk: 'risk.bench.ts',
  ed25519: 'ed25519.bench.ts',
  ws: 'ws.bench.ts',
  gateway: 'gateway.bench.ts',
  journal: 'journal.bench.ts',
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : Object.keys(BENCHES)) {
  const file = fileURLToPath(new URL(BENCHES[name]!, import.meta.url));
  console.log(`== ${name}`);
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', file], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
