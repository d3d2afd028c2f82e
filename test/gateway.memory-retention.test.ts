/**
 * The memory history store's bounds (gateway/read-models/exchange.ts, ExchangeLimits): however
 * long the flow runs, it keeps per account at most `closedOrdersPerAccount` closed orders (and
 * `exchange.orders` only those plus the live ones, cancel-replaced orders included) and
 * `fillsPerAccount` fills, and per market `tradesPerMarket` trades. `perpsim serve --memory`
 * relies on them for a flat memory under a steady flow (npm run soak).
 */
import { describe, expect, it } from 'vitest';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import { createExchange, type Exchange, type Submission } from '../gateway/read-models/exchange.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { ringLength } from '../gateway/shared/ring.ts';

const USD = 1_000_000_000n;
const DAY = 86_400_000_000;
const LIMITS = { closedOrdersPerAccount: 7, fillsPerAccount: 11, tradesPerMarket: 13 };
const ALICE = `0x${'a1'.repeat(20)}`;
const BOB = `0x${'b2'.repeat(20)}`;

function exchangeWithLimits(): Exchange {
  const now = { us: 1_700_000_000_000_000 };
  const exchange = createExchange({ markets: defaultMarkets() }, () => (now.us += 1000), LIMITS);
  const spec = exchange.engine.markets.get(2)!.spec;
  exchange.submit({ type: 'setOraclePrice', marketId: 2, price: priceToTicks(spec, '3300.00')! });
  for (const address of [ALICE, BOB]) exchange.submit({ type: 'deposit', address, accountIndex: 0, amount: 10_000_000n * USD });
  return exchange;
}

function limit(exchange: Exchange, address: string, side: 0 | 1, price: string): Submission {
  const spec = exchange.engine.markets.get(2)!.spec;
  return { type: 'placeOrder', address, accountIndex: 0, marketId: 2, side, orderType: 0, tif: 0, price: priceToTicks(spec, price)!, size: sizeToQuantums(spec, '0.01')!, reduceOnly: false, goodTilTime: exchange.clock() + 40 * DAY };
}

/** One round: a crossing pair (a trade, two fills, two closed orders), a resting order cancel-replaced twice then canceled. */
function round(exchange: Exchange): void {
  exchange.submit(limit(exchange, ALICE, 0, '3300.00'));
  exchange.submit(limit(exchange, BOB, 1, '3300.00'));
  const placed = exchange.submit(limit(exchange, ALICE, 0, '3200.00'));
  const orderId = (placed as { orderId: number }).orderId;
  const spec = exchange.engine.markets.get(2)!.spec;
  for (const price of ['3201.00', '3202.00']) {
    exchange.submit({ type: 'modifyOrder', address: ALICE, accountIndex: 0, marketId: 2, orderId, price: priceToTicks(spec, price)!, size: sizeToQuantums(spec, '0.01')!, goodTilTime: exchange.clock() + 41 * DAY } as Submission);
  }
  exchange.submit({ type: 'cancelOrder', address: ALICE, accountIndex: 0, marketId: 2, orderId } as Submission);
}

describe('memory history: bounded per account and per market however long the flow runs', () => {
  it('keeps at most the configured closed orders, fills and trades, and no order it forgot', () => {
    const exchange = exchangeWithLimits();
    const sizes: number[] = [];
    for (let i = 0; i < 200; i++) {
      round(exchange);
      if (i === 49 || i === 199) sizes.push(exchange.orders.size);
    }
    for (const list of exchange.closed.values()) expect(ringLength(list)).toBeLessThanOrEqual(LIMITS.closedOrdersPerAccount);
    expect(exchange.closed.size).toBe(2);
    for (const list of exchange.fills.values()) expect(ringLength(list)).toBe(LIMITS.fillsPerAccount);
    expect(ringLength(exchange.trades.get(2)!)).toBe(LIMITS.tradesPerMarket);
    // Nothing rests at the end: every remembered order is a closed one of the lists.
    expect(exchange.orders.size).toBeLessThanOrEqual(2 * LIMITS.closedOrdersPerAccount);
    expect(sizes[1]).toBe(sizes[0]);
  });
});
