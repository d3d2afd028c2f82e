/**
 * The account keys of the event paths (gateway/shared/account-key.ts): `accountKeyFrom` answers
 * `accountKeyOf`'s text, as one string object per account, so maps keyed by it find their entry
 * by identity; the exchange files closed orders and fills under those very strings.
 */
import { describe, expect, it } from 'vitest';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import { createExchange } from '../gateway/read-models/exchange.ts';
import { accountKeyFrom, accountKeyOf, createAccountKeys } from '../gateway/shared/account-key.ts';
import { ringLength } from '../gateway/shared/ring.ts';
import { defaultMarkets } from '../sim/markets.ts';

const A = '0x' + 'a'.repeat(40);
const B = '0x' + 'b'.repeat(40);

describe('account keys made once per account', () => {
  it('answers the same text as accountKeyOf, the same object on every call', () => {
    const keys = createAccountKeys();
    for (const [address, index] of [[A, 0], [A, 9], [B, 3], [A, 255]] as const) {
      const first = accountKeyFrom(keys, address, index);
      expect(first).toBe(accountKeyOf(address, index));
      // Object identity is not observable for strings; a map keyed by the first finds the second.
      expect(new Map([[first, 1]]).get(accountKeyFrom(keys, address, index))).toBe(1);
    }
    expect(keys.get(A)!.filter((k) => k !== undefined)).toEqual([accountKeyOf(A, 0), accountKeyOf(A, 9), accountKeyOf(A, 255)]);
  });

  it('answers indices outside the subaccount range without keeping them', () => {
    const keys = createAccountKeys();
    for (const index of [-1, 1.5, 256, 1e9]) expect(accountKeyFrom(keys, A, index)).toBe(accountKeyOf(A, index));
    expect(keys.get(A)).toEqual([]);
  });

  it('files an account\'s fills and closed orders under its key', () => {
    const now = 1_700_000_000_000_000;
    const exchange = createExchange({ markets: defaultMarkets() }, () => now);
    const spec = exchange.engine.markets.get(2)!.spec;
    exchange.submit({ type: 'setOraclePrice', marketId: 2, price: priceToTicks(spec, '3300.00')! });
    for (const address of [A, B]) exchange.submit({ type: 'deposit', address, accountIndex: 2, amount: 1_000_000n * 1_000_000_000n });
    const order = (address: string, side: 0 | 1, tif: 0 | 2) =>
      exchange.submit({ type: 'placeOrder', address, accountIndex: 2, marketId: 2, side, orderType: 0, tif, price: priceToTicks(spec, '3300.00')!, size: sizeToQuantums(spec, '0.01')!, reduceOnly: false, clientId: undefined, goodTilTime: now + 40 * 86_400_000_000 });
    order(A, 0, 0);
    order(B, 1, 2);
    for (const address of [A, B]) {
      const key = accountKeyOf(address, 2);
      expect(ringLength(exchange.fills.get(key)!)).toBe(1);
      expect(ringLength(exchange.closed.get(key)!)).toBe(1);
      expect(exchange.accountKeys.get(address)![2]).toBe(key);
    }
  });
});
