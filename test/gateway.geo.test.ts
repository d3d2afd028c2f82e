import { describe, expect, it } from 'vitest';
import { geoConfig } from '../gateway/http/geo.ts';
import { gateway, placeOrderRequest, wallet } from './support/gateway-fixture.ts';

const alice = wallet(0xa7);

describe('state-changing actions can be blocked for callers in restricted regions (code GEO_RESTRICTED); reads stay available', () => {
  async function blocked() {
    const h = await gateway();
    h.state.config.geo = geoConfig(['US']);
    h.fund(alice, 10_000n);
    h.key(alice);
    return h;
  }

  it('answers 403 with code GEO_RESTRICTED to a signed write from a blocked region', async () => {
    const h = await blocked();
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    const res = await h.app.inject({ method: 'POST', ...req, headers: { ...req.headers, 'x-perpsim-country': 'us' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'this operation is not available in your region', code: 'GEO_RESTRICTED' });
  });

  it('lets the same write through from another region or without a region', async () => {
    const h = await blocked();
    const fr = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    expect((await h.app.inject({ method: 'POST', ...fr, headers: { ...fr.headers, 'x-perpsim-country': 'FR' } })).statusCode).toBe(202);
    const none = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    expect((await h.app.inject({ method: 'POST', ...none })).statusCode).toBe(202);
  });

  it('keeps reads available and reports the restriction on /v1/compliance', async () => {
    const h = await blocked();
    const headers = { 'x-perpsim-country': 'US' };
    expect((await h.app.inject({ method: 'GET', url: '/v1/markets', headers })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: '/v1/compliance', headers })).json()).toEqual({ geo: { country: 'US', region: 'US', restrictions: { perpetuals: true, spot: true }, bypassed: false } });
    expect((await h.app.inject({ method: 'GET', url: '/v1/compliance' })).json()).toEqual({ geo: { country: '', region: '', restrictions: { perpetuals: false, spot: false }, bypassed: false } });
  });

  it('lets an allowlisted IP through, reported as bypassed', async () => {
    const h = await gateway();
    h.state.config.geo = geoConfig(['US'], ['127.0.0.1']);
    const res = await h.app.inject({ method: 'GET', url: '/v1/compliance', headers: { 'x-perpsim-country': 'US' } });
    expect(res.json()).toEqual({ geo: { country: 'US', region: 'US', restrictions: { perpetuals: true, spot: true }, bypassed: true } });
  });
});
