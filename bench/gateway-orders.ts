/**
 * The gateway bench's order plan: who trades, what each signed placeOrder says, and how it is
 * signed — shared by the bench (which funds the accounts and registers their keys through
 * /sim) and the load generator (which signs the requests before the timed pass).
 *
 * Layout: `PAIRS` pairs of accounts (A, B), each pair on one of four crypto markets at that
 * market's starting oracle price, one minimum-size order each. Request i belongs to pair
 * i mod PAIRS, and its step in the pair's cycle is (i div PAIRS) mod 4: A buys (rests), B sells
 * (fills it), A sells (rests), B buys (fills it). So half of the orders rest and half match, every
 * fill is a whole order, positions swing between 0 and one order's size, and the book never holds
 * more than PAIRS orders: the engine does real work (margin check, matching, settlement,
 * events) but the state stays bounded however many orders are sent. A pair's consecutive
 * requests are PAIRS requests apart, far more than the requests in flight, so arrival order
 * never makes an account meet itself (SELF_TRADE) — every request should answer 202 ACK.
 *
 * Every request is distinct: its own clientId and its own X-Timestamp (base + i ns, all inside
 * the 30 s window of the simulator's virtual clock), so replay protection accepts each once.
 * Keys are derived from a fixed seed; signing uses node:crypto (the bench's client side only).
 */
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { compileMarket, priceToTicks, sizeToQuantums, type MarketSpec } from '../engine/index.ts';
import { SIGNED_OPS } from '../engine/spec.ts';
import { scheme1Payload } from '../gateway/auth/index.ts';
import { DEFAULT_PRICES, defaultMarkets } from '../sim/markets.ts';

/** Pairs of accounts; 2 × PAIRS API keys. */
export const PAIRS = 128;
/** Where the venue wants goodTilTime: at least 30 days ahead; 40 leaves room. */
export const GTT_AHEAD_US = 40 * 86_400_000_000;
/** USD deposited per account: a few hundred times what one order needs. */
export const DEPOSIT_USD = '100000';

/** PKCS#8 DER header of a raw 32-byte Ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface BenchWallet {
  address: string;
  /** Raw public key, 64 hex: the API key. */
  apiKey: string;
  privateKey: KeyObject;
}

/** Account `n` (0 ≤ n < 2 × PAIRS): A of pair p is 2p, B is 2p + 1. Deterministic. */
export function benchWallet(n: number): BenchWallet {
  const seed = createHash('sha256').update(`perpsim-bench-gateway-${n}`).digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const address = '0x' + createHash('sha256').update(seed).digest('hex').slice(0, 40);
  return { address, apiKey: spki.subarray(spki.length - 32).toString('hex'), privateKey };
}

export function benchWallets(): BenchWallet[] {
  return Array.from({ length: 2 * PAIRS }, (_, n) => benchWallet(n));
}

interface PlanMarket {
  spec: MarketSpec;
  price: string;
  /** The minimum size whose notional clears the 5 USD minimum at `price`. */
  quantity: string;
}

const QUANTITY: Readonly<Record<string, string>> = { 'BTC-USD': '0.0001', 'ETH-USD': '0.003', 'SOL-USD': '0.06', 'DOGE-USD': '40' };

function planMarkets(): PlanMarket[] {
  return defaultMarkets()
    .filter((m) => m.displayName in QUANTITY)
    .map((m) => ({ spec: compileMarket(m), price: DEFAULT_PRICES[m.displayName]!, quantity: QUANTITY[m.displayName]! }));
}

/** One request as the load generator sends it. */
export interface SignedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface SignOptions {
  /** Index of the first request (requests are numbered across warm-up and timed passes). */
  first: number;
  count: number;
  /** X-Timestamp of request 0, ns: the simulator's clock when the bench starts. */
  baseNs: bigint;
  /** goodTilTime, µs. */
  goodTilTimeUs: number;
}

