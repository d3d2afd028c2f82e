/**
 * Preloaded (`--import`) into a benchmark's perpsim child: sends the parent its
 * `process.memoryUsage()` and its event-loop delay every `PERPSIM_MEMORY_PROBE_MS` (default 500)
 * over the IPC channel, so the bench reads the server's heap and responsiveness as well as its RSS. Does nothing without a channel.
 * Plain JavaScript: the child runs npm start's bundle, without tsx.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

if (process.send !== undefined) {
  const every = Number(process.env.PERPSIM_MEMORY_PROBE_MS ?? 500);
  // The event loop's delay over each period (p99 and max, ms): the server's own responsiveness,
  // apart from the clients' and the machine's.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // A parent that went away must not take the server down: send errors go to the callback.
  const ignore = () => undefined;
  const report = () => {
    const loop = { loopDelayP99Ms: delay.percentile(99) / 1e6, loopDelayMaxMs: delay.max / 1e6 };
    delay.reset();
    if (process.connected) process.send({ kind: 'memory', at: Date.now(), ...process.memoryUsage(), ...loop }, undefined, {}, ignore);
  };
  setInterval(report, every).unref();
  // The channel must not keep the server alive on its own.
  process.channel?.unref();
}
