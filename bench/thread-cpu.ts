/**
 * CPU time per thread and per process, for the gateway and ws benches' per-order CPU figures
 * (the process-wide `process.cpuUsage()` also counts the verification threads).
 *
 * Linux only: `/proc/thread-self/schedstat` (ns on the CPU, the calling thread) and
 * `/proc/<pid>/stat` (utime + stime in clock ticks, 100 per second). NaN elsewhere.
 */
import { readFileSync } from 'node:fs';

const TICK_US = 10_000;

/** CPU time of the calling thread so far, µs. */
export function threadCpuUs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1000;
  } catch {
    return Number.NaN;
  }
}

/** CPU time of process `pid` so far (all its threads), µs, to 10 ms. */
export function processCpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return Number.NaN;
  }
}
