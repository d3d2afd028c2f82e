/**
 * `submit` (gateway/read-models/exchange.ts) stamps a copy of each command with the clock's time.
 * The copy keeps the command's fields, in their order, with `time` last, and every copy of one
 * command kind shares one V8 hidden class however many kinds pass through `submit` first: a copy
 * with a hidden class of its own sends every later property read of it (the engine's, the
 * journal's) through V8's runtime (docs/decisions.md "Event-loop cost per signed order
 * (gateway REST and WS RPC)"). The API-key registry's records, read on every signed request,
 * likewise.
 */
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { priceToTicks, sizeToQuantums, type Command } from '../engine/index.ts';
import { createKeyRegistry, registerKey, revokeKey } from '../gateway/auth/keys.ts';
import { createExchange, type Exchange, type Submission } from '../gateway/read-models/exchange.ts';
import { defaultMarkets } from '../sim/markets.ts';

setFlagsFromString('--allow-natives-syntax');
// Compiled after the flag is set; V8's own test of whether two objects share a hidden class.
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const USD = 1_000_000_000n;
const DAY = 86_400_000_000;
const ALICE = `0x${'a1'.repeat(20)}`;

function exchangeCapturing(): { exchange: Exchange; stamped: Command[] } {
  const now = { us: 1_700_000_000_000_000 };
  const exchange = createExchange({ markets: defaultMarkets() }, () => (now.us += 1000));
  const stamped: Command[] = [];
  exchange.onCommand = (c) => void stamped.push(c);
  return { exchange, stamped };
}

function place(exchange: Exchange, clientId: string, price: string): Submission {
  const spec = exchange.engine.markets.get(2)!.spec;
  return { type: 'placeOrder', address: ALICE, accountIndex: 0, marketId: 2, side: 0, orderType: 0, tif: 0, price: priceToTicks(spec, price)!, size: sizeToQuantums(spec, '0.01')!, reduceOnly: false, clientId, goodTilTime: exchange.clock() + 40 * DAY };
}

describe('the exchange stamps submitted commands', () => {
  it('copies the fields in their order with the time last, and leaves the submitted command as it was', () => {
    const { exchange, stamped } = exchangeCapturing();
    const submitted = place(exchange, 'c1', '3000.00');
    const before = Object.keys(submitted);
    exchange.submit({ type: 'deposit', address: ALICE, accountIndex: 0, amount: 1_000_000n * USD });
    exchange.submit(submitted);
    const copy = stamped.at(-1)!;
    expect(copy).not.toBe(submitted);
    expect(Object.keys(submitted)).toEqual(before);
    expect(Object.keys(copy)).toEqual([...before, 'time']);
    expect(copy).toEqual({ ...submitted, time: copy.time });
    expect(copy.time).toBeGreaterThan(stamped[0]!.time);
  });

  it('gives every copy of one command kind one hidden class, after many kinds have passed', () => {
    const { exchange, stamped } = exchangeCapturing();
    const spec = exchange.engine.markets.get(2)!.spec;
    // Six kinds first: the copy site in `submit` sees more shapes than V8 tracks one by one.
    exchange.submit({ type: 'setOraclePrice', marketId: 2, price: priceToTicks(spec, '3300.00')! });
    exchange.submit({ type: 'deposit', address: ALICE, accountIndex: 0, amount: 1_000_000n * USD });
    exchange.submit({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 2, leverage: 5 });
    exchange.submit({ type: 'cancelAll', address: ALICE, accountIndex: 0 });
    exchange.submit({ type: 'advanceTime' });
    exchange.submit({ type: 'cancelOrder', address: ALICE, accountIndex: 0, marketId: 2, clientId: 'none' });
    const first = stamped.length;
    for (let i = 0; i < 50; i++) {
      exchange.submit(place(exchange, `p${i}`, '3000.00'));
      exchange.submit({ type: 'cancelOrder', address: ALICE, accountIndex: 0, marketId: 2, clientId: `p${i}` });
    }
    const orders = stamped.slice(first).filter((c) => c.type === 'placeOrder');
    const cancels = stamped.slice(first).filter((c) => c.type === 'cancelOrder');
    expect(orders).toHaveLength(50);
    expect(orders.filter((c) => !haveSameMap(c, orders[0]!))).toHaveLength(0);
    expect(cancels.filter((c) => !haveSameMap(c, cancels[0]!))).toHaveLength(0);
  });
});

