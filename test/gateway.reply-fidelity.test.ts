/**
 * Byte fidelity of the compiled reply serializers: every reply a handler writes leaves the
 * server exactly as `JSON.stringify` writes the handler's body (the replies before the
 * operations declared their schemas), fields neither dropped, reordered nor reformatted.
 *
 * How: the app serves the operation table with each handler wrapped so the test sees the reply
 * object it returned; each response's bytes are compared with JSON.stringify of that object.
 * Passes: a tour of representative requests for every operation over a traded state (2xx
 * replies and refusals), the same over the WebSocket RPC, then schema-shaped bodies and queries
 * with signature checks off (test/support/fuzz-inputs.ts) for breadth. Error bodies written by
 * the app itself (validation, not found) are checked against their expected text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import WebSocket from 'ws';
import type { Operation, OperationRequest } from '../gateway/contract/operation.ts';
import { OPERATIONS } from '../gateway/operations/index.ts';
import { attachWebSocket } from '../gateway/ws/server.ts';
import { DAY_US, gateway, placeOrderRequest, USD, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';
import { batchRequest, cancelElement, cancelOrderRequest, modifyElement, modifyOrderRequest, placeElement, scheme2Request, timestampNs } from './support/order-write-signing.ts';
import { DEV_KEYS, evmWallet, signTransfer, signWithdraw, tradingWallet } from './support/wallet-signing.ts';
import { jsonText, queryText, shaped, type FuzzWorld, type JsonSchema } from './support/fuzz-inputs.ts';

interface Seen {
  name: string;
  status: number;
  json: string;
}

/** The replies the handlers returned, in order (one per request that reached a handler). */
const seen: Seen[] = [];

function recording(op: Operation): Operation {
  const note = (reply: { status: number; body: unknown }) => {
    seen.push({ name: op.name, status: reply.status, json: JSON.stringify(reply.body) });
    return reply;
  };
  return {
    ...op,
    handle: (state, request: OperationRequest) => {
      const out = op.handle(state, request);
      return out instanceof Promise ? out.then(note) : note(out);
    },
  } as Operation;
}

const alice = wallet(0xa1);
const bob = wallet(0xb2);
const carol = wallet(0xc3);
const owner = evmWallet(DEV_KEYS[0]);
const ownerWallet = tradingWallet(owner, 0xd0);

/** Per operation: how many replies were compared, and how many of them were 2xx. */
const compared = new Map<string, { all: number; ok: number }>();

let h: GatewayHarness;
let orderIds: string[] = [];
let tradeId = '1';