/** Request `i` of the plan, before signing: its account, path, body and Scheme 1 payload. */
function planned(wallets: readonly BenchWallet[], markets: readonly PlanMarket[], i: number, options: Omit<SignOptions, 'first' | 'count'>): { wallet: BenchWallet; ts: bigint; message: string; body: string } {
  const pair = i % PAIRS;
  const step = Math.floor(i / PAIRS) % 4;
  const w = wallets[2 * pair + (step === 0 || step === 2 ? 0 : 1)]!;
  const side = step === 0 || step === 3 ? 'BUY' : 'SELL';
  const m = markets[pair % markets.length]!;
  const ts = options.baseNs + BigInt(i);
  const clientId = `g${i}`;
  const message = scheme1Payload(SIGNED_OPS.placeOrder, {
    address: w.address,
    accountIndex: 0,
    clientId,
    clientTimeNs: ts,
    goodTilTimeNs: BigInt(options.goodTilTimeUs) * 1000n,
    marketId: m.spec.id,
    priceTicks: priceToTicks(m.spec, m.price)!,
    sizeQuantums: sizeToQuantums(m.spec, m.quantity)!,
    reduceOnly: false,
    side: side === 'BUY' ? 0 : 1,
    timeInForce: 0,
  });
  const body = JSON.stringify({
    address: w.address,
    accountIndex: 0,
    marketId: m.spec.id,
    orderSide: side,
    orderType: 'LIMIT',
    timeInForce: 'GTT',
    quantity: m.quantity,
    price: m.price,
    goodTilTime: String(options.goodTilTimeUs),
    timestamp: Number(ts),
    reduceOnly: false,
    clientId,
  });
  return { wallet: w, ts, message, body };
}

/** Requests `first` .. `first + count - 1` of the plan, signed (Scheme 1, op 1). */
export function signOrders(wallets: readonly BenchWallet[], options: SignOptions): SignedRequest[] {
  const markets = planMarkets();
  const out: SignedRequest[] = new Array(options.count);
  for (let k = 0; k < options.count; k++) {
    const { wallet: w, ts, message, body } = planned(wallets, markets, options.first + k, options);
    out[k] = {
      path: `/v1/placeOrder?address=${w.address}`,
      headers: {
        'content-type': 'application/json',
        'x-api-key': w.apiKey,
        'x-timestamp': ts.toString(),
        'x-signature': sign(null, Buffer.from(message, 'utf8'), w.privateKey).toString('hex'),
      },
      body,
    };
  }
  return out;
}

/**
 * The Scheme 1 payloads of requests `first` .. `first + count - 1`, by their X-Timestamp (each
 * request's own): what the gateway verifies them against, without signing anything.
 */
export function orderPayloads(wallets: readonly BenchWallet[], options: SignOptions): Map<string, string> {
  const markets = planMarkets();
  const out = new Map<string, string>();
  for (let k = 0; k < options.count; k++) {
    const { ts, message } = planned(wallets, markets, options.first + k, options);
    out.set(ts.toString(), message);
  }
  return out;
}

/** One signed payload with its key, for the verify baseline (same size as the bench's orders). */
export function samplePayload(wallet: BenchWallet, baseNs: bigint, goodTilTimeUs: number): { message: Buffer; signature: Buffer; publicKey: Buffer } {
  const m = planMarkets()[0]!;
  const message = Buffer.from(
    scheme1Payload(SIGNED_OPS.placeOrder, {
      address: wallet.address,
      accountIndex: 0,
      clientId: 'g123456',
      clientTimeNs: baseNs,
      goodTilTimeNs: BigInt(goodTilTimeUs) * 1000n,
      marketId: m.spec.id,
      priceTicks: priceToTicks(m.spec, m.price)!,
      sizeQuantums: sizeToQuantums(m.spec, m.quantity)!,
      reduceOnly: false,
      side: 0,
      timeInForce: 0,
    }),
    'utf8',
  );
  return { message, signature: sign(null, message, wallet.privateKey), publicKey: Buffer.from(wallet.apiKey, 'hex') };
}
