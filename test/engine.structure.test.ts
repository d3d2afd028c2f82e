/**
 * The engine's module structure: no import cycle inside engine/ (type-only imports included),
 * the order lifecycle below the command modules, and engine.ts imported only by the package
 * entry (engine/index.ts).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './support/import-graph.ts';

const ENGINE = fileURLToPath(new URL('../engine/', import.meta.url));

describe('engine/ module structure', () => {
  const edges = importGraph(ENGINE);

  it('the parser sees the engine: engine.ts imports the lifecycle and every command module', () => {
    const fromEngine = edges.filter((e) => e.from === 'engine.ts').map((e) => e.to);
    expect(fromEngine).toEqual(expect.arrayContaining(['lifecycle.ts', 'commands/place.ts', 'commands/modify.ts', 'commands/cancel.ts', 'commands/risk.ts']));
  });

  it('no import cycle inside engine/, counting type-only imports', () => {
    expect(importCycles(edges).map((c) => c.join(' → '))).toEqual([]);
  });

  it('a cycle would be found: the checker reports one in a graph that has it', () => {
    expect(importCycles([
      { from: 'a.ts', to: 'b.ts', typeOnly: false },
      { from: 'b.ts', to: 'c.ts', typeOnly: true },
      { from: 'c.ts', to: 'a.ts', typeOnly: false },
    ])).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('the lifecycle, liquidation and settlement import no command module, and only index.ts imports engine.ts', () => {
    const low = ['lifecycle.ts', 'liquidation.ts', 'settlement.ts', 'risk.ts', 'emit.ts'];
    expect(edges.filter((e) => low.includes(e.from) && e.to.startsWith('commands/'))).toEqual([]);
    expect(edges.filter((e) => e.to === 'engine.ts').map((e) => e.from)).toEqual(['index.ts']);
  });
});
