/**
 * The README's perpsim/testing examples run as written: the node:test one under `node --test`,
 * the vitest one under vitest, each in a child process with `perpsim/…` pointed at the sources.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The code block after `heading`, with perpsim's entries imported from the sources. */
function example(heading: string, lang: string): string {
  const at = README.indexOf(heading);
  expect(at, heading).toBeGreaterThan(0);
  const code = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(README.slice(at))![1]!;
  return code.replace(/from 'perpsim\/(client|testing)'/g, (_, entry: string) => `from ${JSON.stringify(join(REPO, entry, 'index.ts'))}`);
}

function run(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, args, { cwd, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } }, (_err, stdout, stderr) => resolve({ code: child.exitCode, output: stdout + stderr }));
  });
}

describe('README: startExchange examples', () => {
  // A folder inside the checkout (build/ is ignored by git), so that `vitest` and `tsx` resolve.
  const dir = join(REPO, 'build', `readme-examples-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the node:test example passes', async () => {
    writeFileSync(join(dir, 'example.test.mjs'), example('With `node:test`:', 'js'));
    const result = await run(['--import', 'tsx', '--test', 'example.test.mjs'], dir);
    // node:test prints a summary line "pass 1": after "# " in TAP (Node 20), "ℹ " in its spec reporter (Node 24).
    expect(result.output).toMatch(/^(# |ℹ )pass 1$/m);
    expect(result.code, result.output).toBe(0);
  });

  it('the vitest example passes', async () => {
    writeFileSync(join(dir, 'example.test.ts'), example('With vitest:', 'ts'));
    // A config of its own, or vitest would take the checkout's (its projects, its include patterns).
    writeFileSync(join(dir, 'vitest.config.mjs'), "export default { test: { include: ['example.test.ts'] } };\n");
    const result = await run([join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'), '--reporter', 'verbose'], dir);
    expect(result.output).toContain('my bot places an order');
    expect(result.output).toMatch(/Tests\s+1 passed/);
    expect(result.code, result.output).toBe(0);
  });
});
