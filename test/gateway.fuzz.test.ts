/**
 * Fuzz test of the REST gateway: thousands of malformed bodies, queries and headers sent to
 * every route of the operation table, with no 5xx, no crash, and every refusal in the venue's
 * error shape (interface.md "Error body").
 *
 * What is checked on every response: status below 500; the body parses as JSON; a 4xx body is
 * an object with a string `error`, and `errorType` / `errorSource` / `rejectionReason`, when
 * present, come from engine/spec.ts's lists; a 429 carries `Retry-After`.
 *
 * Passes, each over every operation in OPERATIONS (new routes are fuzzed without touching this
 * file; inputs are derived from each operation's schema by test/support/fuzz-inputs.ts):
 * 1. hostile requests: path params, query, header triple and body all fuzzed at once;
 * 2. well-formed headers (a registered key, in-window timestamp, 128-hex signature that does
 *    not verify) with schema-shaped bodies, so the checks after the schema run;
 * 3. the same bodies signed correctly as Scheme 2 over the raw bytes, which verifies on the
 *    Scheme 2 routes and is a well-formed wrong signature on the others;
 * 4. signature checks off (perpsim --no-auth), so fuzzed values reach the engine;
 * 5. well-formed, correctly signed orders with out-of-range values;
 * 6. oversized and deeply nested inputs;
 * 7. a short pass with rate limits on, where 429s must carry `Retry-After`.
 * Then the engine must still take a signed order (202), answer /health, and Object.prototype
 * must be untouched.
 *
 * Rate limits are off for passes 1-6 so 429s from the IP bucket do not mask the handlers.
 * fast-check runs with a fixed seed; a failure prints the shrunk request.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { ERROR_SOURCES, ERROR_TYPES, REJECTION_REASONS } from '../engine/spec.ts';
import { lastPathSegment, scheme2Message } from '../gateway/auth/index.ts';
import type { Operation } from '../gateway/contract/operation.ts';
import { OPERATIONS } from '../gateway/operations/index.ts';
import { DAY_US, gateway, placeOrderRequest, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';
import { countAssertion } from './support/assertion-count.ts';
import {
  describeRequest,
  headerSet,
  hex,
  jsonBody,
  pathText,
  queryText,
  shaped,
  jsonText,
  type FuzzRequest,
  type FuzzWorld,
  type JsonSchema,
} from './support/fuzz-inputs.ts';

const SEED = 0x5eed_f022;
/** Runs per operation and pass; the whole file stays well under 30 s. */
const RUNS = { hostile: 90, shapedBadSignature: 50, scheme2Signed: 50, noAuth: 60, outOfRange: 100, limited: 400 } as const;

const alice = wallet(0xa1);
const bob = wallet(0xb2);
const carol = wallet(0xc3);

// ---------------------------------------------------------------------------------------------
// The response contract.

const ERROR_TYPE_SET: ReadonlySet<string> = new Set(ERROR_TYPES);
const ERROR_SOURCE_SET: ReadonlySet<string> = new Set(ERROR_SOURCES);
const REJECTION_REASON_SET: ReadonlySet<string> = new Set(REJECTION_REASONS);

/** What is wrong with a response, or null when it keeps the contract. */
function contractBreach(res: LightMyRequestResponse): string | null {
  if (res.statusCode >= 500) return `status ${res.statusCode}: ${res.body.slice(0, 300)}`;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `status ${res.statusCode}: body is not JSON: ${JSON.stringify(res.body.slice(0, 300))}`;
  }
  if (res.statusCode >= 400) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return `status ${res.statusCode}: error body is not an object: ${res.body.slice(0, 300)}`;
    const fields = body as Record<string, unknown>;
    if (typeof fields.error !== 'string') return `status ${res.statusCode}: error body has no string error: ${res.body.slice(0, 300)}`;
    if ('errorType' in fields && !ERROR_TYPE_SET.has(fields.errorType as string)) return `unknown errorType ${JSON.stringify(fields.errorType)}`;
    if ('errorSource' in fields && !ERROR_SOURCE_SET.has(fields.errorSource as string)) return `unknown errorSource ${JSON.stringify(fields.errorSource)}`;
    if ('rejectionReason' in fields && !REJECTION_REASON_SET.has(fields.rejectionReason as string)) return `unknown rejectionReason ${JSON.stringify(fields.rejectionReason)}`;
  }
  if (res.statusCode === 429 && res.headers['retry-after'] === undefined) return '429 without Retry-After';
  return null;
}

// ---------------------------------------------------------------------------------------------

