/**
 * Setup file of every test file (vitest.config.ts `setupFiles`): makes fast-check's `fc.assert`
 * count as an assertion under `expect.requireAssertions`.
 *
 * fc.assert hands every run's details to the configured reporter (fc.check never does: its
 * details are the caller's to assert on). This reporter counts one assertion and then does what
 * fast-check's default does: throws the report, with the property's own error as the cause, when
 * the run failed. Parameters a test passes to fc.assert still merge over it; a test that sets its
 * own reporter must count for itself.
 */
import fc from 'fast-check';
import { countAssertion } from './assertion-count.ts';

fc.configureGlobal({
  ...fc.readConfigureGlobal(),
  reporter(details) {
    countAssertion();
    if (details.failed) throw new Error(fc.defaultReportMessage(details), { cause: details.errorInstance });
  },
});