/** Sends a request; when a handler answered it, the response must be its reply, byte for byte. */
async function send(method: string, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const before = seen.length;
  const res = await h.app.inject({
    method: method as 'GET',
    url,
    headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
  const replies = seen.slice(before);
  if (replies.length > 0) {
    const reply = replies[replies.length - 1]!;
    expect(res.body, `${reply.name} ${reply.status}: ${url}`).toBe(reply.json);
    expect(res.statusCode).toBe(reply.status);
    const count = compared.get(reply.name) ?? { all: 0, ok: 0 };
    count.all += 1;
    if (reply.status < 300) count.ok += 1;
    compared.set(reply.name, count);
  }
  return { status: res.statusCode, body: res.body };
}

/** The header triple with a fresh signature each time (checks off, but replay slots still count). */
let signatures = 0;
const signedHeaders = (w: Wallet): Record<string, string> => ({ 'x-api-key': w.apiKey, 'x-timestamp': String(timestampNs(h)), 'x-signature': (++signatures).toString(16).padStart(128, '0') });

beforeAll(async () => {
  h = await gateway({ rateLimit: { enabled: false }, operations: OPERATIONS.map(recording) });
  for (const w of [alice, bob, carol, ownerWallet]) {
    h.key(w);
    h.fund(w, 1_000_000n);
  }
  const place = async (w: Wallet, side: 'BUY' | 'SELL', price: string, clientId: string) => {
    const req = placeOrderRequest(h, w, { side, quantity: '0.01', price, clientId });
    const res = await send('POST', req.url, req.payload, req.headers);
    expect(res.status).toBe(202);
    orderIds.push((JSON.parse(res.body) as { orderId: string }).orderId);
  };
  await place(alice, 'BUY', '96000', 'a-rest');
  await place(bob, 'SELL', '98000', 'b-rest');
  await place(alice, 'BUY', '97000', 'a-take');
  await place(bob, 'SELL', '97000', 'b-take');
  h.now.us += 2 * 3_600_000_000;
  const fills = JSON.parse((await send('GET', `/v1/fills?address=${alice.address}`)).body) as { fills: { tradeId: string }[] };
  tradeId = fills.fills[0]!.tradeId;
});

afterAll(async () => {
  await h.app.close();
});

describe('every handler reply leaves the server as JSON.stringify writes it', () => {
  it('market and account reads over a traded state', async () => {
    const a = `address=${alice.address}`;
    const reads = [
      '/',
      '/health',
      '/v1/time',
      '/v1/markets',
      '/v1/markets?market=ETH-USD',
      '/v1/bbo/BTC-USD',
      '/v1/bbo/SOL-USD',
      '/v1/l2OrderBook/BTC-USD?nLevels=10',
      '/v1/mids',
      '/v1/prices',
      '/v1/trades?market=BTC-USD',
      `/v1/trade/${tradeId}`,
      `/v1/trade?tradeId=${tradeId}`,
      `/v1/candles?market=BTC-USD&timeframe=1m&to=${h.now.us}&countback=5`,
      `/v1/api-meta/candles?market=BTC-USD&timeframe=1h&to=${Math.floor(h.now.us / 1e6)}&countback=3`,
      '/v1/fundingRates',
      '/v1/feetiers',
      `/v1/feetiers?${a}`,
      '/v1/compliance',
      `/v1/compliance?${a}`,
      '/v1/api-meta/markets',
      '/v1/api-meta/overview',
      '/v1/api-meta/spot/overview',
      '/v1/leaderboard',
      '/v1/spotAssets',
      `/v1/account?${a}`,
      `/v1/positions?${a}`,
      `/v1/leverages?${a}`,
      `/v1/account/stats?${a}`,
      `/v1/openOrders?${a}`,
      `/v1/orders?${a}`,
      `/v1/order/${orderIds[0]}?${a}`,
      `/v1/fills?${a}`,
      `/v1/fill/${tradeId}?${a}`,
      `/v1/funding?${a}`,
      `/v1/fundingPayments?${a}`,
      `/v1/interest?${a}`,
      `/v1/accountTransferUpdates?${a}`,
      `/v1/rateLimit?${a}`,
      `/v1/apiKeys?${a}`,
      `/v1/portfolio?${a}`,
      `/v1/spotPositions?${a}`,
      `/v1/spotFills?${a}`,
      '/v1/commissionrates',
      `/v1/affiliate/myReferrer?${a}`,
      `/v1/affiliate/claims?${a}`,
      `/v1/affiliate/claimStatus?${a}&id=1`,
      '/v1/affiliate/codeAvailable?code=FIDELITY',
      '/v1/affiliate/leaderboard',
      `/v1/api-meta/notifications?${a}`,
      `/v1/api-meta/userPreferences?${a}`,
    ];
    for (const url of reads) expect((await send('GET', url)).status, url).toBeLessThan(500);
    // Refusals a handler writes: unknown market, bad filter, no activity, not found.
    for (const url of ['/v1/bbo/NOPE-USD', `/v1/orders?${a}&status=NOPE`, `/v1/account?address=${'0x' + '9'.repeat(40)}`, `/v1/order/99999?${a}`]) {
      expect((await send('GET', url)).status, url).toBeGreaterThanOrEqual(400);
    }
  });

  it('order writes, their batches (202, 200, ERROR rows, 401 rows) and the Scheme 2 writes', async () => {
    const ts = timestampNs(h);
    const gtt = String(h.now.us + 40 * DAY_US);
    const placed = await send('POST', ...batchArgs(batchRequest(alice, 'batchPlaceOrders', [placeElement(h, alice, { quantity: '0.01', price: '95000.0', clientId: 'bp-1', goodTilTime: gtt }, ts), { accountIndex: 0, marketId: 1, price: 'x' }], ts)));
    expect(placed.status).toBe(202);
    const rows = (JSON.parse(placed.body) as { responses: { orderId: string; status: string }[] }).responses;
    expect(rows.map((r) => r.status)).toEqual(['ACK', 'ERROR']);
    const resting = { orderId: rows[0]!.orderId, clientId: 'bp-1', side: 'BUY' as const, timeInForce: 'GTT', reduceOnly: false, goodTilTime: gtt };
    const ts2 = timestampNs(h);
    expect((await send('POST', ...batchArgs(batchRequest(alice, 'batchModifyOrders', [modifyElement(h, alice, resting, { by: 'orderId', price: '95001.0', quantity: '0.01' }, ts2)], ts2)))).status).toBeLessThan(300);
    const single = await send('POST', ...batchArgs(modifyOrderRequest(h, alice, resting, { by: 'orderId', price: '95002.0', quantity: '0.01' })));
    expect(single.status).toBeLessThan(300);
    expect((await send('POST', ...batchArgs(cancelOrderRequest(h, alice, { orderId: '123456' })))).status).toBe(200);
    const ts3 = timestampNs(h);
    expect((await send('POST', ...batchArgs(batchRequest(alice, 'batchCancelOrders', [cancelElement(h, alice, { orderId: '123456' }, ts3)], ts3)))).status).toBe(200);
    const ts4 = timestampNs(h);
    expect((await send('POST', ...batchArgs(batchRequest(alice, 'batchCancelOrders', [cancelElement(h, alice, { orderId: rows[0]!.orderId }, ts4)], ts4)))).status).toBe(202);
    const ts5 = timestampNs(h);
    expect((await send('POST', ...batchArgs(batchRequest(alice, 'batchPlaceOrders', [placeElement(h, alice, { quantity: '0.01', price: '95000.0' }, ts5)], ts5, { xSignature: null })))).status).toBe(401);
    expect((await send('POST', ...batchArgs(scheme2Request(h, alice, 'cancelAllOrders', { address: alice.address, accountIndex: 0 })))).status).toBe(202);
    // A cancel of an order the account knows but that is already gone: REJECTED with its sizes
    // (optional fields between required ones; the serializer must keep their place).
    const late = await send('POST', ...batchArgs(cancelOrderRequest(h, alice, { orderId: orderIds[0]! })));
    expect(late.status).toBe(200);
    expect(Object.keys(JSON.parse(late.body) as object)).toEqual(expect.arrayContaining(['remainingSize', 'filledSize', 'rejectionReason']));
    expect((await send('POST', ...batchArgs(scheme2Request(h, alice, 'scheduleCancel', { address: alice.address, accountIndex: 0, time: h.now.us + 60_000_000 })))).status).toBe(200);
  });

  it('account, affiliate and notification writes with signature checks off', async () => {
    h.state.config.auth = false;
    try {
      const q = `?address=${alice.address}`;
      const writes: [string, Record<string, unknown>][] = [
        ['/v1/setLeverage', { address: alice.address, accountIndex: 0, marketId: 1, leverage: 5, isolated: false }],
        ['/v1/setLeverage', { address: alice.address, accountIndex: 0, marketId: 1, leverage: 500 }],
        ['/v1/setLeverage', { address: alice.address, accountIndex: 0, marketId: 2, leverage: 3, isolated: true }],
        ['/v1/adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 2, amount: '10' }],
        ['/v1/adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 2, amount: '-999999999' }],
        ['/v1/affiliate/createCode', { address: alice.address, code: 'FIDELITY', kickbackBps: 5 }],
        ['/v1/affiliate/modifyCode', { address: alice.address, code: 'FIDELITY2' }],
        ['/v1/affiliate/kickback', { address: alice.address, kickbackBps: 3 }],
        ['/v1/affiliate/redeemInvite', { address: alice.address, inviteCode: 'nope' }],
        ['/v1/api-meta/notifications/tokens', { token: 'tok-1', platform: 'ios' }],
        ['/v1/api-meta/notifications:markSeen', { all: true }],
        ['/v1/api-meta/userPreferences', { theme: 'dark', layout: { panes: [1, 2] } }],
      ];
      for (const [url, body] of writes) expect((await send('POST', url + q, body, signedHeaders(alice))).status, url).toBeLessThan(500);
      // carol has not traded yet: her binding to alice's code is still open.
      expect((await send('POST', `/v1/affiliate/registerAffiliate?address=${carol.address}`, { address: carol.address, code: 'FIDELITY2' }, signedHeaders(carol))).status).toBe(202);
      for (const url of ['/v1/affiliate/info', '/v1/affiliate/code', '/v1/affiliate/referees', '/v1/affiliate/commissions', '/v1/affiliate/inviteCodes', '/v1/affiliate/myReferrer', '/v1/api-meta/notifications']) {
        expect((await send('GET', url + q, undefined, signedHeaders(alice))).status, url).toBeLessThan(500);
      }
      expect((await send('GET', `/v1/affiliate/myReferrer?address=${carol.address}`)).status).toBe(200);
      // carol trades: alice earns a commission, claims it, and reads the claim back.
      const take = placeOrderRequest(h, carol, { side: 'BUY', quantity: '0.01', price: '98000' });
      expect((await send('POST', take.url, take.payload, take.headers)).status).toBe(202);
      expect((await send('POST', `/v1/affiliate/claim${q}`, { address: alice.address }, signedHeaders(alice))).status).toBe(202);
      const claims = JSON.parse((await send('GET', `/v1/affiliate/claims${q}`)).body) as { claims: { claimId: string }[] };
      expect((await send('GET', `/v1/affiliate/claimStatus${q}&id=${claims.claims[0]!.claimId}`)).status).toBe(200);
      expect((await send('GET', '/v1/affiliate/leaderboard')).status).toBe(200);
      expect((await send('POST', `/v1/affiliate/revokeCode${q}`, { address: alice.address }, signedHeaders(alice))).status).toBe(202);
    } finally {
      h.state.config.auth = true;
    }
    // The EIP-712 wallet writes, signed.
    const withdraw = { ethereumAddress: owner.address, accountIndex: 0, amount: 40n * USD, nonce: 'w-1' };
    expect((await send('POST', '/v1/withdraw', { ethereumAddress: owner.address, amount: String(40n * USD), nonce: 'w-1', signature: await signWithdraw(owner, withdraw) })).status).toBe(202);
    const transfer = { ethereumAddress: owner.address, fromAccountIndex: 0, toAccountIndex: 1, amount: USD, nonce: 't-1' };
    expect((await send('POST', '/v1/transfer', { ...transfer, amount: String(USD), signature: await signTransfer(owner, transfer) })).status).toBe(202);
    expect((await send('GET', `/v1/accountTransferUpdates?address=${owner.address}`)).status).toBe(200);
    expect((await send('POST', '/v1/createApiKey', { address: owner.address, publicKey: 'ab'.repeat(32), apiWalletName: 'x', signature: '0x' + '1'.repeat(130) })).status).toBeGreaterThanOrEqual(400);
    expect((await send('POST', '/v1/revokeApiKey', { address: owner.address, publicKey: 'ab'.repeat(32), apiWalletName: 'x', signature: '0x' + '1'.repeat(130) })).status).toBeGreaterThanOrEqual(400);
  });

  it('schema-shaped requests to every operation, signature checks off', async () => {
    const world: FuzzWorld = {
      addresses: [alice.address, bob.address],
      apiKeys: [alice.apiKey, bob.apiKey],
      markets: ['BTC-USD', 'ETH-USD', '1', '2'],
      marketIds: [1, 2],
      orderIds,
      clientIds: ['a-rest', 'b-rest'],
      tradeIds: [tradeId],
      nowUs: h.now.us,
      itemSchemas: {},
    };
    h.state.config.auth = false;
    try {
      for (const op of OPERATIONS) {
        const path = op.path.replace(':market', 'BTC-USD').replace(':orderId', orderIds[0]!).replace(':tradeId', tradeId);
        const query = op.method === 'GET' ? queryText(op.schema.querystring as JsonSchema | undefined, world) : fc.constant(`?address=${alice.address}`);
        const body = shaped((op.schema.body as JsonSchema | undefined) ?? { type: 'object', properties: {} }, world, '', 0, 3).map(jsonText);
        await fc.assert(
          fc.asyncProperty(query, body, async (q, b) => {
            const res = await send(op.method, path + q, op.method === 'POST' ? b : undefined, signedHeaders(alice));
            return res.status < 500;
          }),
          { seed: 0x5eed_f1de, numRuns: 12 },
        );
      }
    } finally {
      h.state.config.auth = true;
    }
  });

  it('every operation had its replies compared, and every read and order or cancel write a 2xx one', () => {
    const names = [...new Set(OPERATIONS.map((op) => op.name))];
    expect(names.filter((name) => compared.get(name) === undefined)).toEqual([]);
    const mustSucceed = OPERATIONS.filter((op) => !op.mutates || op.errorSource !== null).map((op) => op.name);
    expect([...new Set(mustSucceed)].filter((name) => (compared.get(name)?.ok ?? 0) === 0)).toEqual([]);
  });
});

describe('error bodies the app writes itself keep their field order', () => {
  it('a schema refusal on an order write: error, errorSource, errorType', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/v1/placeOrder', headers: { 'content-type': 'application/json' }, payload: '{"accountIndex":"x"}' });
    expect(res.statusCode).toBe(400);
    const body = res.json() as { error: string };
    expect(res.body).toBe(JSON.stringify({ error: body.error, errorSource: 'Order', errorType: 'InvalidRequest' }));
  });

  it('an unknown route: 404 {error}', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('{"error":"not found"}');
  });
});

describe('the WebSocket RPC writes the same bytes as REST', () => {
  it('a get result is the REST reply body of the same read, byte for byte', async () => {
    attachWebSocket(h.app, h.state);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as { port: number };
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/ws`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const frames: string[] = [];
    ws.on('message', (data) => frames.push(data.toString()));
    const a = alice.address;
    const reads: [string, Record<string, unknown>, string][] = [
      ['markets', {}, '/v1/markets'],
      ['account', { address: a }, `/v1/account?address=${a}`],
      ['fills', { address: a }, `/v1/fills?address=${a}`],
      ['orders', { address: a }, `/v1/orders?address=${a}`],
      ['l2OrderBook', { market: 'BTC-USD' }, '/v1/l2OrderBook/BTC-USD'],
      ['feeTiers', { address: a }, `/v1/feetiers?address=${a}`],
      ['leverages', { address: a }, `/v1/leverages?address=${a}`],
      ['portfolio', { address: a }, `/v1/portfolio?address=${a}`],
    ];
    let id = 0;
    for (const [method, payload, url] of reads) {
      id += 1;
      ws.send(JSON.stringify({ type: 'get', id, request: { type: method, payload } }));
      const marker = `"id":${id},`;
      const deadline = Date.now() + 10_000;
      while (!frames.some((f) => f.includes(marker)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const rest = await send('GET', url);
      expect(frames.find((f) => f.includes(marker)), method).toBe(`{"method":${JSON.stringify(method)},"id":${id},"status":200,"result":${rest.body}}`);
    }
    ws.close();
  });
});

/** A signed request as `send` arguments. */
function batchArgs(req: { url: string; payload: unknown; headers: Record<string, string> }): [string, unknown, Record<string, string>] {
  return [req.url, req.payload, req.headers];
}



