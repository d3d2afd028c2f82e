import { describe, expect, it } from 'vitest';
import { Backtest, type FillRecord, type OrderRecord, type Strategy, type StrategyContext } from '../index.ts';
import { recording, type RelativeRecord } from './support/backtest-data.ts';

/** The book and oracle at the start: the strategy buys its position from these asks. */
const OPEN: RelativeRecord[] = [
  { at: 0, type: 'book', snapshot: true, bids: [['96990.0', '2.0']], asks: [['97000.0', '0.5'], ['97010.0', '1.0']] },
  { at: 0, type: 'oracle', price: '97000.0' },
];

function collector(): { fills: FillRecord[]; orders: OrderRecord[]; books: { bids: [number, number][] }[]; strategy: Strategy } {
  const fills: FillRecord[] = [];
  const orders: OrderRecord[] = [];
  const books: { bids: [number, number][] }[] = [];
  const strategy: Strategy = { onFill: (f) => void fills.push(f), onOrderUpdate: (o) => void orders.push(o), onBook: (b) => void books.push({ bids: b.bids.map(([p, s]) => [p, s]) }) };
  return { fills, orders, books, strategy };
}

/** A long position of `quantity` BTC taken from the opening asks, then `leg` placed. */
function goLong(quantity: string, leg?: Record<string, unknown>): (ctx: StrategyContext) => Promise<void> {
  return async (ctx) => {
    await ctx.client.placeOrder({ marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', quantity, price: '97010.0' });
    if (leg !== undefined) await ctx.client.placeOrder({ marketId: 1, orderSide: 'SELL', reduceOnly: true, quantity, ...leg });
  };
}

const rows = (fills: FillRecord[]) => fills.map((f) => [f.side, f.price, f.size, f.role]);
const closing = (fills: FillRecord[]) => fills.filter((f) => f.side === 'SELL');

describe('a triggered TPSL fills against the replayed book at its prices, consuming it', () => {
  const crash: RelativeRecord[] = [
    ...OPEN,
    { at: 100, type: 'book', bids: [['96990.0', '0'], ['95900.0', '0.3'], ['95800.0', '1.0']], asks: [['97000.0', '0'], ['97010.0', '0'], ['96000.0', '1.0']] },
    { at: 100, type: 'oracle', price: '95900.0' },
    { at: 200, type: 'book', bids: [], asks: [['96010.0', '1.0']] },
  ];

  it('a stop-loss that triggers on replayed data takes the replayed bids at their prices, not IOC_CANCELED; the taken size stays taken', async () => {
    const { fills, orders, books, strategy } = collector();
    strategy.onStart = goLong('0.5', { orderType: 'MARKET', timeInForce: 'IOC', price: '95000.0', tpslType: 'STOP_LOSS', stopPrice: '96000.0' });
    const result = await new Backtest({ data: { file: recording(crash) }, markets: ['BTC-USD'] }, strategy).run();
    expect(rows(closing(fills))).toEqual([
      ['SELL', '95900.0', '0.3', 'TAKER'],
      ['SELL', '95800.0', '0.2', 'TAKER'],
    ]);
    const stop = orders.filter((o) => o.tpslType === 'STOP_LOSS').map((o) => o.status);
    expect(stop).toEqual(['TPSL_PLACED', 'TPSL_TRIGGERED', 'FILLED']);
    expect(result.summary.positions).toEqual({});
    // The next book update (another level) shows the bids minus what the stop took.
    expect(books.at(-1)!.bids).toEqual([[95800, 0.8]]);
  });

  it('a position stop-loss (quantity 0) takes replayed bids for the whole position', async () => {
    const { fills, strategy } = collector();
    strategy.onStart = async (ctx) => {
      await goLong('0.5')(ctx);
      const leg = { marketId: 1, orderSide: 'SELL', orderType: 'MARKET', timeInForce: 'IOC', reduceOnly: true, quantity: '0', price: '95000.0', tpslType: 'STOP_LOSS', stopPrice: '96000.0' };
      await ctx.client.batchPlaceOrders({ grouping: 'positionTpsl', orders: [leg] });
    };
    const result = await new Backtest({ data: { file: recording(crash) }, markets: ['BTC-USD'] }, strategy).run();
    expect(rows(closing(fills))).toEqual([
      ['SELL', '95900.0', '0.3', 'TAKER'],
      ['SELL', '95800.0', '0.2', 'TAKER'],
    ]);
    expect(result.summary.positions).toEqual({});
  });

  it("a short's stop-loss that triggers on replayed data buys the replayed asks at their prices", async () => {
    const squeeze: RelativeRecord[] = [
      ...OPEN,
      { at: 100, type: 'book', bids: [['96990.0', '0'], ['98000.0', '1.0']], asks: [['97000.0', '0'], ['97010.0', '0'], ['98050.0', '0.1'], ['98060.0', '1.0']] },
      { at: 100, type: 'oracle', price: '98100.0' },
    ];
    const { fills, orders, strategy } = collector();
    strategy.onStart = async (ctx) => {
      await ctx.client.placeOrder({ marketId: 1, orderSide: 'SELL', orderType: 'LIMIT', timeInForce: 'IOC', quantity: '0.5', price: '96990.0' });
      await ctx.client.placeOrder({ marketId: 1, orderSide: 'BUY', orderType: 'MARKET', timeInForce: 'IOC', reduceOnly: true, quantity: '0.5', price: '99000.0', tpslType: 'STOP_LOSS', stopPrice: '98000.0' });
    };
    const result = await new Backtest({ data: { file: recording(squeeze) }, markets: ['BTC-USD'] }, strategy).run();
    expect(rows(fills.filter((f) => f.side === 'BUY'))).toEqual([
      ['BUY', '98050.0', '0.1', 'TAKER'],
      ['BUY', '98060.0', '0.4', 'TAKER'],
    ]);
    expect(orders.filter((o) => o.tpslType === 'STOP_LOSS').map((o) => o.status)).toEqual(['TPSL_PLACED', 'TPSL_TRIGGERED', 'FILLED']);
    expect(result.summary.positions).toEqual({});
  });

  it('a take-profit LIMIT leg that triggers on replayed data takes the bids at or above its price as a taker', async () => {
    const rally: RelativeRecord[] = [
      ...OPEN,
      { at: 100, type: 'book', bids: [['96990.0', '0'], ['98050.0', '0.2'], ['98000.0', '1.0']], asks: [['97000.0', '0'], ['97010.0', '0'], ['98100.0', '1.0']] },
      { at: 100, type: 'oracle', price: '98100.0' },
    ];
    const { fills, orders, strategy } = collector();
    strategy.onStart = goLong('0.5', { orderType: 'LIMIT', timeInForce: 'GTT', price: '98000.0', tpslType: 'TAKE_PROFIT', stopPrice: '98000.0' });
    const result = await new Backtest({ data: { file: recording(rally) }, markets: ['BTC-USD'] }, strategy).run();
    expect(rows(closing(fills))).toEqual([
      ['SELL', '98050.0', '0.2', 'TAKER'],
      ['SELL', '98000.0', '0.3', 'TAKER'],
    ]);
    expect(orders.filter((o) => o.tpslType === 'TAKE_PROFIT').map((o) => o.status)).toEqual(['TPSL_PLACED', 'TPSL_TRIGGERED', 'FILLED']);
    expect(result.summary.positions).toEqual({});
  });

  it("the engine's mark sees the replayed book: a stop the oracle alone reaches, but the replayed mid does not, stays untriggered", async () => {
    // Oracle 95950 is below the stop at 96000, the replayed mid (96050) and hence the mark are not.
    const dip: RelativeRecord[] = [
      ...OPEN,
      { at: 100, type: 'book', bids: [['96990.0', '0'], ['96000.0', '1.0']], asks: [['97000.0', '0'], ['97010.0', '0'], ['96100.0', '1.0']] },
      { at: 100, type: 'oracle', price: '95950.0' },
    ];
    const { orders, strategy } = collector();
    strategy.onStart = goLong('0.5', { orderType: 'MARKET', timeInForce: 'IOC', price: '95000.0', tpslType: 'STOP_LOSS', stopPrice: '96000.0' });
    await new Backtest({ data: { file: recording(dip) }, markets: ['BTC-USD'] }, strategy).run();
    expect(orders.filter((o) => o.tpslType === 'STOP_LOSS').map((o) => o.status)).toEqual(['TPSL_PLACED']);
  });
});

describe('a position liquidated on replayed data is closed by liquidation orders against the replayed book; ADL only for what it cannot absorb', () => {
  // 5,000 USD against 1 BTC: below maintenance once the mark falls under about 93,600.
  const crash = (bids: [string, string][]): RelativeRecord[] => [
    ...OPEN,
    { at: 0, type: 'book', bids: [], asks: [['97000.0', '1.0']] },
    { at: 100, type: 'book', bids: [['96990.0', '0'], ...bids], asks: [['97000.0', '0'], ['97010.0', '0'], ['93010.0', '1.0']] },
    { at: 100, type: 'oracle', price: '93000.0' },
  ];
  const config = (records: RelativeRecord[]) => ({ data: { file: recording(records) }, markets: ['BTC-USD'], balance: '5000' });

  it('the liquidation order takes the replayed bids at their prices, its fills carry liquidation {method: MARKET}', async () => {
    const { fills, strategy } = collector();
    strategy.onStart = goLong('1.0');
    const result = await new Backtest(config(crash([['92990.0', '0.4'], ['92980.0', '2.0']])), strategy).run();
    expect(closing(fills).map((f) => [f.price, f.size, f.role, f.liquidation?.method])).toEqual([
      ['92990.0', '0.4', 'TAKER', 'MARKET'],
      ['92980.0', '0.6', 'TAKER', 'MARKET'],
    ]);
    expect(result.summary.fills.liquidation).toBe(2);
    expect(result.summary.positions).toEqual({});
  });

  it('what the replayed bids cannot absorb is closed by ADL against the replay accounts', async () => {
    const { fills, strategy } = collector();
    strategy.onStart = goLong('1.0');
    const result = await new Backtest(config(crash([['92990.0', '0.4']])), strategy).run();
    expect(closing(fills).map((f) => [f.price === '92990.0' ? f.price : 'bankruptcy', f.size, f.liquidation?.method])).toEqual([
      ['92990.0', '0.4', 'MARKET'],
      ['bankruptcy', '0.6', 'ADL'],
    ]);
    expect(result.summary.positions).toEqual({});
  });

  it('a funding payment that takes the account below maintenance liquidates it into the replayed bids', async () => {
    // 4 % of 97,000 USD at the end of the first hour leaves about 1,080 USD against 1,617 of maintenance.
    const HOUR = 3_600_000;
    const records: RelativeRecord[] = [
      ...OPEN,
      { at: 0, type: 'book', bids: [['96990.0', '0'], ['96900.0', '0.3'], ['96800.0', '2.0']], asks: [['97000.0', '1.0']] },
      { at: 100, type: 'funding', rate: '0.04' },
      { at: HOUR + 100, type: 'oracle', price: '97000.0' },
    ];
    const run = async (sampleMs: number) => {
      const { fills, strategy } = collector();
      strategy.onStart = goLong('1.0');
      await new Backtest({ ...config(records), sampleMs }, strategy).run();
      return closing(fills).map((f) => [f.price, f.size, f.liquidation?.method]);
    };
    const expected = [
      ['96900.0', '0.3', 'MARKET'],
      ['96800.0', '0.7', 'MARKET'],
    ];
    // Settled by the equity sample at the hour, and (samples every 7 min) by the next oracle price.
    expect(await run(60_000)).toEqual(expected);
    expect(await run(420_000)).toEqual(expected);
  });
});

describe('a cross liquidation set off in one market closes the positions of the others against their replayed books too', () => {
  it('a BTC crash liquidates the ETH position into the replayed ETH bids, not by ADL', async () => {
    const records: RelativeRecord[] = [
      { at: 0, type: 'book', snapshot: true, bids: [['96990.0', '2.0']], asks: [['97000.0', '1.0']] },
      { at: 0, type: 'oracle', price: '97000.0' },
      { at: 0, market: 'ETH-USD', type: 'book', snapshot: true, bids: [['3399.00', '0.4'], ['3398.00', '5.0']], asks: [['3400.00', '5.0']] },
      { at: 0, market: 'ETH-USD', type: 'oracle', price: '3400.00' },
      { at: 100, type: 'book', bids: [['96990.0', '0'], ['92990.0', '2.0']], asks: [['97000.0', '0'], ['93010.0', '1.0']] },
      { at: 100, type: 'oracle', price: '93000.0' },
    ];
    const { fills, strategy } = collector();
    strategy.onStart = async (ctx) => {
      await goLong('1.0')(ctx);
      await ctx.client.placeOrder({ marketId: 2, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', quantity: '1.0', price: '3400.00' });
    };
    const result = await new Backtest({ data: { file: recording(records) }, markets: ['BTC-USD', 'ETH-USD'], balance: '5000' }, strategy).run();
    expect(closing(fills).map((f) => [f.marketDisplayName, f.price, f.size, f.liquidation?.method])).toEqual([
      ['BTC-USD', '92990.0', '1.0', 'MARKET'],
      ['ETH-USD', '3399.00', '0.4', 'MARKET'],
      ['ETH-USD', '3398.00', '0.6', 'MARKET'],
    ]);
    expect(result.summary.positions).toEqual({});
  });
});

describe('the do-nothing strategy is unaffected', () => {
  it('no orders and no position: every event is counted, nothing is filled, no position is opened', async () => {
    const records: RelativeRecord[] = [...OPEN, { at: 100, type: 'oracle', price: '95900.0' }, { at: 200, type: 'book', bids: [['95000.0', '1.0']], asks: [] }];
    const result = await new Backtest({ data: { file: recording(records) }, markets: ['BTC-USD'] }, {}).run();
    expect(result.summary.events).toBe(4);
    expect(result.summary.fills.total).toBe(0);
    expect(result.summary.positions).toEqual({});
  });
});
