/**
 * The no-assertion guard's bookkeeping (vitest.config.ts sets `expect.requireAssertions`, so a
 * test that ends with no assertion fails; docs/decisions.md "A test that asserts nothing fails").
 *
 * Contract: `countAssertion` adds one to the running test's assertion count, as an `expect(…)`
 * call does. It is for checks that fail by throwing rather than through `expect` — fast-check's
 * `fc.assert` (counted for every test by ./assertion-guard.ts) and the support helpers that throw
 * on a broken invariant — and runs after the check passed, so it never counts a check that did
 * not run.
 */
import { expect } from 'vitest';

export function countAssertion(): void {
  expect.setState({ assertionCalls: expect.getState().assertionCalls + 1 });
}
