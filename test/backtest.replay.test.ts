import { describe, expect, it } from 'vitest';
import { Backtest, type FillRecord, type OrderRecord, type Strategy } from '../index.ts';
import type { EngineEvent, OrderEvent } from '../engine/index.ts';
import type { Exchange } from '../gateway/read-models/exchange.ts';
import { accountKeyOf } from '../gateway/shared/account-key.ts';
import { newRing, ringToArray } from '../gateway/shared/ring.ts';
import type { Reply } from '../sim/backtest/client.ts';
import { REPLAY_LONG, REPLAY_SHORT, STRATEGY_ADDRESS } from '../sim/backtest/replay-liquidity.ts';
import { recording, T0, MS } from './support/backtest-data.ts';

const BOOK = { type: 'book', snapshot: true, bids: [['96990.0', '2.0']], asks: [['97000.0', '0.5'], ['97010.0', '1.0']] } as const;
const ORACLE = { type: 'oracle', price: '97000.0' } as const;

function collector(): { fills: FillRecord[]; orders: OrderRecord[]; strategy: Strategy } {
  const fills: FillRecord[] = [];
  const orders: OrderRecord[] = [];
  return { fills, orders, strategy: { onFill: (f) => void fills.push(f), onOrderUpdate: (o) => void orders.push(o) } };
}

const buy = (quantity: string, price: string, timeInForce = 'GTT') => ({ marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce, quantity, price });

describe('orders travel through the engine against replayed liquidity: own fills consume it until the next book update', () => {
  it('a crossing buy takes the replayed asks at their prices as a taker, with the taker fee', async () => {
    const file = recording([{ at: 0, ...BOOK }, { at: 0, ...ORACLE }, { at: 1000, ...ORACLE }]);
    const { fills, strategy } = collector();
    strategy.onStart = (ctx) => void ctx.client.placeOrder(buy('0.8', '97010.0'));
    const result = await new Backtest({ data: { file }, markets: ['BTC-USD'] }, strategy).run();
    expect(fills.map((f) => [f.price, f.size, f.role, f.fee])).toEqual([
      ['97000.0', '0.5', 'TAKER', '21.825'],
      ['97010.0', '0.3', 'TAKER', '13.09635'],
    ]);
    expect(result.summary.pnl.fees).toBe('34.92135');
    expect(result.summary.positions).toEqual({ 'BTC-USD': '0.8' });
  });

  it('a batch of two crossing buys meets each replayed level once: the second takes what the first left', async () => {
    const file = recording([{ at: 0, ...BOOK }, { at: 0, ...ORACLE }, { at: 1000, ...ORACLE }]);
    const { fills, strategy } = collector();
    strategy.onStart = (ctx) => void ctx.client.batchPlaceOrders({ orders: [buy('0.4', '97010.0', 'IOC'), buy('0.4', '97010.0', 'IOC')] });
    await new Backtest({ data: { file }, markets: ['BTC-USD'] }, strategy).run();
    expect(fills.map((f) => [f.price, f.size])).toEqual([
      ['97000.0', '0.4'],
      ['97000.0', '0.1'],
      ['97010.0', '0.3'],
    ]);
  });

  it('liquidity taken stays taken until the recording updates that level, then shows again', async () => {
    const file = recording([
      { at: 0, ...BOOK },
      { at: 0, ...ORACLE },
      { at: 100, ...ORACLE },
      { at: 200, type: 'book', bids: [], asks: [['97000.0', '0.5']] },
      { at: 300, ...ORACLE },
    ]);
    const { fills, strategy } = collector();
    const asksSeen: [number, number][][] = [];
    strategy.onStart = async (ctx) => {
      await ctx.client.placeOrder(buy('0.8', '97010.0'));
      const second = await ctx.client.placeOrder(buy('1.0', '97010.0', 'IOC'));
      expect(second.status).toBe(202);
    };
    strategy.onBook = (book) => void asksSeen.push(book.asks.map(([p, s]) => [p, s]));
    strategy.onOraclePrice = async (update, ctx) => {
      if (update.time === T0 + 300 * MS) await ctx.client.placeOrder(buy('0.5', '97000.0', 'IOC'));
    };
    await new Backtest({ data: { file }, markets: ['BTC-USD'] }, strategy).run();
    expect(fills.map((f) => [f.price, f.size])).toEqual([
      ['97000.0', '0.5'],
      ['97010.0', '0.3'],
      ['97010.0', '0.7'],
      ['97000.0', '0.5'],
    ]);
    // The refreshed level shows its full recorded size; the consumed 97010 level stays empty.
    expect(asksSeen.at(-1)).toEqual([[97000, 0.5]]);
  });

  it('an order arriving after its latency meets the book as it is then, not as the strategy saw it', async () => {
    const records = [
      { at: 0, ...BOOK },
      { at: 0, ...ORACLE },
      { at: 10, type: 'book' as const, bids: [], asks: [['97000.0', '0'], ['97010.0', '0']] as [string, string][] },
      { at: 1000, ...ORACLE },
    ];
    const run = async (orderMs: number) => {
      const { fills, orders, strategy } = collector();
      strategy.onStart = (ctx) => void ctx.client.placeOrder(buy('0.2', '97000.0', 'IOC'));
      await new Backtest({ data: { file: recording(records) }, markets: ['BTC-USD'], latency: { order: orderMs } }, strategy).run();
      return { fills, orders };
    };
    expect((await run(0)).fills.map((f) => f.size)).toEqual(['0.2']);
    const late = await run(50);
    expect(late.fills).toEqual([]);
    expect(late.orders.map((o) => [o.status, o.rejectionReason])).toEqual([['REJECTED', 'IOC_CANCELED']]);
  });

  it('a post-only order that would take replayed liquidity is rejected POST_ONLY_WOULD_CROSS and counted by reason', async () => {
    const file = recording([{ at: 0, ...BOOK }, { at: 0, ...ORACLE }, { at: 10, ...ORACLE }]);
    const { strategy } = collector();
    strategy.onStart = (ctx) => {
      void ctx.client.placeOrder(buy('0.1', '97000.0', 'ALO'));
      void ctx.client.placeOrder(buy('0.1', '97000.05', 'ALO'));
    };
    const result = await new Backtest({ data: { file }, markets: ['BTC-USD'] }, strategy).run();
    expect(result.summary.rejections).toEqual({ POST_ONLY_WOULD_CROSS: 1, Tick: 1 });
  });
});

