import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

describe("the SDK's reply types agree with the gateway's reply schemas", () => {
  it("type-checks client.types.test-d.ts: the schemas' replies are values of the SDK's types", async () => {
    // The project's compiler options, this one file (and what it imports).
    const dir = await mkdtemp(join(tmpdir(), 'perpsim-types-'));
    try {
      const config = join(dir, 'tsconfig.json');
      await writeFile(config, JSON.stringify({ extends: join(root, 'tsconfig.json'), compilerOptions: { typeRoots: [join(root, 'node_modules', '@types')] }, files: [join(root, 'test', 'client.types.test-d.ts')], include: [] }));
      const run = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', config]).then(
        () => ({ code: 0, out: '' }),
        (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, out: error.stdout ?? String(error) }),
      );
      expect(run).toEqual({ code: 0, out: '' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
