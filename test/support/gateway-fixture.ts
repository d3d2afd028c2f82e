/**
 * A gateway under test: the default markets, a clock the test moves, a funded account with a
 * registered API key, and signing helpers that build requests exactly as a venue client does
 * (header triple, Scheme 1 / Scheme 2 with @noble/ed25519). Requests go through fastify's
 * `inject()`: no socket.
 *
 * History mode: the memory read models by default; with PERPSIM_TEST_HISTORY=sqlite (the
 * `history-sqlite` vitest project) the state is attached to a persistence on an in-memory
 * SQLite database, so history reads go through the SQLite tables (gateway/read-models/history-store.ts).
 */
import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import type { FastifyInstance } from 'fastify';
import { priceToTicks } from '../../engine/index.ts';
import { buildApp } from '../../gateway/http/app.ts';
import { scheme1Payload, scheme2Message, type JsonValue } from '../../gateway/auth/index.ts';
import type { Exchange } from '../../gateway/read-models/exchange.ts';
import { createGateway } from '../../gateway/gateway.ts';
import { registerKey } from '../../gateway/auth/keys.ts';
import { openPersistence, type Persistence } from '../../gateway/persistence/index.ts';
import type { GatewayState, Operation } from '../../gateway/contract/operation.ts';
import { rateLimitConfig, type RateLimitOptions } from '../../gateway/rate-limit/index.ts';
import { DEFAULT_PRICES, defaultMarkets } from '../../sim/markets.ts';

ed.hashes.sha512 = (message) => new Uint8Array(createHash('sha512').update(message).digest());

export const T0_US = 1_700_000_000_000_000;

/** Distinct nanoseconds for each signed request within one clock reading (replay protection). */
let nonce = 0;
const nextNs = (us: number): bigint => BigInt(us) * 1000n + BigInt(++nonce % 1000);
export const DAY_US = 86_400_000_000;
export const USD = 1_000_000_000n;

export interface Wallet {
  address: string;
  secret: Uint8Array;
  apiKey: string;
}

export function wallet(seed: number): Wallet {
  const secret = new Uint8Array(32).fill(seed);
  const address = '0x' + seed.toString(16).padStart(2, '0').repeat(20);
  return { address, secret, apiKey: Buffer.from(ed.getPublicKey(secret)).toString('hex') };
}

export interface GatewayHarness {
  app: FastifyInstance;
  state: GatewayState;
  exchange: Exchange;
  /** The simulated clock, µs; wall time follows it in tests. */
  now: { us: number };
  sign(message: string, w: Wallet): string;
  fund(w: Wallet, usd: bigint, accountIndex?: number): void;
  /** Registers `w`'s API key for every subaccount. */
  key(w: Wallet): void;
}

/** True in the `history-sqlite` project: history reads come from SQLite tables. */
export const SQLITE_HISTORY = process.env.PERPSIM_TEST_HISTORY === 'sqlite';

/** `persistence`: attached to the state (history then in its SQLite tables when it has a file). */
/** `operations`: the table the app serves (every operation by default). */
export async function gateway(options: { rateLimit?: RateLimitOptions; persistence?: Persistence; operations?: readonly Operation[] } = {}): Promise<GatewayHarness> {
  const now = { us: T0_US };
  const persistence = options.persistence ?? (SQLITE_HISTORY ? openPersistence({ file: ':memory:' }) : undefined);
  const state = createGateway({
    engine: { markets: defaultMarkets() },
    clock: () => now.us,
    config: { service: 'api-gateway', version: 'perpsim-test', auth: true, rateLimit: rateLimitConfig(options.rateLimit ?? {}) },
    clocks: () => ({ wallNs: BigInt(now.us) * 1000n, simNs: BigInt(now.us) * 1000n }),
    nowMs: () => Math.floor(now.us / 1000),
  });
  const exchange = state.exchange;
  for (const m of defaultMarkets()) {
    const ms = exchange.engine.markets.get(m.id)!;
    exchange.submit({ type: 'setOraclePrice', marketId: m.id, price: priceToTicks(ms.spec, DEFAULT_PRICES[m.displayName]!)! });
  }
  if (persistence !== undefined) state.committed = () => persistence.committed();
  persistence?.attach(state);
  const app = buildApp(state, options.operations);
  await app.ready();
  return {
    app,
    state,
    exchange,
    now,
    sign: (message, w) => Buffer.from(ed.sign(new TextEncoder().encode(message), w.secret)).toString('hex'),
    fund: (w, usd, accountIndex = 0) => {
      exchange.submit({ type: 'deposit', address: w.address, accountIndex, amount: usd * USD });
    },
    key: (w) => {
      registerKey(state.keys, { apiKey: w.apiKey, address: w.address, accountIndex: undefined, apiWalletName: 'test', permissions: ['trade'], validUntil: 0, createdAt: now.us });
    },
  };
}

