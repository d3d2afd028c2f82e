import { describe, expect, it } from 'vitest';
import { Backtest, type OrderRecord, type Reply, type Strategy } from '../index.ts';
import { T0 } from './support/backtest-data.ts';

const SIM = { data: 'sim' as const, markets: ['BTC-USD'], seed: 2, to: T0 + 5 * 60_000_000 };

describe("the strategy's client has the venue's operations and they apply the engine's rules", () => {
  it('setLeverage, a MARKET order with its fee, a TPSL leg, a cancel and a batch all answer like the REST routes', async () => {
    const replies: Record<string, Reply> = {};
    const orders: OrderRecord[] = [];
    let mark = 0;
    const strategy: Strategy = {
      onOraclePrice: (u) => void (mark = u.markPrice),
      onOrderUpdate: (o) => void orders.push(o),
      async onStart(ctx) {
        replies.leverage = await ctx.client.setLeverage({ marketId: 1, leverage: 3 });
        ctx.setTimer(30_000, 'trade');
      },
      async onTimer(_t, ctx) {
        replies.market = await ctx.client.placeOrder({ marketId: 1, orderSide: 'BUY', orderType: 'MARKET', timeInForce: 'IOC', quantity: '0.01', price: ctx.formatPrice(1, mark * 1.05, 'BUY') });
        replies.tpsl = await ctx.client.placeOrder({ marketId: 1, orderSide: 'SELL', orderType: 'MARKET', timeInForce: 'IOC', quantity: '0.01', price: ctx.formatPrice(1, mark * 0.8 * 0.95, 'SELL'), reduceOnly: true, tpslType: 'STOP_LOSS', stopPrice: ctx.formatPrice(1, mark * 0.8, 'SELL') });
        replies.resting = await ctx.client.placeOrder({ marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'ALO', quantity: '0.01', price: ctx.formatPrice(1, mark * 0.9, 'BUY'), clientId: 'rest-1' });
        replies.cancel = await ctx.client.cancelOrder({ marketId: 1, clientId: 'rest-1' });
        replies.batch = await ctx.client.batchPlaceOrders({ orders: [
          { marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'ALO', quantity: '0.01', price: ctx.formatPrice(1, mark * 0.9, 'BUY') },
          { marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'ALO', quantity: '0.01', price: '1.05' },
        ] });
        replies.account = ctx.client.read('account');
      },
    };
    const result = await new Backtest(SIM, strategy).run();
    expect(replies.leverage).toMatchObject({ status: 200, body: { status: 'APPLIED', leverage: 3 } });
    expect(replies.market).toMatchObject({ status: 202, body: { status: 'ACK' } });
    expect(replies.tpsl!.status).toBe(202);
    expect(orders.some((o) => o.status === 'TPSL_PLACED' && o.tpslType === 'STOP_LOSS')).toBe(true);
    expect(replies.cancel).toMatchObject({ status: 202, body: { status: 'CANCEL_ACKNOWLEDGED', clientId: 'rest-1' } });
    const rows = replies.batch!.body.responses as { status: string }[];
    expect(rows.map((r) => r.status)).toEqual(['ACK', 'ERROR']);
    expect(replies.account!.status).toBe(200);
    expect(result.summary.fills.taker).toBeGreaterThanOrEqual(1);
    expect(Number(result.summary.pnl.fees)).toBeGreaterThan(0);
    expect(result.summary.rejections).toEqual({ BATCH_ELEMENT_ERROR: 1 });
  });

  it('an order the margin cannot carry is rejected UNDERCOLLATERALIZED by the engine', async () => {
    const orders: OrderRecord[] = [];
    const strategy: Strategy = {
      onOrderUpdate: (o) => void orders.push(o),
      onStart: (ctx) => ctx.setTimer(1_000, 'go'),
      onTimer: async (_t, ctx) => {
        await ctx.client.placeOrder({ marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'ALO', quantity: '50', price: '90000.0' });
      },
    };
    const result = await new Backtest({ ...SIM, balance: '1000' }, strategy).run();
    expect(orders.map((o) => o.rejectionReason)).toEqual(['UNDERCOLLATERALIZED']);
    expect(result.summary.rejections).toEqual({ UNDERCOLLATERALIZED: 1 });
  });

  it('funding settles on the strategy position every hour of simulated time', async () => {
    let payments = 0;
    let mark = 0;
    const strategy: Strategy = {
      onOraclePrice: (u) => void (mark = u.markPrice),
      onFunding: (u) => void (u.payment !== undefined && payments++),
      onStart: (ctx) => ctx.setTimer(1_000, 'go'),
      onTimer: async (_t, ctx) => {
        await ctx.client.placeOrder({ marketId: 1, orderSide: 'SELL', orderType: 'MARKET', timeInForce: 'IOC', quantity: '0.05', price: ctx.formatPrice(1, mark * 0.95, 'SELL') });
      },
    };
    const result = await new Backtest({ ...SIM, to: T0 + 2 * 3_600_000_000 + 60_000_000, sim: { feedMs: 5_000 } }, strategy).run();
    expect(payments).toBe(2);
    expect(result.summary.pnl.funding).not.toBe('0.0');
  });
});

describe('async hooks run to their end before the backtest moves on', () => {
  it('every continuation of an async hook, however deep, runs before the next market event reaches the strategy', async () => {
    const log: string[] = [];
    const strategy: Strategy = {
      async onOraclePrice(u) {
        log.push(`start ${u.time}`);
        for (let i = 0; i < 25; i++) await null;
        log.push(`end ${u.time}`);
      },
    };
    await new Backtest({ ...SIM, to: T0 + 20_000_000 }, strategy).run();
    expect(log.length).toBeGreaterThanOrEqual(4);
    for (let i = 0; i < log.length; i += 2) {
      expect(log[i]).toMatch(/^start /);
      expect(log[i + 1]).toBe(log[i]!.replace('start', 'end'));
    }
  });

  it('an async hook that fails after awaiting the client fails the run with its error', async () => {
    let calls = 0;
    const strategy: Strategy = {
      async onOraclePrice(_u, ctx) {
        if (calls++ > 0) return;
        await ctx.client.cancelAllOrders({ marketId: 1 });
        throw new Error('failed after the reply');
      },
    };
    await expect(new Backtest(SIM, strategy).run()).rejects.toThrow('failed after the reply');
  });
});

describe('a Backtest without a strategy', () => {
  it('is refused when it is built, naming what it needs, whether the strategy or the factory\'s answer is missing', () => {
    expect(() => new Backtest(SIM, undefined as unknown as Strategy)).toThrow(/Backtest needs a strategy.*got undefined/);
    expect(() => new Backtest(SIM, (() => undefined) as unknown as Strategy)).toThrow(/Backtest needs a strategy.*a function returning undefined/);
  });
});
