/**
 * Preloaded (`--import`) into a benchmark's perpsim child: sends the parent its
 * `process.memoryUsage()` every `PERPSIM_MEMORY_PROBE_MS` (default 500) over the IPC channel,
 * so the bench reads the server's heap as well as its RSS. Does nothing without a channel.
 * Plain JavaScript: the child runs npm start's bundle, without tsx.
 */
if (process.send !== undefined) {
  const every = Number(process.env.PERPSIM_MEMORY_PROBE_MS ?? 500);
  // A parent that went away must not take the server down: send errors go to the callback.
  const ignore = () => undefined;
  const report = () => {
    if (process.connected) process.send({ kind: 'memory', at: Date.now(), ...process.memoryUsage() }, undefined, {}, ignore);
  };
  setInterval(report, every).unref();
  // The channel must not keep the server alive on its own.
  process.channel?.unref();
}
