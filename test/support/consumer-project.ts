/**
 * A fresh npm project that installs a packed perpsim tarball the way a user's `npm install` does,
 * offline and in seconds (test/package.pack.test.ts).
 *
 * How: the project gets a package-lock.json naming the tarball and, for its dependencies, the
 * runtime entries of this repo's lockfile (those not marked dev: the closure of `dependencies`,
 * at the versions this checkout was installed with), and `npm ci --offline` installs it from the
 * npm cache this checkout's own `npm ci` filled (from the registry, for what the cache lacks). So the tarball's dependency list is what gets
 * installed: a module the package imports without declaring it is missing there.
 *
 * Install scripts are skipped and the addon of better-sqlite3 12 (`better-sqlite3-node20`), the
 * one thing a script would build (from source here: about a minute), is copied from this
 * checkout's node_modules when the versions match (the same Node, the same source); otherwise
 * `npm rebuild` builds it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

const NPM_FLAGS = ['--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** Installs `tarball` into a new project at `dir` ("type": "module", nothing else). */
export function installPacked(repo: string, tarball: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const local = join(dir, basename(tarball));
  copyFileSync(tarball, local);
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', local, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
  const spec = `file:${basename(tarball)}`;
  const repoLock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', dependencies: { perpsim: spec } },
    'node_modules/perpsim': {
      version: manifest.version as string,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(local)).digest('base64')}`,
      ...(['license', 'dependencies', 'bin', 'engines'] as const).reduce((o, k) => (manifest[k] === undefined ? o : { ...o, [k]: manifest[k] }), {}),
    },
  };
  for (const [path, entry] of Object.entries(repoLock.packages)) {
    // devOptional: in the dev closure and in an optional runtime one (better-sqlite3-node20's), so kept.
    if (path === '' || entry.dev === true || !path.startsWith('node_modules/')) continue;
    packages[path] = entry;
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { perpsim: spec } }, null, 2));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }, null, 2));
  try {
    npm(['ci', ...NPM_FLAGS], dir);
  } catch {
    // A cache without some tarball (this checkout installed otherwise): fetch only what is missing.
    npm(['ci', ...NPM_FLAGS.map((f) => (f === '--offline' ? '--prefer-offline' : f))], dir);
  }
  // better-sqlite3 13 ships its addons prebuilt; 12 (better-sqlite3-node20, for Node 20) builds one.
  const addon = 'build/Release/better_sqlite3.node';
  const version = (d: string) => (JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as { version: string }).version;
  for (const name of ['better-sqlite3', 'better-sqlite3-node20']) {
    const ours = join(repo, 'node_modules', name);
    const theirs = join(dir, 'node_modules', name);
    if (!existsSync(join(ours, addon)) || !existsSync(theirs)) continue;
    if (version(ours) === version(theirs)) {
      mkdirSync(join(theirs, 'build/Release'), { recursive: true });
      copyFileSync(join(ours, addon), join(theirs, addon));
    } else {
      npm(['rebuild', name, '--no-audit', '--no-fund', '--loglevel=error'], dir);
    }
  }
}
