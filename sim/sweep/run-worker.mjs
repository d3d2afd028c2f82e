/**
 * A sweep worker thread's entry (piscina, pool.ts): registers tsx — its loader hooks do not
 * reach worker threads on Node 20, and strategies are TypeScript — then serves run.ts's
 * `runOne`. Plain JavaScript, so it loads under any runner.
 */
import { register } from 'tsx/esm/api';

register();
const { runOne } = await import('./run.ts');

export default runOne;
