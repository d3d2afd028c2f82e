/**
 * The perpsim CLI as a child process for the sweep tests (`node --import tsx sim/main.ts ...`),
 * and a small sweep setup: the example market maker over a few simulated minutes.
 */
import { execFile } from 'node:child_process';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function perpsim(args: string[], timeoutMs = 180_000): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'sim/main.ts', ...args], { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

/** A short sim window (5 simulated minutes) and one market: each run takes about a second. */
export const SHORT_SIM = ['--data', 'sim', '--markets', 'BTC-USD', '--to', '2025-01-01T00:05:00Z', '--sample-ms', '10000'];
