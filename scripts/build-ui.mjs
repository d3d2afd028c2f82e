#!/usr/bin/env node
/**
 * The web console's assets (GET /ui, sim/ui/serve.ts): ui/src/main.ts bundled by esbuild for the
 * browser (the SDK from client/ and lightweight-charts included, nothing fetched at run time)
 * into `<outdir>/app.js`, with ui/index.html and ui/style.css copied beside it.
 *
 * `buildUi()` rebuilds only when a source is newer than the bundle (as scripts/start.mjs does for
 * build/perpsim.mjs); `{ force: true }` always does. Default outdir: build/ui (the checkout's, beside
 * `npm start`'s bundle); the package build (scripts/build.mjs) writes dist/ui. Run alone:
 * `node scripts/build-ui.mjs [--force] [--outdir <dir>]`.
 */
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const UI_DIST = join(root, 'build', 'ui');
const SOURCES = ['ui', 'client', 'package.json', 'scripts/build-ui.mjs'];
const STATIC = ['index.html', 'style.css'];

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) if (entry !== 'node_modules') latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** Builds the console into `outdir` unless it is up to date; answers the directory and whether it built. */
export async function buildUi({ outdir = UI_DIST, force = false } = {}) {
  const built = statSync(join(outdir, 'app.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const stale = force || STATIC.some((file) => statSync(join(outdir, file), { throwIfNoEntry: false }) === undefined) || SOURCES.some((source) => newest(join(root, source)) > built);
  if (!stale) return { outdir, built: false };
  const { build } = await import('esbuild');
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [join(root, 'ui/src/main.ts')],
    outfile: join(outdir, 'app.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    // lightweight-charts' production build; `ws` is the SDK's Node fallback, never loaded in a browser.
    conditions: ['production'],
    external: ['ws'],
    legalComments: 'linked',
    logLevel: 'warning',
  });
  for (const file of STATIC) copyFileSync(join(root, 'ui', file), join(outdir, file));
  return { outdir, built: true };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--outdir');
  const result = await buildUi({ force: process.argv.includes('--force'), ...(at > 0 && { outdir: resolve(process.argv[at + 1]) }) });
  console.log(result.built ? `built ${result.outdir}` : `${result.outdir} is up to date`);
}
