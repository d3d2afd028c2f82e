/**
 * No import cycle in engine/, gateway/, sim/ or client/, type-only imports included, within a
 * folder or across them: each module can be read (and initialised) after what it imports.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, importsOf } from './support/import-graph.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/import-cycle/', import.meta.url));
const FOLDERS = ['engine', 'gateway', 'sim', 'client'];

describe('import cycles', () => {
  const edges = importGraph(ROOT, FOLDERS);

  it('the lexer sees the source tree: the gateway\'s composition root imports the exchange, the read models and the services', () => {
    const fromRoot = edges.filter((e) => e.from === 'gateway/gateway.ts').map((e) => e.to);
    expect(fromRoot).toEqual(expect.arrayContaining(['gateway/read-models/exchange.ts', 'gateway/read-models/candles.ts', 'gateway/services/follow.ts', 'gateway/read-models/market-attributes.ts']));
    expect(edges.some((e) => e.from.startsWith('sim/') && e.to.startsWith('gateway/'))).toBe(true);
    expect(edges.some((e) => e.from.startsWith('client/'))).toBe(true);
  });

  it('none in engine/, gateway/, sim/ or client/, counting type-only imports', () => {
    expect(importCycles(edges).map((c) => c.join(' → '))).toEqual([]);
  });

  it('a cycle would be found: the fixture tree a → b → c → a (type-only links, a type re-export) is reported, and the module importing into it is not part of it', () => {
    const fixture = importGraph(FIXTURE);
    expect(fixture.filter((e) => e.to === 'a.ts')).toEqual([{ from: 'c.ts', to: 'a.ts', typeOnly: true }]);
    expect(importCycles(fixture)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('imports in comments and strings are not imports; type-only statements are told apart', () => {
    expect(importsOf("// import { x } from './x.ts'\nconst s = \"import './y.ts'\";\nimport type { T } from './t.ts';\nimport { type U, v } from './u.ts';\nimport { type W } from './w.ts';\nexport * from './e.ts';\nawait import('./lazy.ts');")).toEqual([
      { specifier: './t.ts', typeOnly: true },
      { specifier: './u.ts', typeOnly: false },
      { specifier: './w.ts', typeOnly: true },
      { specifier: './e.ts', typeOnly: false },
      { specifier: './lazy.ts', typeOnly: false },
    ]);
  });
});
