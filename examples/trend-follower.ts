/**
 * Example strategy: a trend follower on the oracle price. A fast and a slow exponential moving
 * average, sampled every `intervalMs`; fast above slow by `thresholdBps` targets a long
 * position, below a short one, in between flat. It trades with MARKET IOC orders (price bound 5 %
 * from the mark, inside the venue's 10 % rule) and sets its leverage once at the start.
 *
 * Run: `perpsim backtest examples/trend-follower.ts --data sim --out out/trend`
 */
import type { Strategy } from '../index.ts';

export interface TrendFollowerOptions {
  market?: string;
  /** Target position, base units. */
  size?: number;
  intervalMs?: number;
  fastPeriods?: number;
  slowPeriods?: number;
  thresholdBps?: number;
  leverage?: number;
}

export function trendFollower(options: TrendFollowerOptions = {}): Strategy {
  const market = options.market ?? 'BTC-USD';
  const size = options.size ?? 0.05;
  const intervalMs = options.intervalMs ?? 10_000;
  const fastAlpha = 2 / ((options.fastPeriods ?? 6) + 1);
  const slowAlpha = 2 / ((options.slowPeriods ?? 30) + 1);
  const threshold = (options.thresholdBps ?? 2) / 10_000;
  let price = 0;
  let mark = 0;
  let fast = 0;
  let slow = 0;
  let position = 0;
  let pending = false;
  return {
    async onStart(ctx) {
      ctx.setTimer(intervalMs, 'sample');
      const marketId = ctx.markets.get(market);
      if (marketId !== undefined) await ctx.client.setLeverage({ marketId, leverage: options.leverage ?? 5 });
    },
    onOraclePrice(update) {
      if (update.market !== market) return;
      price = update.price;
      mark = update.markPrice > 0 ? update.markPrice : update.price;
    },
    onFill(fill) {
      if (fill.marketDisplayName === market) position += (fill.side === 'BUY' ? 1 : -1) * Number(fill.size);
    },
    async onTimer(timer, ctx) {
      if (timer.name !== 'sample') return;
      ctx.setTimer(intervalMs, 'sample');
      if (price <= 0) return;
      fast = fast === 0 ? price : fast + fastAlpha * (price - fast);
      slow = slow === 0 ? price : slow + slowAlpha * (price - slow);
      const signal = fast > slow * (1 + threshold) ? 1 : fast < slow * (1 - threshold) ? -1 : 0;
      const delta = signal * size - position;
      const marketId = ctx.markets.get(market)!;
      if (pending || Math.abs(delta) < size / 2) return;
      pending = true;
      const side = delta > 0 ? 'BUY' : 'SELL';
      await ctx.client.placeOrder({
        marketId,
        orderSide: side,
        orderType: 'MARKET',
        timeInForce: 'IOC',
        quantity: ctx.formatSize(marketId, Math.abs(delta)),
        price: ctx.formatPrice(marketId, side === 'BUY' ? mark * 1.05 : mark * 0.95, side),
        reduceOnly: signal === 0,
      });
      pending = false;
    },
  };
}

export default trendFollower();
