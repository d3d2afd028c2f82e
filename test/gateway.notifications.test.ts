import { beforeEach, describe, expect, it } from 'vitest';
import { priceToTicks } from '../engine/index.ts';
import { scheme2Message, type JsonValue } from '../gateway/auth/index.ts';
import { DAY_US, gateway, placeOrderRequest, scheme2Headers, USD, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';

const alice = wallet(0x21);
const bob = wallet(0x22);

const TOKENS = '/v1/api-meta/notifications/tokens';
const MARK = '/v1/api-meta/notifications:markSeen';
const INBOX = '/v1/api-meta/notifications';
const PREFS = '/v1/api-meta/userPreferences';

interface Item {
  notificationId: number;
  createdAtNs: string;
  type: string;
  marketId: number;
  accountIndex: number;
  seen: boolean;
  payload: Record<string, unknown>;
}
interface Inbox {
  notifications: Item[];
  unseen: number;
  nextBeforeNs: string | null;
}

/** Signed with the notifications path verbatim as the action (interface.md Scheme 2). */
async function signedPost(h: GatewayHarness, w: Wallet, path: string, body: Record<string, unknown>, method: 'POST' | 'PATCH' = 'POST') {
  return h.app.inject({ method, url: path, payload: body, headers: scheme2Headers(h, w, path, body as JsonValue) });
}

/** userPreferences writes sign the last path segment. */
async function prefsPost(h: GatewayHarness, w: Wallet, body: Record<string, unknown>) {
  return h.app.inject({ method: 'POST', url: PREFS, payload: body, headers: scheme2Headers(h, w, 'userPreferences', body as JsonValue) });
}

async function inbox(h: GatewayHarness, w: Wallet, query = ''): Promise<Inbox> {
  const res = await h.app.inject({ method: 'GET', url: `${INBOX}?address=${w.address}${query}` });
  expect(res.statusCode).toBe(200);
  return res.json() as Inbox;
}

const token = (n: number): string => `ExponentPushToken[device-${n}]`;

let h: GatewayHarness;
beforeEach(async () => {
  h = await gateway({ rateLimit: { enabled: false } });
  h.key(alice);
  h.key(bob);
});

describe('push tokens: upsert, idempotent, at most 20 per wallet, at most 256 characters, shape-checked, platform informational, bound to the key\'s wallet', () => {
  it('registers a token once however often it is sent, and updates its platform', async () => {
    const first = await signedPost(h, alice, TOKENS, { token: token(1), platform: 'ios' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ token: token(1), platform: 'ios', tokens: 1 });
    const again = await signedPost(h, alice, TOKENS, { token: token(1), platform: 'android' });
    expect(again.json()).toEqual({ token: token(1), platform: 'android', tokens: 1 });
    expect((await signedPost(h, alice, TOKENS, { token: token(2) })).json()).toEqual({ token: token(2), platform: null, tokens: 2 });
  });

  it('refuses a 21st device, an over-long, a malformed token and an unknown platform with 400', async () => {
    for (let i = 0; i < 20; i++) expect((await signedPost(h, alice, TOKENS, { token: token(i) })).statusCode).toBe(200);
    const extra = await signedPost(h, alice, TOKENS, { token: token(99) });
    expect(extra.statusCode).toBe(400);
    expect(typeof (extra.json() as { error: string }).error).toBe('string');
    expect((await signedPost(h, alice, TOKENS, { token: token(5) })).statusCode).toBe(200);
    expect((await signedPost(h, bob, TOKENS, { token: `ExponentPushToken[${'x'.repeat(240)}]` })).statusCode).toBe(400);
    expect((await signedPost(h, bob, TOKENS, { token: 'not-a-token' })).statusCode).toBe(400);
    expect((await signedPost(h, bob, TOKENS, { token: token(1), platform: 'symbian' })).statusCode).toBe(400);
  });

  it('needs a Scheme 2 signature over the path (401 otherwise) and an address, if sent, of the key\'s wallet (403)', async () => {
    const body = { token: token(1) };
    const ts = (BigInt(h.now.us) * 1000n + 7n).toString();
    const lastSegmentOnly = { 'x-api-key': alice.apiKey, 'x-timestamp': ts, 'x-signature': h.sign(scheme2Message(ts, 'wrong', body), alice), 'content-type': 'application/json' };
    expect((await h.app.inject({ method: 'POST', url: TOKENS, payload: body, headers: lastSegmentOnly })).statusCode).toBe(401);
    expect((await signedPost(h, alice, TOKENS, { ...body, address: bob.address })).statusCode).toBe(403);
  });

  it('registering a token enrols the wallet: its next deposit lands in the inbox', async () => {
    await signedPost(h, alice, TOKENS, { token: token(1) });
    h.fund(alice, 100n);
    expect((await inbox(h, alice)).notifications.map((n) => n.type)).toEqual(['DEPOSIT']);
  });
});

describe('the inbox: the first read enrols the wallet; createdAtNs is a decimal string of the simulated clock; before_ns pages back', () => {
  it('keeps nothing before enrolment, then a deposit notification with the transfer payload and marketId 0', async () => {
    h.fund(alice, 100n);
    expect(await inbox(h, alice)).toEqual({ notifications: [], unseen: 0, nextBeforeNs: null });
    h.now.us += 1000;
    h.fund(alice, 250n, 3);
    const [n] = (await inbox(h, alice)).notifications;
    expect(n).toMatchObject({ type: 'DEPOSIT', marketId: 0, accountIndex: 3, seen: false, payload: { subaccountIdx: 3, amount: '250.0', netQuoteBalance: '250.0' } });
    expect(typeof n!.payload.operationId).toBe('number');
    expect(n!.createdAtNs).toBe((BigInt(h.now.us) * 1000n).toString());
  });

  it('pages newest first with before_ns until nextBeforeNs is null, each notification once', async () => {
    await inbox(h, alice);
    for (let i = 0; i < 5; i++) h.fund(alice, BigInt(10 + i));
    const seen: string[] = [];
    let query = '&limit=2';
    for (;;) {
      const page = await inbox(h, alice, query);
      seen.push(...page.notifications.map((n) => n.createdAtNs));
      if (page.nextBeforeNs === null) break;
      query = `&limit=2&before_ns=${page.nextBeforeNs}`;
    }
    expect(seen.length).toBe(5);
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort((x, y) => (BigInt(y) > BigInt(x) ? 1 : -1))).toEqual(seen);
  });

  it('answers 400 for a before_ns that is not decimal digits', async () => {
    for (const bad of ['abc', '1.5', '-3']) {
      const res = await h.app.inject({ method: 'GET', url: `${INBOX}?address=${alice.address}&before_ns=${bad}` });
      expect(res.statusCode, bad).toBe(400);
    }
  });
});

