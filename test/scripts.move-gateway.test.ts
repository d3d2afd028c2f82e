/**
 * scripts/dev/move-gateway.mjs's rewriting, on texts (the move itself was tried on a copy of
 * the tree: docs/decisions.md, "Gateway wiring"): every relative specifier that names a moved
 * module, or that a moved module makes, points at the new place; nothing else changes.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { rewrite } from '../scripts/dev/move-gateway.mjs';

const MOVES = { 'gateway/read-models/exchange.ts': 'gateway/read-models/exchange.ts', 'gateway/contract/operation.ts': 'gateway/contract/operation.ts' };

describe('move-gateway: import rewriting', () => {
  it('rewrites an importer elsewhere: static, type-only, re-export, dynamic, side-effect; leaves the other specifiers alone', () => {
    const text = [
      "import { createExchange } from '../gateway/read-models/exchange.ts';",
      "import type {\n  GatewayState,\n} from '../gateway/contract/operation.ts';",
      "export type { Exchange } from '../gateway/read-models/exchange.ts';",
      "const m = await import('../gateway/read-models/exchange.ts');",
      "import '../gateway/read-models/exchange.ts';",
      "import { buildApp } from '../gateway/http/app.ts';",
    ].join('\n');
    expect(rewrite(text, 'sim/server.ts', MOVES)).toBe([
      "import { createExchange } from '../gateway/read-models/exchange.ts';",
      "import type {\n  GatewayState,\n} from '../gateway/contract/operation.ts';",
      "export type { Exchange } from '../gateway/read-models/exchange.ts';",
      "const m = await import('../gateway/read-models/exchange.ts');",
      "import '../gateway/read-models/exchange.ts';",
      "import { buildApp } from '../gateway/http/app.ts';",
    ].join('\n'));
  });

  it('rewrites a moved module\'s own imports, of moved and unmoved modules, with ./ inside a folder', () => {
    const text = "import type { GatewayState } from './operation.ts';\nimport { usd } from './format.ts';\nimport { LIMITS } from '../engine/spec.ts';";
    expect(rewrite(text, 'gateway/read-models/exchange.ts', MOVES)).toBe("import type { GatewayState } from '../contract/operation.ts';\nimport { usd } from '../format.ts';\nimport { LIMITS } from '../../engine/spec.ts';");
    // Both into the same folder: the specifier stays.
    expect(rewrite("import { x } from './exchange.ts';", 'gateway/neighbour.ts', { 'gateway/read-models/exchange.ts': 'gateway/x/exchange.ts', 'gateway/neighbour.ts': 'gateway/x/n.ts' })).toBeUndefined();
  });

  it('follows path mentions in comments, not inside longer paths; an untouched text answers undefined', () => {
    expect(rewrite("// see gateway/read-models/exchange.ts and gateway/exchange.tsx\nconst a = 1;", 'sim/a.ts', MOVES)).toBe("// see gateway/read-models/exchange.ts and gateway/exchange.tsx\nconst a = 1;");
    expect(rewrite("import { a } from './a.ts';", 'sim/b.ts', MOVES)).toBeUndefined();
  });
});
