/**
 * REST replies against the live venue's captured shapes (docs/decisions.md "Fidelity to the
 * live venue"): field names and JSON types as public clients' captures show them. Fixtures are
 * written here from those facts (values of this harness, shapes of the venue), not copied.
 */
import { describe, expect, it } from 'vitest';
import { registerKey } from '../gateway/keys.ts';
import { gateway, T0_US, wallet, type GatewayHarness } from './support/gateway-fixture.ts';

const alice = wallet(0xa1);

async function get(h: GatewayHarness, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await h.app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, body: res.json() };
}

/** The JSON type of every field of `value`, recursively: the shape a strict parser checks. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, shapeOf(v)]));
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

describe('GET /v1/apiKeys answers a keyless call as the live venue does', () => {
  it('lists the address\'s keys with 200 and no X-API-Key header', async () => {
    const h = await gateway();
    registerKey(h.state.keys, { apiKey: alice.apiKey, address: alice.address, accountIndex: 0, apiWalletName: 'bot', permissions: ['trade'], validUntil: 0, createdAt: T0_US });
    const reply = await get(h, `/v1/apiKeys?address=${alice.address}`);
    expect(reply.status).toBe(200);
    // Live row (captured): apiKey, address, allSubaccounts, accountIndex (single-subaccount keys), apiWalletName, status, validUntil ms, createdAt µs.
    expect(shapeOf(reply.body)).toEqual({
      apiKeys: [{ apiKey: 'string', address: 'string', allSubaccounts: 'boolean', accountIndex: 'integer', apiWalletName: 'string', status: 'string', permissions: ['string'], validUntil: 'integer', createdAt: 'integer' }],
    });
  });

  it('an address without keys reads an empty list; a malformed address is still 400', async () => {
    const h = await gateway();
    expect(await get(h, `/v1/apiKeys?address=${alice.address}`)).toEqual({ status: 200, body: { apiKeys: [] } });
    expect((await get(h, '/v1/apiKeys?address=0x12')).status).toBe(400);
    expect((await get(h, '/v1/apiKeys')).status).toBe(400);
  });

  it('a presented key is still checked (interface: auth key)', async () => {
    const h = await gateway();
    expect((await get(h, `/v1/apiKeys?address=${alice.address}`, { 'x-api-key': alice.apiKey })).status).toBe(401);
  });
});

describe('GET /v1/compliance has the live geo and address sections', () => {
  it('geo carries country, region, restrictions {perpetuals, spot} and bypassed', async () => {
    const h = await gateway();
    const reply = await get(h, '/v1/compliance');
    expect(reply.status).toBe(200);
    expect(shapeOf(reply.body)).toEqual({ geo: { country: 'string', region: 'string', restrictions: { perpetuals: 'boolean', spot: 'boolean' }, bypassed: 'boolean' } });
  });

  it('the address section echoes the address (lowercase) with its status, as the live capture', async () => {
    const h = await gateway();
    const mixed = '0x000000000000000000000000000000000000dEaD';
    const reply = await get(h, `/v1/compliance?address=${mixed}`);
    expect(reply.body.address).toEqual({ address: mixed.toLowerCase(), status: 'COMPLIANT' });
  });
});
