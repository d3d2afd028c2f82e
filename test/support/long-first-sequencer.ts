/**
 * Test file order for vitest (vitest.config.ts `sequence.sequencer`): the named files first, in
 * the order given, then vitest's own order for the rest.
 *
 * Why: a clean clone (CI) has no timing cache, and vitest then starts the largest files first by
 * bytes. Some of the longest files are short texts that spawn servers or benchmarks, so they
 * started last and one worker ran on alone while the other sat idle. The list names the files
 * that take longest (docs/benchmarks.md, "ci11"); a stale entry only runs a file early.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function longFirst(paths: readonly string[]): typeof BaseSequencer {
  const rank = new Map(paths.map((path, i) => [path, i]));
  return class LongFirstSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const sorted = await super.sort(files);
      const rankOf = (spec: TestSpecification): number => rank.get(relative(spec.project.config.root, spec.moduleId)) ?? paths.length;
      // Array.prototype.sort is stable: files off the list keep vitest's order.
      return sorted.sort((a, b) => rankOf(a) - rankOf(b));
    }
  };
}