/** The routes that verify a Scheme 2 signature over the body (canonical_json). */
const SCHEME2_ROUTES = ['cancelAllOrders', 'scheduleCancel', 'setLeverage', 'adjustIsolatedMargin'] as const;

/** Sends a request and throws on a breach of the response contract (the check: it counts as an assertion). */
async function send(h: GatewayHarness, request: FuzzRequest): Promise<LightMyRequestResponse> {
  const res = await h.app.inject({ method: request.method, url: request.url, headers: request.headers, ...(request.payload === undefined ? {} : { payload: request.payload }) });
  const breach = contractBreach(res);
  if (breach !== null) throw new Error(`${breach}\n${describeRequest(request)}`);
  countAssertion();
  return res;
}

// ---------------------------------------------------------------------------------------------
// The world under test: two funded, keyed accounts with resting orders and one trade.

/** Array elements the table leaves open, by field name: the single write's body. */
function itemSchemas(): Record<string, JsonSchema> {
  const bodyOf = (name: string): JsonSchema | undefined => OPERATIONS.find((op) => op.name === name)?.schema?.body as JsonSchema | undefined;
  const out: Record<string, JsonSchema> = {};
  for (const [field, name] of [['orders', 'placeOrder'], ['cancels', 'cancelOrder'], ['modifies', 'modifyOrder']] as const) {
    const schema = bodyOf(name);
    if (schema !== undefined) out[field] = schema;
  }
  return out;
}

async function seededGateway(rateLimit: boolean): Promise<{ h: GatewayHarness; world: FuzzWorld }> {
  const h = await gateway({ rateLimit: { enabled: rateLimit } });
  for (const w of [alice, bob]) {
    h.key(w);
    h.fund(w, 1_000_000n);
  }
  const orderIds: string[] = [];
  const place = async (w: Wallet, side: 'BUY' | 'SELL', price: string, clientId: string): Promise<void> => {
    const req = placeOrderRequest(h, w, { side, quantity: '0.01', price, clientId });
    const res = await h.app.inject({ method: 'POST', url: req.url, headers: req.headers, payload: req.payload });
    expect(res.statusCode).toBe(202);
    orderIds.push((res.json() as { orderId: string }).orderId);
  };
  await place(alice, 'BUY', '96000', 'a-rest');
  await place(bob, 'SELL', '98000', 'b-rest');
  await place(alice, 'BUY', '97000', 'a-take');
  await place(bob, 'SELL', '97000', 'b-take');
  const fills = (await h.app.inject({ method: 'GET', url: `/v1/fills?address=${alice.address}` })).json() as { fills?: Array<{ tradeId?: string }> };
  const tradeIds = (fills.fills ?? []).flatMap((f) => (f.tradeId === undefined ? [] : [f.tradeId]));
  const markets = [...h.exchange.engine.markets.values()].map((ms) => ms.spec);
  const world: FuzzWorld = {
    addresses: [alice.address, bob.address],
    apiKeys: [alice.apiKey, bob.apiKey],
    markets: [...markets.map((m) => m.displayName), ...markets.map((m) => String(m.id))],
    marketIds: markets.map((m) => m.id),
    orderIds,
    clientIds: ['a-rest', 'b-rest', 'a-take', 'b-take'],
    tradeIds,
    nowUs: h.now.us,
    itemSchemas: itemSchemas(),
  };
  return { h, world };
}

// ---------------------------------------------------------------------------------------------
// Requests.

const querySchema = (op: Operation): JsonSchema | undefined => op.schema?.querystring as JsonSchema | undefined;
const bodySchema = (op: Operation): JsonSchema | undefined => op.schema?.body as JsonSchema | undefined;

/** Everything fuzzed at once: path params, query, headers, body. */
function hostileRequest(op: Operation, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({ path: pathText(op.path, world), query: queryText(querySchema(op), world), headers: headerSet(world), payload: jsonBody(bodySchema(op), world), method: fc.constantFrom(op.method, op.method, op.method, op.method === 'GET' ? 'POST' : 'GET') })
    .map(({ path, query, headers, payload, method }) => ({ method, url: path + query, headers, payload: method === 'GET' && op.method === 'GET' ? undefined : payload }));
}

/** A registered key, an in-window unique timestamp and a 128-hex signature. */
let stamp = 0n;
function freshTimestamp(world: FuzzWorld): string {
  stamp += 1n;
  return String(BigInt(world.nowUs) * 1000n + 1_000_000n + stamp);
}

/** The address query a signed route expects, sometimes absent or another account's. */
const addressQuery = (world: FuzzWorld): fc.Arbitrary<string> =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(`?address=${world.addresses[0]}`) }, { weight: 1, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryText(undefined, world) });

