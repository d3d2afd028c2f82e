/**
 * `npm run test:crash`: 20 kill -9 cycles against a real server on a temporary database
 * (test/crash/crash-cycles.ts). Exits 1 on the first broken promise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCrashCycles } from './crash-cycles.ts';

const dir = mkdtempSync(join(tmpdir(), 'perpsim-crash-'));
const cycles = Number(process.env.CRASH_CYCLES ?? 20);
try {
  const result = await runCrashCycles({ cycles, db: join(dir, 'perpsim.db'), log: (line) => console.log(line) });
  console.log(`cycles passed ${result.cyclesPassed}, writes checked ${result.writesChecked}`);
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
