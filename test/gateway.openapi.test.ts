import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../gateway/operations/index.ts';
import { gateway } from './support/gateway-fixture.ts';

describe('an OpenAPI 3 document generated from the route schemas, served at /openapi.json, with a docs page', () => {
  it('lists every operation with its method and the request schema that validates it', async () => {
    const h = await gateway();
    const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>> };
    expect(doc.openapi).toMatch(/^3\./);
    for (const op of OPERATIONS) {
      // Params start a segment; a colon inside one is literal (notifications:markSeen).
      const path = op.path.replace(/\/:(\w+)/g, '/{$1}');
      expect(doc.paths[path]?.[op.method.toLowerCase()], `${op.method} ${op.path}`).toBeDefined();
    }
    expect(doc.paths['/v1/placeOrder']!.post!.requestBody).toBeDefined();
  });

  it('serves the docs page', async () => {
    const h = await gateway();
    const res = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect([200, 302]).toContain(res.statusCode);
  });
});
