#!/usr/bin/env node
/**
 * The package build (`npm run build`; `npm pack` runs it as `prepack`): dist/ gets
 *
 * - ESM JavaScript: one esbuild run over ENTRIES (bundled, code split into shared chunks,
 *   npm packages left external, linked source maps with the sources inlined);
 * - the files the JavaScript loads by path at run time (BESIDE: worker threads), copied next to it;
 * - the type declarations of the public entries: TypeScript's own compiler (the repo's `tsc`)
 *   with tsconfig.build.json, into dist/types/.
 *
 * Every output sits directly in dist/ (entries and chunks alike), so a module's
 * `new URL('./x', import.meta.url)` finds what BESIDE copied whichever chunk it ended up in.
 * STEPS run in order; a later feature adds an entry, a file, or a step (e.g. browser assets).
 * The checkout itself runs from sources (`npm start` bundles on its own, scripts/start.mjs).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** Source → dist/<name>.js. The package's exports and bin point at these names. */
export const ENTRIES = {
  index: 'index.ts',
  client: 'client/index.ts',
  testing: 'testing/index.ts',
  cli: 'sim/main.ts',
  // The JSONL reader thread (sim/backtest/jsonl-pipeline.ts workerModule finds it beside itself).
  'jsonl-worker': 'sim/backtest/jsonl-worker-main.ts',
  // A sweep thread's runner (sim/sweep/pool.ts runBundle finds it beside itself).
  'sweep-run': 'sim/sweep/run.ts',
};

/** Plain JavaScript loaded by path (worker threads cannot be bundled in), copied to dist/. */
export const BESIDE = ['gateway/auth/verify-worker.mjs', 'sim/sweep/run-worker.mjs'];

async function javascript() {
  const { build } = await import('esbuild');
  await build({
    absWorkingDir: root,
    entryPoints: Object.entries(ENTRIES).map(([out, input]) => ({ in: input, out })),
    outdir: dist,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    sourcesContent: true,
    logLevel: 'warning',
  });
}

function beside() {
  for (const file of BESIDE) copyFileSync(join(root, file), join(dist, basename(file)));
}

function declarations() {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: ['ignore', process.stderr, process.stderr] });
}

/** The web console's browser assets (GET /ui finds dist/ui beside dist/cli.js). */
async function ui() {
  await (await import('./build-ui.mjs')).buildUi({ outdir: join(dist, 'ui'), force: true });
}

export const STEPS = [
  ['clean', () => rmSync(dist, { recursive: true, force: true })],
  ['javascript', javascript],
  ['beside', beside],
  ['declarations', declarations],
  ['ui', ui],
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(dist, { recursive: true });
  for (const [name, step] of STEPS) {
    const started = performance.now();
    await step();
    console.error(`build: ${name} (${Math.round(performance.now() - started)} ms)`);
  }
}