describe('notifications for resting fills, liquidations, TP/SL triggers, deposits and withdrawals', () => {
  it('notifies the maker of a resting fill (not the taker), a withdrawal, a TP/SL trigger and a liquidation', async () => {
    h.fund(alice, 100_000n);
    h.fund(bob, 100_000n);
    await inbox(h, alice);
    await inbox(h, bob);
    await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { side: 'SELL', quantity: '0.1', price: '97000.0' }) });
    await h.app.inject({ method: 'POST', ...placeOrderRequest(h, bob, { side: 'BUY', quantity: '0.1', price: '97000.0' }) });
    const makerFill = (await inbox(h, alice)).notifications[0]!;
    expect(makerFill).toMatchObject({ type: 'FILL', marketId: 1, payload: { role: 'MAKER', side: 'SELL', size: '0.1' } });
    expect((await inbox(h, bob)).notifications.filter((n) => n.type === 'FILL')).toEqual([]);

    h.exchange.submit({ type: 'withdraw', address: bob.address, accountIndex: 0, amount: 5n * USD, nonce: 'w1' });
    expect((await inbox(h, bob)).notifications[0]).toMatchObject({ type: 'WITHDRAWAL', marketId: 0, payload: { amount: '5.0', subaccountIdx: 0 } });

    // bob is long 0.1 BTC: a position stop-loss at 90,000, then the oracle falls through it.
    const spec = h.exchange.engine.markets.get(1)!.spec;
    const placed = h.exchange.submit({
      type: 'placeOrder', address: bob.address, accountIndex: 0, marketId: 1, side: 1, orderType: 0, tif: 0,
      price: priceToTicks(spec, '89000')!, size: 0, reduceOnly: true, goodTilTime: h.now.us + 40 * DAY_US,
      tpslType: 'STOP_LOSS', stopPrice: priceToTicks(spec, '90000')!, isPositionTpsl: true,
    });
    expect(placed.kind).toBe('order');
    h.now.us += 1_000_000;
    h.exchange.submit({ type: 'setOraclePrice', marketId: 1, price: priceToTicks(spec, '89500')! });
    expect((await inbox(h, bob)).notifications.map((n) => n.type)).toContain('TPSL_TRIGGERED');

    h.exchange.submit({ type: 'forceLiquidation', address: alice.address, accountIndex: 0 });
    expect((await inbox(h, alice)).notifications[0]).toMatchObject({ type: 'LIQUIDATION', accountIndex: 0, payload: { isolated: false } });
  });
});

