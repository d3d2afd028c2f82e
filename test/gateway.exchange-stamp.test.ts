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
