/**
 * The `perpsim` command (package.json bin → bin/perpsim.mjs; in a checkout it runs the sources
 * through scripts/start.mjs): version, help, and usage errors that exit 2 with the usage.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../bin/perpsim.mjs', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function perpsim(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

describe('the perpsim command line', () => {
  it('--version and -v print the package version and exit 0', async () => {
    for (const flag of ['--version', '-v']) {
      const run = await perpsim(flag);
      expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    }
  });

  it('--help lists every subcommand and the default command\'s options, exit 0', async () => {
    const run = await perpsim('--help');
    expect(run.code).toBe(0);
    for (const command of ['serve', 'backtest', 'record', 'convert', 'load']) expect(run.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    expect(run.stdout).toContain('--port <port>');
    expect(run.stdout).toContain('-v, --version');
  });

  it('an unknown subcommand exits 2 naming it, the commands and the usage', async () => {
    const run = await perpsim('frobnicate');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'frobnicate'");
    const listed = /\(commands: ([^)]*)\)/.exec(run.stderr)?.[1]?.split(', ') ?? [];
    expect(listed).toEqual(expect.arrayContaining(['serve', 'backtest', 'record', 'convert', 'load']));
    expect(run.stderr).toContain('Usage: perpsim serve [options]');
  });

  it('an unknown option exits 2 naming it with the usage, at the top and in a subcommand', async () => {
    const top = await perpsim('--frobnicate');
    expect(top.code).toBe(2);
    expect(top.stderr).toContain("unknown option '--frobnicate'");
    expect(top.stderr).toContain('Usage: perpsim serve [options]');
    // Each with its required options, so the unknown one is the only fault.
    const commands = { load: [], backtest: ['strategy.ts', '--data', 'sim'], record: ['--url', 'ws://127.0.0.1:1/v1/ws', '--out', 'x.jsonl'], convert: [] };
    const runs = await Promise.all(Object.entries(commands).map(async ([command, args]) => ({ command, run: await perpsim(command, ...args, '--frobnicate') })));
    for (const { command, run } of runs) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("unknown option '--frobnicate'");
      expect(run.stderr).toContain(`Usage: perpsim ${command} [options]`);
    }
  });
});
