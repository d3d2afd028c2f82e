/**
 * Engines, exchanges and their records are built by shared code (plain-record builders, the
 * match hooks and the exchange as classes, one record sink for every engine) so that a thread
 * running backtest after backtest keeps its optimized code. Shared code must not mean shared
 * state: two engines (or exchanges) driven in turn in one process give, each, exactly what it
 * gives alone.
 */
import { describe, expect, it } from 'vitest';
import { apply, createEngine, eventAt, plainRecord, useEventRecords, type Command, type EngineEvent } from '../engine/index.ts';
import { createExchange } from '../gateway/read-models/exchange.ts';
import { createCommandStream, differentialConfig } from './support/differential-stream.ts';

const COMMANDS = 3_000;

/** `count` commands of the differential stream of `seed`, fed back by an engine of their own. */
function commands(seed: number, count: number): Command[] {
  const stream = createCommandStream(seed);
  const engine = createEngine(differentialConfig());
  const out: Command[] = [];
  for (let i = 0; i < count; i++) {
    const c = stream.next();
    stream.observe(c, apply(engine, c));
    out.push(c);
  }
  return out;
}

const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

/** Results and events of `cmds` on one engine of their own, in object or record mode. */
function alone(cmds: Command[], records: boolean): string[] {
  const out: string[] = [];
  const engine = createEngine(differentialConfig(), (e) => out.push(json(e)));
  if (records) useEventRecords(engine, (r) => { for (let i = 0; i < r.count; i++) out.push(json(eventAt(r, i))); });
  for (const c of cmds) out.push(json(apply(engine, c)));
  return out;
}

describe('engines built by shared code keep their own state', () => {
  const a = commands(11, COMMANDS);
  const b = commands(12, COMMANDS);

  for (const records of [false, true]) {
    it(`two engines driven in turn (${records ? 'record' : 'object'} mode) each give what they give alone`, () => {
      const outA: string[] = [];
      const outB: string[] = [];
      const ea = createEngine(differentialConfig(), (e) => outA.push(json(e)));
      const eb = createEngine(differentialConfig(), (e) => outB.push(json(e)));
      if (records) {
        useEventRecords(ea, (r) => { for (let i = 0; i < r.count; i++) outA.push(json(eventAt(r, i))); });
        useEventRecords(eb, (r) => { for (let i = 0; i < r.count; i++) outB.push(json(eventAt(r, i))); });
      }
      for (let i = 0; i < COMMANDS; i++) {
        outA.push(json(apply(ea, a[i]!)));
        outB.push(json(apply(eb, b[i]!)));
      }
      expect(outA).toEqual(alone(a, records));
      expect(outB).toEqual(alone(b, records));
      // The streams fill, match and cancel: the hooks and the sink did run.
      expect(outA.some((e) => e.includes('"type":"fill"'))).toBe(true);
    });
  }

  it('two exchanges driven in turn hand each listener its own events only', () => {
    let t = 0;
    const clock = (): number => t;
    const xa = createExchange(differentialConfig(), clock);
    const xb = createExchange(differentialConfig(), clock);
    const seenA: EngineEvent[][] = [];
    const seenB: EngineEvent[][] = [];
    xa.listeners.add((events) => seenA.push([...events]));
    xb.listeners.add((events) => seenB.push([...events]));
    const soloA: EngineEvent[][] = [];
    const solo = createExchange(differentialConfig(), clock);
    solo.listeners.add((events) => soloA.push([...events]));
    for (let i = 0; i < 500; i++) {
      const { time, ...rest } = a[i]!;
      t = time;
      xa.submit(rest);
      xb.applyStamped(b[i]!);
      solo.submit(rest);
    }
    expect(json(seenA)).toBe(json(soloA));
    expect(seenB.length).toBeGreaterThan(0);
    expect(json(seenB)).not.toBe(json(seenA));
    expect(xa.engine).not.toBe(xb.engine);
    expect(xa.orders).not.toBe(xb.orders);
  });
});

describe('plainRecord', () => {
  type Shape = { list: number[]; map: Map<string, number>; n: number };
  const build = plainRecord<Shape>();

  it('answers a new plain object with the fields in their order, sharing nothing between records', () => {
    const one = build({ list: [], map: new Map(), n: 1 });
    const two = build({ list: [], map: new Map(), n: 2 });
    expect(Object.getPrototypeOf(one)).toBe(Object.prototype);
    expect(Object.keys(one)).toEqual(['list', 'map', 'n']);
    one.list.push(7);
    one.map.set('x', 1);
    one.n = 5;
    expect(two).toEqual({ list: [], map: new Map(), n: 2 });
    expect(structuredClone(one)).toEqual(one);
  });

  it('copies a record with other keys as it is', () => {
    const odd = build({ n: 3, list: [1] } as unknown as Shape);
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.keys(odd)).toEqual(['n', 'list']);
    expect(odd).toEqual({ n: 3, list: [1] });
    const later = build({ list: [], map: new Map(), n: 4 });
    expect(Object.keys(later)).toEqual(['list', 'map', 'n']);
  });

  it('keeps keys that are not identifiers', () => {
    const weird = plainRecord<Record<string, number>>();
    const r = weird({ 'a"b': 1, "c'd\\": 2, '0x': 3 });
    expect(r).toEqual({ 'a"b': 1, "c'd\\": 2, '0x': 3 });
  });
});
