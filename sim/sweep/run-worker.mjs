/**
 * A sweep worker thread's entry (piscina, pool.ts): registers tsx — its loader hooks do not
 * reach worker threads on Node 20, and strategies are TypeScript — then serves run.ts's
 * `runOne`, from the bundle pool.ts built when there is one. Plain JavaScript, so it loads under
 * any runner.
 */
import { workerData } from 'piscina';
import { register } from 'tsx/esm/api';

register();
const { runOne } = await import(workerData?.runModule ?? './run.ts');

/** The run's result, and the time it took in this thread (pool.ts counts it: the rest of a sweep's time is overhead). */
export default async function run(task) {
  const started = performance.now();
  const result = await runOne(task);
  return { result, ms: performance.now() - started };
}