describe('markSeen: exactly one of ids (string or number created_at_ns) or all=true + limit; replies `marked`; idempotent', () => {
  beforeEach(async () => {
    await inbox(h, alice);
    for (let i = 0; i < 4; i++) h.fund(alice, BigInt(10 + i));
  });

  it('marks by ids, a string or a bare number created_at_ns, and answers how many flipped', async () => {
    const items = (await inbox(h, alice)).notifications;
    const ids = [
      { created_at_ns: items[0]!.createdAtNs, notification_id: items[0]!.notificationId },
      { created_at_ns: Number(items[1]!.createdAtNs), notification_id: String(items[1]!.notificationId) },
      { created_at_ns: '1', notification_id: 999_999 },
    ];
    const res = await signedPost(h, alice, MARK, { ids });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ marked: 2 });
    expect((await signedPost(h, alice, MARK, { ids })).json()).toEqual({ marked: 0 });
    const after = await inbox(h, alice);
    expect(after.unseen).toBe(2);
    expect(after.notifications.map((n) => n.seen)).toEqual([true, true, false, false]);
  });

  it('all=true marks the most recent `limit`, then everything', async () => {
    expect((await signedPost(h, alice, MARK, { all: true, limit: 3 })).json()).toEqual({ marked: 3 });
    expect((await inbox(h, alice)).unseen).toBe(1);
    expect((await signedPost(h, alice, MARK, { all: true })).json()).toEqual({ marked: 1 });
    expect((await signedPost(h, alice, MARK, { all: true })).json()).toEqual({ marked: 0 });
  });

  it('answers 400 for both or neither of all and ids, and for all=false', async () => {
    const items = (await inbox(h, alice)).notifications;
    const ids = [{ created_at_ns: items[0]!.createdAtNs, notification_id: items[0]!.notificationId }];
    for (const body of [{}, { all: true, ids }, { all: false }, { limit: 2 }]) {
      const res = await signedPost(h, alice, MARK, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(typeof (res.json() as { error: string }).error).toBe('string');
    }
    expect((await inbox(h, alice)).unseen).toBe(4);
  });
});

describe('userPreferences: public read by address; signed writes of known keys merge into the document; null or DELETE ?key= removes', () => {
  it('reads {} before any write, then the merged document', async () => {
    expect((await h.app.inject({ method: 'GET', url: `${PREFS}?address=${alice.address}` })).json()).toEqual({ address: alice.address, preferences: {} });
    const first = await h.app.inject({ method: 'PATCH', url: PREFS, payload: { language: 'en', favoritedMarkets: [1, 2] }, headers: scheme2Headers(h, alice, 'userPreferences', { language: 'en', favoritedMarkets: [1, 2] }) });
    expect(first.statusCode).toBe(200);
    const second = await prefsPost(h, alice, { colorTheme: 'dark', language: null });
    expect(second.json()).toEqual({ address: alice.address, preferences: { favoritedMarkets: [1, 2], colorTheme: 'dark' } });
    const ts = (BigInt(h.now.us) * 1000n + 11n).toString();
    const del = await h.app.inject({ method: 'DELETE', url: `${PREFS}?key=colorTheme`, headers: { 'x-api-key': alice.apiKey, 'x-timestamp': ts, 'x-signature': h.sign(`${ts}userPreferences`, alice) } });
    expect(del.statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: `${PREFS}?address=${alice.address}` })).json()).toEqual({ address: alice.address, preferences: { favoritedMarkets: [1, 2] } });
    expect((await h.app.inject({ method: 'GET', url: `${PREFS}?address=${bob.address}` })).json()).toEqual({ address: bob.address, preferences: {} });
  });

  it('refuses unknown keys, wrong value types and empty writes with 400, leaving the document as it was', async () => {
    await prefsPost(h, alice, { language: 'en' });
    for (const body of [{ nope: 1 }, { favoritedMarkets: ['BTC'] }, { isPerpLayoutLocked: 'yes' }, {}, { language: 'fr', lastSignedTOS: -1 }, { subaccountPreferences: { x: { name: 'a' } } }]) {
      const res = await prefsPost(h, alice, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await h.app.inject({ method: 'GET', url: `${PREFS}?address=${alice.address}` })).json()).toEqual({ address: alice.address, preferences: { language: 'en' } });
  });

  it('needs a valid signature (401)', async () => {
    const headers = scheme2Headers(h, alice, 'userPreferences', { language: 'de' });
    expect((await h.app.inject({ method: 'PATCH', url: PREFS, payload: { language: 'en' }, headers })).statusCode).toBe(401);
  });
});