describe('queue position: the conservative model fills a resting order only after the displayed queue ahead has traded', () => {
  it('trades at the price eat the queue ahead first, then fill the order; a trade through the price fills the rest', async () => {
    const file = recording([
      { at: 0, ...BOOK },
      { at: 0, ...ORACLE },
      { at: 100, type: 'trade', side: 'SELL', price: '96990.0', size: '1.5' },
      { at: 100, type: 'book', bids: [['96990.0', '0.5']], asks: [] },
      { at: 200, type: 'trade', side: 'SELL', price: '96990.0', size: '0.7' },
      { at: 200, type: 'book', bids: [['96990.0', '0']], asks: [] },
      { at: 300, type: 'trade', side: 'SELL', price: '96980.0', size: '0.01' },
    ]);
    const { fills, strategy } = collector();
    strategy.onStart = (ctx) => void ctx.client.placeOrder(buy('0.5', '96990.0', 'ALO'));
    await new Backtest({ data: { file }, markets: ['BTC-USD'], queueModel: 'conservative' }, strategy).run();
    expect(fills.map((f) => [f.createdAt - T0, f.price, f.size, f.role])).toEqual([
      [200 * MS, '96990.0', '0.2', 'MAKER'],
      [300 * MS, '96990.0', '0.3', 'MAKER'],
    ]);
  });

  it('a replayed book that crosses a resting order fills it at the order price from the crossing level', async () => {
    const file = recording([
      { at: 0, ...BOOK },
      { at: 0, ...ORACLE },
      { at: 100, type: 'book', bids: [], asks: [['96985.0', '0.3']] },
      { at: 200, ...ORACLE },
    ]);
    const { fills, strategy } = collector();
    strategy.onStart = (ctx) => void ctx.client.placeOrder(buy('0.5', '96990.0', 'ALO'));
    await new Backtest({ data: { file }, markets: ['BTC-USD'] }, strategy).run();
    expect(fills.map((f) => [f.price, f.size, f.role])).toEqual([['96990.0', '0.3', 'MAKER']]);
  });
});

describe('queue position: the probabilistic model moves the order forward by cancels ahead of it with a seeded probability', () => {
  // Level 96990: 2.0 ahead of the order, then 2.0 more joins behind, then 2.0 is cancelled
  // (no trade explains it), then a 1.0 sell trades at the price.
  const records = [
    { at: 0, ...BOOK },
    { at: 0, ...ORACLE },
    { at: 100, type: 'book' as const, bids: [['96990.0', '4.0']] as [string, string][], asks: [] },
    { at: 200, type: 'book' as const, bids: [['96990.0', '2.0']] as [string, string][], asks: [] },
    { at: 300, type: 'trade' as const, side: 'SELL' as const, price: '96990.0', size: '1.0' },
  ];
  const filled = async (queueModel: 'conservative' | 'probabilistic', seed: number): Promise<string[]> => {
    const { fills, strategy } = collector();
    strategy.onStart = (ctx) => void ctx.client.placeOrder(buy('0.5', '96990.0', 'ALO'));
    await new Backtest({ data: { file: recording(records) }, markets: ['BTC-USD'], queueModel, seed }, strategy).run();
    return fills.map((f) => f.size);
  };

  it('the conservative model never counts those cancels as ahead', async () => {
    expect(await filled('conservative', 1)).toEqual([]);
  });

  it('the probabilistic model counts them ahead for some seeds and behind for others, the same way for the same seed', async () => {
    const outcomes: string[][] = [];
    for (let seed = 1; seed <= 12; seed++) outcomes.push(await filled('probabilistic', seed));
    expect(outcomes.some((o) => o.length === 0)).toBe(true);
    expect(outcomes.some((o) => o.join() === '0.5')).toBe(true);
    expect(await filled('probabilistic', 3)).toEqual(outcomes[2]);
  });
});

