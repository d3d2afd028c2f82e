/**
 * Backtest replay speed: events/s of a recorded file through a do-nothing strategy (no hooks:
 * the replay's fast path — read, book update, nothing for the engine) and through the example
 * market maker (hooks on every book update, orders through the gateway operations and the
 * engine, queue model on every trade).
 *
 * The recording is generated with a seeded generator (sim/backtest/generate.ts) into the temp
 * directory, once per event count, and converted once to the binary format (`perpsim convert`,
 * binary-format.ts) next to it; neither is committed. BENCH_EVENTS sets the count (default
 * 10,000,000). Wall time includes reading the file (and starting the JSONL reader thread).
 * Figures: the do-nothing strategy on the binary file (`eventsPerSec`), on the JSONL by the
 * default route (`jsonlEventsPerSec`: the worker route, a reader thread scanning while this one
 * replays, for files of 256 MB and more: WORKER_MIN_BYTES in open-market-data.ts), through the byte scanner in this thread
 * (`jsonlInThreadEventsPerSec`, the same-run baseline of the worker route) and with every line
 * JSON.parsed (`jsonParseEventsPerSec`), and the market maker on the binary file. Each line
 * also gives the process CPU time per event, both threads counted. Ends with one JSON line:
 * {"bench":"backtest","eventsPerSec":…,"marketMakerEventsPerSec":…,"jsonlEventsPerSec":…,"jsonlInThreadEventsPerSec":…,"jsonParseEventsPerSec":…}.
 */
import { Backtest, type ParseMode, type Strategy } from '../index.ts';
import { marketMaker } from '../examples/market-maker.ts';
import { WORKER_MIN_BYTES } from '../sim/backtest/open-market-data.ts';
import { envInt } from './env.ts';
import { binaryFile, recordingFile } from './recording.ts';

const EVENTS = envInt('BENCH_EVENTS', 10_000_000);

async function measure(name: string, file: string, strategy: Strategy, parse: ParseMode = 'fast'): Promise<number> {
  globalThis.gc?.();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await new Backtest({ data: { file, parse }, markets: ['BTC-USD'] }, strategy).run();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const rate = Math.round(result.summary.events / seconds);
  const perCpuSecond = Math.round(result.summary.events / ((cpu.user + cpu.system) / 1e6));
  console.log(`${name}: ${result.summary.events} events in ${seconds.toFixed(2)} s = ${rate} events/s, ${perCpuSecond} per CPU second (fills ${result.summary.fills.total})`);
  return rate;
}

const file = recordingFile(EVENTS);
const binary = binaryFile(file);
const eventsPerSec = await measure('do-nothing, binary file', binary, {});
const jsonlEventsPerSec = await measure(`do-nothing, JSONL default route (reader threads from ${WORKER_MIN_BYTES / 2 ** 20} MB)`, file, {});
const jsonlInThreadEventsPerSec = await measure('do-nothing, JSONL byte scanner in this thread', file, {}, 'scan');
const jsonParseEventsPerSec = await measure('do-nothing, JSONL with every line JSON.parsed', file, {}, 'json');
const marketMakerEventsPerSec = await measure('market maker, binary file', binary, marketMaker({ requoteMs: 1_000 }));
console.log(JSON.stringify({ bench: 'backtest', events: EVENTS, eventsPerSec, marketMakerEventsPerSec, jsonlEventsPerSec, jsonlInThreadEventsPerSec, jsonParseEventsPerSec }));
