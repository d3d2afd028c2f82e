/**
 * Backtest replay speed: events/s of a recorded file through a do-nothing strategy (no hooks:
 * the replay's fast path — parse, book update, nothing for the engine) and through the example
 * market maker (hooks on every book update, orders through the gateway operations and the
 * engine, queue model on every trade).
 *
 * The recording is generated with a seeded generator (sim/backtest/generate.ts) into the temp
 * directory, once per event count, and is not committed. BENCH_EVENTS sets the count
 * (default 10,000,000). Wall time includes reading and parsing the file. The do-nothing run is
 * measured twice: on the reader's fast route (the figure) and with every line JSON.parsed (the
 * same-run baseline, `jsonParseEventsPerSec`). Ends with one JSON line:
 * {"bench":"backtest","eventsPerSec":…,"marketMakerEventsPerSec":…,"jsonParseEventsPerSec":…}.
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Backtest, type ParseMode, type Strategy } from '../index.ts';
import { marketMaker } from '../examples/market-maker.ts';
import { generateRecording } from '../sim/backtest/generate.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { envInt } from './env.ts';

const EVENTS = envInt('BENCH_EVENTS', 10_000_000);
const START = 1_735_689_600_000_000;

function recordingFile(): string {
  const path = join(tmpdir(), `perpsim-bench-backtest-${EVENTS}-seed7.jsonl`);
  if (!existsSync(path)) {
    const t0 = performance.now();
    const partial = `${path}.partial`;
    generateRecording(partial, { market: defaultMarkets()[0]!, startTicks: 970_000, events: EVENTS, seed: 7, start: START });
    renameSync(partial, path);
    console.log(`generated ${path} (${(statSync(path).size / 1e6).toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return path;
}

async function measure(name: string, file: string, strategy: Strategy, parse: ParseMode = 'fast'): Promise<number> {
  globalThis.gc?.();
  const t0 = performance.now();
  const result = await new Backtest({ data: { file, parse }, markets: ['BTC-USD'] }, strategy).run();
  const seconds = (performance.now() - t0) / 1000;
  const rate = Math.round(result.summary.events / seconds);
  console.log(`${name}: ${result.summary.events} events in ${seconds.toFixed(2)} s = ${rate} events/s (fills ${result.summary.fills.total})`);
  return rate;
}

const file = recordingFile();
const eventsPerSec = await measure('do-nothing', file, {});
const jsonParseEventsPerSec = await measure('do-nothing, JSON.parse route', file, {}, 'json');
const marketMakerEventsPerSec = await measure('market maker', file, marketMaker({ requoteMs: 1_000 }));
console.log(JSON.stringify({ bench: 'backtest', events: EVENTS, eventsPerSec, marketMakerEventsPerSec, jsonParseEventsPerSec }));