export interface OrderInput {
  marketId?: number;
  side?: 'BUY' | 'SELL';
  orderType?: 'LIMIT' | 'MARKET';
  timeInForce?: string;
  quantity: string;
  price: string;
  clientId?: string;
  reduceOnly?: boolean;
  accountIndex?: number;
  goodTilTime?: string;
}

/** A signed placeOrder exactly as a venue client sends it (body, headers, Scheme 1 op 1). */
export function placeOrderRequest(h: GatewayHarness, w: Wallet, input: OrderInput, overrides: { timestampNs?: bigint } = {}): { headers: Record<string, string>; payload: Record<string, unknown>; url: string } {
  const marketId = input.marketId ?? 1;
  const ms = h.exchange.engine.markets.get(marketId)!;
  const ts = overrides.timestampNs ?? nextNs(h.now.us);
  const gtt = input.goodTilTime ?? String(h.now.us + 40 * DAY_US);
  const tifText = input.timeInForce ?? 'GTT';
  const tif = ({ GTT: 0, GTC: 0, FOK: 1, IOC: 2, ALO: 3 } as Record<string, 0 | 1 | 2 | 3>)[tifText] ?? 0;
  const priceTicks = priceToTicks(ms.spec, input.price) ?? 0;
  const sizeQuantums = Number(BigInt(Math.round(Number(input.quantity) * 10 ** ms.spec.step.scale)) / BigInt(ms.spec.step.mantissa));
  const message = scheme1Payload(1, {
    address: w.address,
    accountIndex: input.accountIndex ?? 0,
    clientId: input.clientId,
    clientTimeNs: ts,
    goodTilTimeNs: BigInt(gtt) * 1000n,
    marketId,
    priceTicks,
    sizeQuantums,
    reduceOnly: input.reduceOnly === true,
    side: (input.side ?? 'BUY') === 'BUY' ? 0 : 1,
    timeInForce: tif,
  });
  const payload: Record<string, unknown> = {
    address: w.address,
    accountIndex: input.accountIndex ?? 0,
    marketId,
    orderSide: input.side ?? 'BUY',
    orderType: input.orderType ?? 'LIMIT',
    timeInForce: tifText,
    quantity: input.quantity,
    price: input.price,
    goodTilTime: gtt,
    timestamp: Number(ts),
    reduceOnly: input.reduceOnly === true,
  };
  if (input.clientId !== undefined) payload.clientId = input.clientId;
  return {
    url: `/v1/placeOrder?address=${w.address}`,
    payload,
    headers: { 'x-api-key': w.apiKey, 'x-timestamp': ts.toString(), 'x-signature': h.sign(message, w), 'content-type': 'application/json' },
  };
}

/** Headers of a Scheme 2 request (cancelAllOrders, setLeverage, ...). */
export function scheme2Headers(h: GatewayHarness, w: Wallet, action: string, body: JsonValue | undefined): Record<string, string> {
  const ts = nextNs(h.now.us).toString();
  return { 'x-api-key': w.apiKey, 'x-timestamp': ts, 'x-signature': h.sign(scheme2Message(ts, action, body), w), 'content-type': 'application/json' };
}