describe("the replay accounts' closed orders are not kept by the exchange's read model; the strategy's are", () => {
  it('after oracle prices placed and withdrew replayed levels around a resting order, only the strategy orders remain readable', async () => {
    const file = recording([{ at: 0, ...BOOK }, { at: 0, ...ORACLE }, { at: 100, ...ORACLE, price: '97001.0' }, { at: 200, ...ORACLE, price: '97002.0' }, { at: 300, ...ORACLE, price: '97003.0' }]);
    const { orders, strategy } = collector();
    let history: Reply | undefined;
    strategy.onStart = async (ctx) => {
      // Resting below the replayed bid: every later oracle price places the replayed best bid and ask in the engine, then withdraws them.
      await ctx.client.placeOrder(buy('0.1', '96000.0', 'GTT'));
      await ctx.client.placeOrder(buy('0.1', '95000.0', 'GTT'));
      await ctx.client.cancelOrder({ marketId: 1, orderId: orders.at(-1)!.orderId });
    };
    strategy.onEnd = (ctx) => void (history = ctx.client.read('orders'));
    const backtest = new Backtest({ data: { file }, markets: ['BTC-USD'] }, strategy);
    await backtest.run();
    const exchange = (backtest as unknown as { exchange: Exchange }).exchange;
    // The replayed levels were placed: order ids beyond the strategy's two.
    expect(exchange.engine.nextOrderId - 1).toBeGreaterThan(2 + 2);
    expect([...exchange.orders.values()].map((e) => [e.address, e.status])).toEqual([
      [STRATEGY_ADDRESS, 'OPEN'],
      [STRATEGY_ADDRESS, 'CANCELED'],
    ]);
    for (const address of [REPLAY_LONG, REPLAY_SHORT]) expect(ringToArray(exchange.closed.get(accountKeyOf(address, 0)) ?? newRing())).toEqual([]);
    expect((history!.body.orders as { price: string; status: string }[]).map((o) => [o.price, o.status])).toEqual([
      ['95000.0', 'CANCELED'],
      ['96000.0', 'OPEN'],
    ]);
  });
});

describe("a replayed backtest's exchange hears the engine's events but book, bbo and the replay accounts' orders, after the same commands as before; the engine's book still answers reads", () => {
  it("listeners run once per command that had events, hear the strategy's orders, no book event, and a bbo or replay order only as a command's lone stand-in", async () => {
    const file = recording([{ at: 0, ...BOOK }, { at: 0, ...ORACLE }, { at: 100, ...ORACLE, price: '97001.0' }, { at: 200, ...ORACLE, price: '97002.0' }]);
    const { strategy } = collector();
    let bbo: Reply | undefined;
    strategy.onStart = async (ctx) => void (await ctx.client.placeOrder(buy('0.1', '96000.0', 'GTT')));
    strategy.onEnd = (ctx) => void (bbo = ctx.client.read('bbo', { market: 'BTC-USD' }));
    const backtest = new Backtest({ data: { file }, markets: ['BTC-USD'] }, strategy);
    const exchange = (backtest as unknown as { exchange: Exchange }).exchange;
    const wiring = exchange.engine.wiring;
    const consumer = wiring.onRecords!;
    let commandsWithEvents = 0;
    wiring.onRecords = (records) => {
      commandsWithEvents++;
      consumer(records);
    };
    const batches: EngineEvent[][] = [];
    exchange.listeners.add((events) => void batches.push([...events]));
    await backtest.run();
    expect(batches.length).toBe(commandsWithEvents);
    const all = batches.flat();
    expect(all.filter((e) => e.type === 'order' && e.address === STRATEGY_ADDRESS).map((e) => (e as OrderEvent).status)).toEqual(['OPEN']);
    expect(all.some((e) => e.type === 'book')).toBe(false);
    const standIns = batches.filter((b) => b.some((e) => e.type === 'bbo' || (e.type === 'order' && e.address !== STRATEGY_ADDRESS)));
    // The replayed levels were placed and withdrawn around each later oracle price.
    expect(standIns.length).toBeGreaterThanOrEqual(4);
    for (const b of standIns) expect(b).toHaveLength(1);
    expect(bbo!.body).toMatchObject({ bestBid: { price: '96000.0', size: '0.1' }, bestAsk: null });
  });

  it('the simulator still hands the engine book to onBook', async () => {
    let books = 0;
    await new Backtest({ data: 'sim', markets: ['BTC-USD'], from: T0, to: T0 + 60_000 * MS }, { onBook: () => void books++ }).run();
    expect(books).toBeGreaterThan(0);
  });
});
