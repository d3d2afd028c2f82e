/**
 * The suite's guard against tests that check nothing (vitest.config.ts, test/support/assertion-guard.ts):
 * a test that ends with no assertion fails, and fast-check's fc.assert and the counting helpers
 * are assertions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countAssertion } from './support/assertion-count.ts';

describe('a test must assert something', () => {
  it.fails('a test that returns early without asserting fails', () => {
    if (Math.max(1, 2) === 2) return;
    expect(true).toBe(true);
  });

  it.fails('an async test that asserts nothing fails', async () => {
    await Promise.resolve();
  });

  it('fc.assert of a property that returns a boolean counts as an assertion', () => {
    const before = expect.getState().assertionCalls;
    fc.assert(fc.property(fc.integer(), (n) => n + 0 === n));
    // Read without expect(): the count fc.assert added is the only one.
    if (expect.getState().assertionCalls !== before + 1) throw new Error(`fc.assert counted ${expect.getState().assertionCalls - before} assertions`);
  });

  it('fc.assert of an async property counts as an assertion', async () => {
    await fc.assert(fc.asyncProperty(fc.integer(), async (n) => n * 1 === n));
  });

  it('fc.assert of a false property still throws, with the counterexample and the cause', () => {
    let error: unknown;
    try {
      fc.assert(fc.property(fc.integer({ min: 0, max: 10 }), (n) => {
        if (n > 5) throw new RangeError(`too big: ${n}`);
      }), { seed: 1 });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/Property failed after \d+ tests[\s\S]*Counterexample: \[6\]/);
    expect((error as Error).cause).toBeInstanceOf(RangeError);
  });

  it('fc.check does not count: its details are for the test to assert on', () => {
    const before = expect.getState().assertionCalls;
    const details = fc.check(fc.property(fc.integer(), () => true));
    const counted = expect.getState().assertionCalls - before;
    expect({ counted, failed: details.failed }).toEqual({ counted: 0, failed: false });
  });

  it('a helper that throws on failure counts once it passed', () => {
    const check = (ok: boolean): void => {
      if (!ok) throw new Error('broken invariant');
      countAssertion();
    };
    check(true);
  });
});
