/**
 * perpsim's CLI as a child process of a benchmark, the way `npm start` runs it (scripts/start.mjs:
 * the esbuild bundle of sim/main.ts, rebuilt when a source is newer), so its resident memory is
 * its own: started with node directly (no npm wrapper process), its URL read from the
 * pino "perpsim listening" line, its RSS read from /proc/<pid>/status (Linux) and its heap
 * from bench/memory-probe.ts (preloaded into the child, reporting over the IPC channel). Used by
 * bench/fanout.bench.ts and bench/soak.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ProbeReport = NodeJS.MemoryUsage & { loopDelayP99Ms: number; loopDelayMaxMs: number };

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  pid: number;
  /** Resident set size now, bytes (VmRSS); 0 once the process is gone. */
  rssBytes(): number;
  /** CPU time used so far (user + system), ms. */
  cpuMs(): number;
  /** The latest report of the child's probe: memory (heapUsed, heapTotal, external, ... bytes) and its event-loop delay over the last period. */
  memory(): ProbeReport | undefined;
  /** SIGTERM, then SIGKILL after 10 s; resolves when it has exited. */
  stop(): Promise<void>;
}

const START = fileURLToPath(new URL('../scripts/start.mjs', import.meta.url));
const PROBE = new URL('./memory-probe.mjs', import.meta.url).href;

/** CPU time the process has used (user + system), ms, from /proc/<pid>/stat; 0 once it is gone. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

export function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** Starts `perpsim serve <args>` (add --port 0); resolves once it listens. */
/** `root`: another checkout whose scripts/start.mjs runs instead of this one's (a baseline build). */
export function startServerProcess(args: readonly string[], options: { nodeArgs?: readonly string[]; timeoutMs?: number; root?: string } = {}): Promise<ServerProcess> {
  const start = options.root === undefined ? START : join(options.root, 'scripts', 'start.mjs');
  // The listen line is an info line (and NODE_ENV=test, as under vitest, makes the default silent).
  if (!args.includes('--log-level')) args = [...args, '--log-level', 'info'];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', PROBE, start, 'serve', ...args], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let memory: ProbeReport | undefined;
  child.on('message', (message: { kind?: string } & ProbeReport) => {
    if (message.kind === 'memory') memory = message;
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let pending = '';
    let resolved = false;
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`perpsim did not listen within ${options.timeoutMs ?? 90_000} ms`));
    }, options.timeoutMs ?? 90_000);
    child.once('exit', (code) => {
      if (resolved) return;
      clearTimeout(timer);
      reject(new Error(`perpsim exited (${code}) before listening`));
    });
    // Read every line (pino writes to a pipe; an unread pipe would block the server).
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      if (resolved) return;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg !== 'perpsim listening' || entry.url === undefined) continue;
        resolved = true;
        clearTimeout(timer);
        resolve({ child, url: entry.url, pid: child.pid!, rssBytes: () => rssOf(child.pid!), cpuMs: () => cpuMsOf(child.pid!), memory: () => memory, stop });
      }
    });
  });
}
