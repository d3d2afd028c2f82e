#!/usr/bin/env node
/**
 * `npm start`: perpsim's CLI (sim/main.ts) run from one bundle of its TypeScript, so start-up
 * does not wait for a per-file transform of some two hundred modules (measured here: about half
 * the time to "perpsim listening" of `tsx sim/main.ts`; docs/decisions.md "Start-up").
 *
 * The bundle (build/perpsim.mjs, packages left external; dist/ is the package's, scripts/build.mjs)
 * is rebuilt with esbuild whenever a source file is newer than it, so an edited checkout never runs stale code; `npm install` builds
 * it once ahead (`prepare`). tsx is registered only for the commands that import a TypeScript
 * strategy at run time (bin/strategy-loader.mjs): its loader hooks sit in front of every later import and cost
 * `serve` about a second of start-up here. `node scripts/start.mjs --build-only` only builds.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'build');
const bundle = join(out, 'perpsim.mjs');
const SOURCES = ['engine', 'gateway', 'sim', 'client', 'index.ts', 'package.json', 'scripts/start.mjs'];
// Files the bundle loads by path next to itself (worker threads cannot be bundled in).
const BESIDE = ['gateway/auth/verify-worker.mjs'];

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function stale() {
  const built = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return SOURCES.some((source) => newest(join(root, source)) > built);
}

if (stale()) {
  const { build } = await import('esbuild');
  mkdirSync(out, { recursive: true });
  const { outputFiles } = await build({ entryPoints: [join(root, 'sim/main.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', sourcemap: 'linked', logLevel: 'warning', write: false });
  // Written aside and renamed: several runs at once (parallel tests) never import a half-written file.
  const replace = (path, contents) => {
    writeFileSync(`${path}.${process.pid}.tmp`, contents);
    renameSync(`${path}.${process.pid}.tmp`, path);
  };
  for (const file of BESIDE) replace(join(out, file.slice(file.lastIndexOf('/') + 1)), readFileSync(join(root, file)));
  for (const file of outputFiles.sort((a, b) => b.path.length - a.path.length)) replace(file.path, file.contents); // the .map first
}
// The web console served at /ui (scripts/build-ui.mjs; rebuilt when its sources are newer).
await (await import('./build-ui.mjs')).buildUi();
if (!process.argv.includes('--build-only')) {
  await (await import('../bin/strategy-loader.mjs')).registerStrategyLoader();
  await import(pathToFileURL(bundle).href);
}
