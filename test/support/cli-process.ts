/**
 * The perpsim command line as a child process, the way `npm start` runs it (`tsx sim/main.ts`),
 * for tests that need the real CLI: waits for its pino "perpsim listening" line and reads the URL
 * from it. `stop` kills the process group (npm and tsx start children of their own).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface CliProcess {
  child: ChildProcess;
  /** The listening URL, from the start log line. */
  url: string;
  /** performance.now() when the process was spawned and when its listen line arrived. */
  spawnedAt: number;
  listeningAt: number;
  stop(): Promise<void>;
}

export interface CliStart {
  /** The command and its arguments, e.g. ['npm', 'start', '--', '--port', '0']. */
  command: string[];
  env?: Record<string, string>;
  /** How long start-up may take before the test gives up (ms). */
  timeoutMs?: number;
}

export function startCli(options: CliStart): Promise<CliProcess> {
  const [command, ...args] = options.command;
  const spawnedAt = performance.now();
  // detached: its own process group, so stop() reaches npm's and tsx's children too.
  const child = spawn(command!, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    await exited;
  };
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`no listen line within ${options.timeoutMs ?? 30_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      const listeningAt = performance.now();
      stdout += chunk.toString();
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg !== 'perpsim listening' || entry.url === undefined) continue;
        clearTimeout(timer);
        resolve({ child, url: entry.url, spawnedAt, listeningAt, stop });
        return;
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`perpsim exited with ${String(code)} before listening\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}