interface ShapedParts {
  path: string;
  query: string;
  body: string;
  signature: string;
  keyIndex: number;
}

function shapedParts(op: Operation, world: FuzzWorld, mutation: number): fc.Arbitrary<ShapedParts> {
  const schema = bodySchema(op) ?? { type: 'object', properties: {} };
  return fc.record({
    path: pathText(op.path, world),
    query: op.method === 'GET' ? queryText(querySchema(op), world) : addressQuery(world),
    body: shaped(schema, world, '', 0, mutation).map(jsonText),
    signature: hex(128),
    keyIndex: fc.constantFrom(0, 0, 0, 1),
  });
}

function shapedRequest(op: Operation, world: FuzzWorld, parts: ShapedParts, sign?: (message: string) => string): FuzzRequest {
  const timestamp = freshTimestamp(world);
  const url = parts.path + parts.query;
  const payload = op.method === 'POST' ? parts.body : undefined;
  const signature = sign === undefined ? parts.signature : sign(`${timestamp}${lastPathSegment(url)}${payload ?? ''}`);
  return {
    method: op.method,
    url,
    headers: { 'x-api-key': world.apiKeys[parts.keyIndex]!, 'x-timestamp': timestamp, 'x-signature': signature, 'content-type': 'application/json' },
    payload,
  };
}

const runs = (numRuns: number): fc.Parameters<unknown> => ({ seed: SEED, numRuns });

// ---------------------------------------------------------------------------------------------
// Passes 1-6: rate limits off.

