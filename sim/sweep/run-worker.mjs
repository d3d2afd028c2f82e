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

export default runOne;
