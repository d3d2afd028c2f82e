import { describe, expect, it } from 'vitest';
import { runCrashCycles } from './crash/crash-cycles.ts';
import { tempDb } from './support/persistence-fixture.ts';

// The short form of `npm run test:crash` (test/crash/main.ts runs 20 cycles).
describe('after a crash (kill -9 at any moment) every write that got a 2xx reply is present after restart, and the state hash equals a from-scratch replay of the journal', () => {
  it('survives 3 kill -9 cycles of signed writes against a real server process', async () => {
    const lines: string[] = [];
    const result = await runCrashCycles({ cycles: 3, db: tempDb(), seed: 3, log: (line) => lines.push(line) });
    expect(result.cyclesPassed).toBe(3);
    expect(result.writesChecked).toBeGreaterThan(0);
    expect(lines).toHaveLength(3);
  }, 240_000);
});
