import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { simHarness } from './support/sim-harness.ts';

const sim = simHarness();

/** "METHOD /sim/path" of every row of the README's control-route table. */
function readmeRoutes(): Set<string> {
  const rows = readFileSync(new URL('../README.md', import.meta.url), 'utf8').split('\n');
  const routes = new Set<string>();
  for (const row of rows) {
    const m = /^\|\s*(GET|POST|DELETE|PUT)\s*\|\s*`?(\/sim\/[^\s|`]+)`?\s*\|/.exec(row);
    if (m !== null) routes.add(`${m[1]} ${m[2]}`);
  }
  return routes;
}

async function openApiRoutes(): Promise<Map<string, { requestBody?: unknown; parameters?: unknown[] }>> {
  const doc = (await sim.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>> };
  const routes = new Map<string, { requestBody?: unknown; parameters?: unknown[] }>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith('/sim/')) continue;
    for (const [method, op] of Object.entries(methods)) routes.set(`${method.toUpperCase()} ${path}`, op);
  }
  return routes;
}

describe('every control route documented in README (a table) and in the OpenAPI doc', () => {
  it('lists the control API of issue 6 in the OpenAPI document, with the schemas that validate it', async () => {
    await sim.start();
    const routes = await openApiRoutes();
    for (const route of ['POST /sim/deposit', 'POST /sim/apiKeys', 'POST /sim/oracle', 'POST /sim/funding', 'POST /sim/liquidate', 'POST /sim/halt', 'GET /sim/clock', 'POST /sim/clock', 'GET /sim/faults', 'POST /sim/faults', 'DELETE /sim/faults', 'GET /sim/journal']) {
      expect(routes.has(route), route).toBe(true);
    }
    expect(routes.get('POST /sim/faults')!.requestBody).toBeDefined();
    expect(routes.get('GET /sim/journal')!.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'address' }), expect.objectContaining({ name: 'limit' })]));
  });

  it('has a README row for every control route of the OpenAPI document, and no row for a route that does not exist', async () => {
    await sim.start();
    const documented = readmeRoutes();
    const served = new Set((await openApiRoutes()).keys());
    expect([...served].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((r) => !served.has(r))).toEqual([]);
  });
});
