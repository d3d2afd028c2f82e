#!/usr/bin/env node
/**
 * `npm test`'s set-up (`pretest`): the Debian packages the test suite needs, installed when
 * missing. As root with apt-get it runs `apt-get update` and `apt-get install -y` for the missing
 * ones and says so; otherwise it names what to install and exits 1. A feature whose tests need
 * another program adds a line to PACKAGES. PERPSIM_TEST_SETUP=skip skips the check (the tests
 * that need a missing program then fail, each naming it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian package, the file whose presence means it is installed, and what needs it. */
export const PACKAGES = [
  { deb: 'chromium', file: '/usr/bin/chromium', usedBy: 'the backtest report, sweep page, web console and browser SDK tests (playwright-core drives it)' },
  { deb: 'redis-server', file: '/usr/bin/redis-server', usedBy: 'the sweep queue test (BullMQ on a redis-server it starts on a free port)' },
];

function main() {
  if (process.env.PERPSIM_TEST_SETUP === 'skip') return 0;
  const missing = PACKAGES.filter((p) => !existsSync(p.file));
  if (missing.length === 0) return 0;
  const names = missing.map((p) => p.deb);
  for (const p of missing) console.error(`test set-up: ${p.file} is missing (Debian package ${p.deb}, for ${p.usedBy})`);
  const root = process.getuid?.() === 0;
  const aptGet = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!root || !aptGet) {
    console.error(`test set-up: install ${root ? 'them' : 'them as root'}: apt-get install -y ${names.join(' ')}`);
    console.error('  (or run with PERPSIM_TEST_SETUP=skip: the tests that need them will fail)');
    return 1;
  }
  console.error(`test set-up: installing ${names.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', ...names]]) {
    const run = spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    if (run.status !== 0) {
      console.error(`test set-up: apt-get ${args.join(' ')} failed (exit ${run.status})`);
      return 1;
    }
  }
  const still = missing.filter((p) => !existsSync(p.file));
  if (still.length > 0) {
    console.error(`test set-up: still missing after apt-get: ${still.map((p) => p.file).join(', ')}`);
    return 1;
  }
  console.error(`test set-up: installed ${names.join(', ')}`);
  return 0;
}

process.exitCode = main();
