/**
 * Backtests run one after another in one thread (a sweep thread) share code, not state: the
 * validator that compiles the operations' request schemas is shared between them (BacktestShared),
 * and each run answers exactly what it answers alone, refusals included.
 */
import { describe, expect, it } from 'vitest';
import { Backtest } from '../sim/backtest/backtest.ts';
import type { Reply } from '../sim/backtest/client.ts';
import type { BacktestConfig, Strategy } from '../sim/backtest/types.ts';
import { createSchemaValidator } from '../gateway/contract/validator.ts';
import { createRequire } from 'node:module';
import { recording } from './support/backtest-data.ts';

const BOOK = { type: 'book', snapshot: true, bids: [['96990.0', '2.0']], asks: [['97000.0', '0.5'], ['97010.0', '1.0']] } as const;
const ORACLE = { type: 'oracle', price: '97000.0' } as const;

/** Buys across the replayed ask, sends one malformed order, and keeps every reply. */
function strategy(replies: Reply[]): Strategy {
  return {
    async onStart(ctx) {
      replies.push(await ctx.client.placeOrder({ marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', quantity: '0.6', price: '97010.0' }));
      replies.push(await ctx.client.placeOrder({ marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '0.1', price: 'not a price' }));
      replies.push(await ctx.client.placeOrder({ marketId: 1, orderSide: 'SIDEWAYS' }));
    },
  };
}

async function run(config: BacktestConfig, shared?: { validator: ReturnType<typeof createSchemaValidator> }): Promise<{ summary: string; replies: string }> {
  const replies: Reply[] = [];
  const result = await new Backtest(config, strategy(replies), shared).run();
  return { summary: result.summaryJson(), replies: JSON.stringify(replies) };
}

describe('backtests in one thread share the request validator, not state', () => {
  it('each run with the shared validator answers what it answers with its own, refusals included', async () => {
    const file = recording([{ at: 0, ...BOOK }, { at: 0, ...ORACLE }, { at: 1000, ...ORACLE, price: '97005.0' }]);
    const config: BacktestConfig = { data: { file }, markets: ['BTC-USD'] };
    const alone = await run(config);
    const validator = createSchemaValidator();
    const first = await run(config, { validator });
    const second = await run(config, { validator });
    expect(first).toEqual(alone);
    expect(second).toEqual(alone);
    const replies = JSON.parse(alone.replies) as Reply[];
    expect(replies.map((r) => r.status)).toEqual([202, 400, 400]);
    expect(JSON.stringify(replies[2]!.body)).toContain('must have required');
  });
});

describe('a thread\'s later backtests compile no request schema', () => {
  it('a run with the shared validator compiles nothing, batch elements included', async () => {
    const file = recording([{ at: 0, ...BOOK }, { at: 0, ...ORACLE }, { at: 1000, ...ORACLE, price: '97005.0' }]);
    const config: BacktestConfig = { data: { file }, markets: ['BTC-USD'] };
    const batch = (replies: Reply[]): Strategy => ({
      async onStart(ctx) {
        replies.push(await ctx.client.batchPlaceOrders({ orders: [{ marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '0.1', price: '96000.0' }] }));
        replies.push(await ctx.client.placeOrder({ marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '0.1', price: '95000.0' }));
      },
    });
    // Every compile goes through ajv's one class (CommonJS, so this is the instance the gateway loads).
    const Ajv = createRequire(import.meta.url)('ajv').default as { prototype: { compile: (...args: unknown[]) => unknown } };
    const compile = Ajv.prototype.compile;
    let compiles = 0;
    Ajv.prototype.compile = function (this: unknown, ...args: unknown[]) {
      compiles++;
      return compile.apply(this, args);
    };
    try {
      const validator = createSchemaValidator();
      const first: Reply[] = [];
      await new Backtest(config, batch(first), { validator }).run();
      expect(compiles).toBeGreaterThan(0);
      compiles = 0;
      const second: Reply[] = [];
      await new Backtest(config, batch(second), { validator }).run();
      expect(compiles).toBe(0);
      expect(second).toEqual(first);
      expect(first.map((r) => r.status)).toEqual([202, 202]);
    } finally {
      Ajv.prototype.compile = compile;
    }
  });
});