describe('every route answers hostile requests with < 500 and the error shape (rate limits off)', () => {
  let h: GatewayHarness;
  let world: FuzzWorld;
  beforeAll(async () => {
    ({ h, world } = await seededGateway(false));
  });
  afterAll(async () => {
    await h.app.close();
  });
  // A fuzzed createApiKey / revokeApiKey that gets through (signature checks off) replaces or
  // revokes a world key: restore them so later requests still reach past the key lookup.
  const restoreKeys = (): void => {
    h.key(alice);
    h.key(bob);
  };
  beforeEach(restoreKeys);

  describe.each(OPERATIONS.map((op) => [`${op.name} ${op.method} ${op.path}`, op] as const))('%s', (_label, op) => {
    it('fuzzed path params, query, header triple and body', async () => {
      await fc.assert(fc.asyncProperty(hostileRequest(op, world), async (request) => void (await send(h, request))), runs(RUNS.hostile));
    });

    it('schema-shaped query and body with a registered key and a signature that does not verify', async () => {
      await fc.assert(fc.asyncProperty(shapedParts(op, world, 8), async (parts) => void (await send(h, shapedRequest(op, world, parts)))), runs(RUNS.shapedBadSignature));
    });

    if (op.auth !== 'public') {
      it('schema-shaped body signed as Scheme 2 over its raw bytes', async () => {
        const secret = [alice, bob];
        await fc.assert(
          fc.asyncProperty(shapedParts(op, world, 8), async (parts) => void (await send(h, shapedRequest(op, world, parts, (m) => h.sign(m, secret[parts.keyIndex]!))))),
          runs(RUNS.scheme2Signed),
        );
      });

      it('schema-shaped body with signature checks off reaches the handler and the engine', async () => {
        h.state.config.auth = false;
        try {
          await fc.assert(
            fc.asyncProperty(shapedParts(op, world, 10), async (parts) => {
              restoreKeys();
              await send(h, shapedRequest(op, world, parts));
            }),
            runs(RUNS.noAuth),
          );
        } finally {
          h.state.config.auth = true;
        }
      });
    }
  });

  describe('placeOrder with correct signatures and out-of-range values', () => {
    it('answers 2xx or a structured 4xx, never 5xx', async () => {
      // Values the fixture can still sign (size in quantums stays a safe integer on every market).
      const order = fc.record({
        marketId: fc.constantFrom(...world.marketIds),
        side: fc.constantFrom('BUY' as const, 'SELL' as const),
        orderType: fc.constantFrom('LIMIT' as const, 'MARKET' as const),
        timeInForce: fc.constantFrom('GTT', 'GTC', 'IOC', 'FOK', 'ALO'),
        quantity: fc.constantFrom('0.00000001', '0.0001', '0.01', '1', '10000', '10001', '1000000', '50000000'),
        price: fc.constantFrom('0.00001', '0.1', '1', '97000', '97000.1', '200000', '999999', '9999999999', '100000000000000'),
        reduceOnly: fc.boolean(),
        accountIndex: fc.integer({ min: 0, max: 9 }),
        goodTilDays: fc.constantFrom(-1, 0, 1, 40, 91, 10_000),
        clientId: fc.option(fc.constantFrom('c1', 'a-rest', 'x'.repeat(36)), { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(order, async ({ goodTilDays, ...o }) => {
          const req = placeOrderRequest(h, alice, { ...o, goodTilTime: String(h.now.us + goodTilDays * DAY_US) });
          await send(h, { method: 'POST', url: req.url, headers: req.headers, payload: JSON.stringify(req.payload) });
        }),
        runs(RUNS.outOfRange),
      );
    });
  });

  describe('oversized and deeply nested inputs', () => {
    const ONE_MB = 1024 * 1024;
    const deep = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    const shapedPrefix = `"address":"${alice.address}","accountIndex":0,"marketId":1,"leverage":5,"amount":"1"`;
    /** Bodies, built once; sent to every POST route. */
    const BODIES: ReadonlyArray<[string, string]> = [
      ['body one byte over 1 MiB', `"${'x'.repeat(ONE_MB - 1)}"`],
      ['~1 MiB string field in a shaped body', `{${shapedPrefix},"price":"${'9'.repeat(ONE_MB - 200)}"}`],
      ['~1 MiB array of 1e400', `[${Array.from({ length: 170_000 }, () => '1e400').join(',')}]`],
      ['100,000-deep nested array', deep(100_000)],
      ['100,000-deep array inside a shaped body', `{${shapedPrefix},"orders":[{}],"cancels":[{}],"modifies":[{}],"x":${deep(100_000)}}`],
    ];
    const signedHeaders = (): Record<string, string> => ({ 'x-api-key': alice.apiKey, 'x-timestamp': freshTimestamp(world), 'x-signature': 'a'.repeat(128), 'content-type': 'application/json' });

    function requestsFor(op: Operation): Array<[string, FuzzRequest]> {
      const url = op.path.replace(/(?<=\/):([A-Za-z]+)/g, '1') + `?address=${alice.address}`;
      const out: Array<[string, FuzzRequest]> = [
        ['100 KB query string', { method: op.method, url: `${url}&market=${'A'.repeat(100_000)}&${'k=v&'.repeat(5_000)}`, headers: signedHeaders(), payload: undefined }],
        ['X-Signature repeated 2,000 times', { method: op.method, url, headers: { ...signedHeaders(), 'x-signature': Array.from({ length: 2_000 }, () => 'a'.repeat(128)) }, payload: undefined }],
        ['path parameters of 5,000 characters', { method: op.method, url: op.path.replace(/(?<=\/):([A-Za-z]+)/g, 'x'.repeat(5_000)), headers: signedHeaders(), payload: undefined }],
      ];
      if (op.method === 'POST') {
        for (const [name, payload] of BODIES) out.push([name, { method: 'POST', url, headers: signedHeaders(), payload }]);
        const ts = freshTimestamp(world);
        const payload = `{${shapedPrefix},"x":${deep(100_000)}}`;
        const signature = h.sign(scheme2Message(ts, lastPathSegment(url)) + payload, alice);
        out.push(['100,000-deep array, Scheme 2 signed', { method: 'POST', url, payload, headers: { 'x-api-key': alice.apiKey, 'x-timestamp': ts, 'x-signature': signature, 'content-type': 'application/json' } }]);
      }
      return out;
    }

    it.each(OPERATIONS.map((op) => [`${op.name} ${op.method} ${op.path}`, op] as const))('%s', async (_label, op) => {
      for (const [name, request] of requestsFor(op)) await expect(send(h, request), name).resolves.toBeDefined();
    });
  });

  describe('the engine is still consistent after the fuzz', () => {
    it('Object.prototype is untouched', () => {
      expect(Object.keys(Object.prototype)).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('GET /health answers 200', async () => {
      expect((await h.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    });

    it('a well-formed signed placeOrder from a new account gets 202 and rests on the book', async () => {
      h.key(carol);
      h.fund(carol, 10_000n);
      const req = placeOrderRequest(h, carol, { side: 'BUY', quantity: '0.01', price: '90000', clientId: 'after-fuzz' });
      const res = await h.app.inject({ method: 'POST', url: req.url, headers: req.headers, payload: req.payload });
      expect(res.statusCode).toBe(202);
      const open = (await h.app.inject({ method: 'GET', url: `/v1/openOrders?address=${carol.address}` })).json() as { orders: Array<{ clientId: string }> };
      expect(open.orders.map((o) => o.clientId)).toEqual(['after-fuzz']);
    });

    it('every route still answers its plainest request below 500', async () => {
      for (const op of OPERATIONS) {
        const url = op.path.replace(/(?<=\/):([A-Za-z]+)/g, '1') + `?address=${alice.address}`;
        await send(h, { method: op.method, url, headers: { 'content-type': 'application/json' }, payload: op.method === 'POST' ? '{}' : undefined });
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Pass 7: rate limits on.

/** A route's plainest well-formed request: real ids for path params, alice's address. */
function plainRequest(op: Operation, world: FuzzWorld): FuzzRequest {
  const url = op.path.replace(':market', 'BTC-USD').replace(':orderId', world.orderIds[0]!).replace(':tradeId', world.tradeIds[0] ?? '1') + `?address=${world.addresses[0]}`;
  return { method: op.method, url, headers: { 'content-type': 'application/json' }, payload: op.method === 'POST' ? '{}' : undefined };
}

describe('with rate limits on, hostile requests still keep the contract and every 429 carries Retry-After', () => {
  let h: GatewayHarness;
  let world: FuzzWorld;
  beforeAll(async () => {
    ({ h, world } = await seededGateway(true));
  });
  afterAll(async () => {
    await h.app.close();
  });

  it('a mixed burst across every route (hostile, plain and signed orders) reaches 429s, each with Retry-After', async () => {
    const limited: string[] = [];
    const step = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...OPERATIONS).chain((op) => hostileRequest(op, world)).map((request) => ({ kind: 'raw' as const, request })) },
      { weight: 5, arbitrary: fc.constantFrom(...OPERATIONS).map((op) => ({ kind: 'plain' as const, op })) },
      { weight: 1, arbitrary: fc.constant({ kind: 'order' as const }) },
    );
    await fc.assert(
      fc.asyncProperty(step, async (s) => {
        let request: FuzzRequest;
        if (s.kind === 'raw') request = s.request;
        else if (s.kind === 'plain') request = plainRequest(s.op, world);
        else {
          const req = placeOrderRequest(h, alice, { side: 'BUY', quantity: '0.001', price: '90000' });
          request = { method: 'POST', url: req.url, headers: req.headers, payload: JSON.stringify(req.payload) };
        }
        const res = await send(h, request);
        if (res.statusCode === 429) limited.push(String((res.json() as { reason?: unknown }).reason));
      }),
      runs(RUNS.limited),
    );
    expect(limited).toContain('ip');
  });
});

// ---------------------------------------------------------------------------------------------
// Regressions: what the fuzz found (answered 500 before the fix). Each needs only a registered
// key, an in-window timestamp and a 128-hex signature that does not verify: the failure was
// while the gateway built the Scheme 2 message, before it verified.

describe('Scheme 2 routes answer 4xx for bodies with no canonical form', () => {
  /** The smallest body each route's schema accepts. */
  const MINIMAL: Record<(typeof SCHEME2_ROUTES)[number], string> = {
    cancelAllOrders: `"address":"${alice.address}"`,
    scheduleCancel: `"address":"${alice.address}"`,
    setLeverage: `"address":"${alice.address}","marketId":1,"leverage":5`,
    adjustIsolatedMargin: `"address":"${alice.address}","marketId":1,"amount":"1"`,
  };

  let h: GatewayHarness;
  let nonce = 0n;
  beforeAll(async () => {
    h = await gateway({ rateLimit: { enabled: false } });
    h.key(alice);
  });
  afterAll(async () => {
    await h.app.close();
  });

  function postScheme2(route: string, payload: string): Promise<LightMyRequestResponse> {
    const headers = { 'x-api-key': alice.apiKey, 'x-timestamp': String(BigInt(h.now.us) * 1000n + ++nonce), 'x-signature': 'a'.repeat(128), 'content-type': 'application/json' };
    return h.app.inject({ method: 'POST', url: `/v1/${route}`, headers, payload });
  }

  it.each(SCHEME2_ROUTES)('POST /v1/%s with an extra field 1e400 (parses to Infinity) answers 4xx, not 500', async (route) => {
    const res = await postScheme2(route, `{${MINIMAL[route]},"x":1e400}`);
    expect(res.statusCode).toBeLessThan(500);
  });

  it.each(SCHEME2_ROUTES)('POST /v1/%s with an extra field nested 100,000 arrays deep answers 4xx, not 500', async (route) => {
    const res = await postScheme2(route, `{${MINIMAL[route]},"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(res.statusCode).toBeLessThan(500);
  });
});