describe('a placeOrder shaped as the order writes build it', () => {
  /** The order writes' field order (gateway/operations/order-writes/place-order.ts), TPSL fields included. */
  function written(exchange: Exchange, clientId: string): Submission {
    const c = place(exchange, clientId, '3000.00') as Extract<Submission, { type: 'placeOrder' }>;
    return { type: c.type, address: c.address, accountIndex: c.accountIndex, marketId: c.marketId, side: c.side, orderType: c.orderType, tif: c.tif, price: c.price, size: c.size, reduceOnly: c.reduceOnly, clientId: c.clientId, goodTilTime: c.goodTilTime, tpslType: undefined, stopPrice: undefined, isPositionTpsl: undefined };
  }

  it('is copied with its fields in their order, undefined ones included, the time last, into one hidden class', () => {
    const { exchange, stamped } = exchangeCapturing();
    exchange.submit({ type: 'deposit', address: ALICE, accountIndex: 0, amount: 1_000_000n * USD });
    const submitted = Array.from({ length: 20 }, (_, i) => written(exchange, `w${i}`));
    const before = Object.keys(submitted[0]!);
    for (const s of submitted) exchange.submit(s);
    const copies = stamped.slice(1);
    expect(copies).toHaveLength(20);
    copies.forEach((copy, i) => {
      expect(copy).not.toBe(submitted[i]);
      expect(Object.keys(submitted[i]!)).toEqual(before);
      expect(Object.keys(copy)).toEqual([...before, 'time']);
      expect(copy).toStrictEqual({ ...submitted[i], time: copy.time });
    });
    expect(copies.filter((c) => !haveSameMap(c, copies[0]!))).toHaveLength(0);
  });

  it('keeps another order of the same fields, or one more field, as submitted', () => {
    const { exchange, stamped } = exchangeCapturing();
    exchange.submit({ type: 'deposit', address: ALICE, accountIndex: 0, amount: 1_000_000n * USD });
    const { type, ...rest } = written(exchange, 'x1') as Extract<Submission, { type: 'placeOrder' }>;
    const reordered = { ...rest, type } as Submission;
    const longer = { ...written(exchange, 'x2'), parentOrderId: undefined } as Submission;
    exchange.submit(reordered);
    exchange.submit(longer);
    expect(Object.keys(stamped[1]!)).toEqual([...Object.keys(reordered), 'time']);
    expect(Object.keys(stamped[2]!)).toEqual([...Object.keys(longer), 'time']);
    expect(stamped[2]).toStrictEqual({ ...longer, time: stamped[2]!.time });
  });
});

describe('the API-key registry', () => {
  it('keeps the record fields in the registered order and gives every record one hidden class', () => {
    const registry = createKeyRegistry();
    const records = Array.from({ length: 40 }, (_, i) =>
      registerKey(registry, { apiKey: `0xAB${i}`, address: `0x${String(i).padStart(40, '0')}`, accountIndex: i % 3 === 0 ? undefined : i, apiWalletName: 'bot', permissions: ['trade'], validUntil: 0, createdAt: i }),
    );
    expect(Object.keys(records[1]!)).toEqual(['apiKey', 'address', 'accountIndex', 'apiWalletName', 'permissions', 'validUntil', 'createdAt', 'status']);
    expect(records[1]).toMatchObject({ apiKey: '0xab1', status: 'ACTIVE' });
    expect(records.filter((r) => !haveSameMap(r, records[1]!))).toHaveLength(0);
    const revoked = revokeKey(registry, '0xAB2')!;
    expect(revoked).toEqual({ ...records[2], status: 'DELETED' });
    expect(Object.keys(revoked)).toEqual(Object.keys(records[2]!));
  });
});
