/**
 * The history events' stored format (gateway/persistence/event-codec.ts): what comes back, what
 * it costs in bytes, and the rows written before it (v8.serialize).
 */
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import { accountKeyOf } from '../gateway/shared/account-key.ts';
import type { Exchange } from '../gateway/read-models/exchange.ts';
import { decodeEvent, encodeEvent } from '../gateway/persistence/event-codec.ts';
import { openPersistence } from '../gateway/persistence/index.ts';
import { gateway, USD, wallet } from './support/gateway-fixture.ts';

const DAY = 86_400_000_000;
const alice = wallet(0xa1);
const bob = wallet(0xb2);

/** The history events of a deposit, a withdrawal and a crossed pair of orders, from a live exchange. */
async function historyEvents(): Promise<object[]> {
  const { exchange } = await gateway({ persistence: openPersistence() });
  const spec = exchange.engine.markets.get(2)!.spec;
  const place = (ex: Exchange, who: string, side: 0 | 1): void =>
    void ex.submit({ type: 'placeOrder', address: who, accountIndex: 0, marketId: 2, side, orderType: 0, tif: 0, price: priceToTicks(spec, '3300.00')!, size: sizeToQuantums(spec, '1')!, reduceOnly: false, goodTilTime: ex.clock() + 30 * DAY });
  for (const w of [alice, bob]) exchange.submit({ type: 'deposit', address: w.address, accountIndex: 0, amount: 1_000_000n * USD });
  exchange.submit({ type: 'withdraw', address: alice.address, accountIndex: 0, amount: 5n * USD } as never);
  place(exchange, alice.address, 0);
  place(exchange, bob.address, 1);
  const key = accountKeyOf(alice.address, 0);
  return [...exchange.history.closedOrders(key), ...exchange.history.fills(key), ...exchange.history.trades(2), ...exchange.history.transfers(key)];
}

describe('history event codec', () => {
  it('every kind of history event comes back equal — undefined fields, bigints and key order kept — in under a third of v8.serialize\'s bytes', async () => {
    const events = await historyEvents();
    const kinds = new Set(events.map((e) => (e as { type: string }).type));
    expect([...kinds].sort()).toEqual(['fill', 'order', 'trades', 'transfer']);
    for (const e of events) {
      const bytes = encodeEvent(e);
      const back = decodeEvent(bytes);
      expect(back).toStrictEqual(e);
      expect(Object.keys(back as object)).toEqual(Object.keys(e));
      // Bytes this few mean the event matched one of the codec's shapes (no keys written).
      expect(bytes.length, (e as { type: string }).type).toBeLessThan(serialize(e).length / 2);
    }
  });

  it('values outside the engine\'s shapes come back equal: unknown keys, empty and non-ASCII strings, -0, NaN, floats, bigints beyond 64 bits, null, nested arrays', () => {
    const edges = [0, 127, 128, 2 ** 31 - 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 63n];
    expect(decodeEvent(encodeEvent({ edges }))).toStrictEqual({ edges });
    const odd = { extra: '', name: 'Grüße 日本', zero: -0, nan: Number.NaN, half: 1.5, minus: -42, big: 2n ** 70n, small: -(2n ** 70n), none: null, nested: [[1, '0xABCDEF'], { address: '0x' + 'ab'.repeat(20) }], missing: undefined };
    expect(decodeEvent(encodeEvent(odd))).toStrictEqual(odd);
    // 42 characters that are not '0x' and 40 lowercase hex digits stay strings, written as they are.
    const nearAddresses = ['0x' + 'AB'.repeat(20), '0X' + 'ab'.repeat(20), '0x' + 'ab'.repeat(19) + 'ag', 'x0' + 'ab'.repeat(20), '0x' + 'ab'.repeat(19) + 'a\u00e9', '0x' + '00'.repeat(20), '0x' + 'ff'.repeat(20)];
    expect(decodeEvent(encodeEvent({ nearAddresses }))).toStrictEqual({ nearAddresses });
    expect(encodeEvent({ a: '0x' + 'ab'.repeat(20) }).length).toBeLessThan(encodeEvent({ a: '0x' + 'AB'.repeat(20) }).length);
  });

  it('an event holding a value the format has no tag for (a Map) is stored v8-serialized, and still comes back equal', () => {
    const e = { type: 'order', legs: new Map([[1, 2n]]) };
    const bytes = encodeEvent(e);
    expect(bytes[0]).toBe(0xff);
    expect(decodeEvent(bytes)).toStrictEqual(e);
  });

  it('reads the v8-serialized rows of schema versions up to 8', async () => {
    for (const e of await historyEvents()) expect(decodeEvent(serialize(e))).toStrictEqual(e);
  });

  it('refuses bytes in neither format instead of guessing', () => {
    expect(() => decodeEvent(Buffer.from([0x42, 0]))).toThrow(/unknown format/);
  });
});
