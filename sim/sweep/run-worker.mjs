/**
 * A sweep worker thread's entry (piscina, pool.ts). It loads run.ts's bundle (pool.ts) as plain
 * JavaScript, then the strategies the pool names in `preload`, and tells the pool it is ready
 * with what that cost, all before the first task. tsx's loader is registered only for a
 * strategy that needs it (TypeScript): its hooks run every later import through a loader
 * thread, so registering them first made loading the bundle's packages several times slower.
 * Plain JavaScript, so it loads under any runner.
 *
 * The same file is a worker process's entry (pool.ts, `isolation: 'processes'`): forked with
 * its start data in PERPSIM_SWEEP_WORKER (JSON), it reports and answers over the IPC channel.
 */
import { readFileSync } from 'node:fs';
import { parentPort, threadId, workerData } from 'node:worker_threads';

/** This thread's CPU time so far, ms (Linux's schedstat on Node 20; NaN where neither is there). */
function threadCpuMs() {
  if (typeof process.threadCpuUsage === 'function') {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  }
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

let tsx;
/** Registers tsx's loader once, before the first module that is not plain JavaScript. */
async function loaderFor(file) {
  if (/\.[cm]?js$/.test(file) || tsx !== undefined) return;
  tsx = (await import('tsx/esm/api')).register();
}

const inProcess = parentPort === null && typeof process.send === 'function';
const data = inProcess ? JSON.parse(process.env.PERPSIM_SWEEP_WORKER ?? '{}') : workerData;
const report = (message) => (inProcess ? process.send(message) : parentPort?.postMessage(message));
const runModule = data?.runModule ?? null;
if (runModule === null) await loaderFor('run.ts');
const { runOne, loadStrategy } = await import(runModule ?? './run.ts');

const preloaded = [];
const failed = [];
for (const file of data?.preload ?? []) {
  try {
    await loaderFor(file);
    await loadStrategy(file);
    preloaded.push(file);
  } catch {
    // The runs of this strategy report why (run.ts keeps the failure).
    failed.push(file);
  }
}
const created = data?.created;
report({
  sweepThreadStart: { wallMs: typeof created === 'number' ? performance.timeOrigin + performance.now() - created : Number.NaN, cpuMs: threadCpuMs(), preloaded, failed },
});

/** The run's result, the wall and CPU time it took in this thread, and the thread's CPU in total (pool.ts counts them: the rest of a sweep's time is overhead). */
export default async function run(task) {
  const started = performance.now();
  const cpu = threadCpuMs();
  await loaderFor(task.strategyFile);
  const result = await runOne(task);
  const total = threadCpuMs();
  return { result, ms: performance.now() - started, cpuMs: total - cpu, threadCpuMs: total, threadId: inProcess ? process.pid : threadId };
}

// A worker process takes one task at a time: {id, task} in, {id, reply} out.
if (inProcess) process.on('message', (message) => void run(message.task).then((reply) => process.send({ id: message.id, reply })));
