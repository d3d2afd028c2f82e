/**
 * Example strategy: a market maker that quotes one bid and one ask around the book's mid,
 * skewed against its inventory, and re-quotes when the mid moves or after `requoteMs`.
 *
 * It only uses what the live venue offers (cancelAllOrders, batchPlaceOrders with ALO orders,
 * the book and fill streams), so the same logic runs against perpsim's server or the venue.
 *
 * Run: `perpsim backtest examples/market-maker.ts --data sim --out out/mm`
 * Sweep: `perpsim sweep examples/market-maker.ts --data sim --param spreadBps=2,4,8 --param size=0.01,0.02`
 */
import type { BacktestConfig, Strategy, StrategyContext } from '../index.ts';

export interface MarketMakerOptions {
  market?: string;
  /** Full quoted spread, basis points of the mid. */
  spreadBps?: number;
  /** Quote size, base units. */
  size?: number;
  /** No new quotes on the side that would take the position beyond this (base units). */
  maxPosition?: number;
  /** Quotes are refreshed at least this often (simulated ms) and whenever the mid moves by `moveBps`. */
  requoteMs?: number;
  moveBps?: number;
}

export function marketMaker(options: MarketMakerOptions = {}): Strategy {
  const market = options.market ?? 'BTC-USD';
  const spreadBps = options.spreadBps ?? 4;
  const size = options.size ?? 0.01;
  const maxPosition = options.maxPosition ?? 0.1;
  const requoteUs = (options.requoteMs ?? 5_000) * 1000;
  const moveBps = options.moveBps ?? 1;
  let position = 0;
  let lastQuoteAt = -Infinity;
  let lastMid = 0;
  let busy = false;
  return {
    onFill(fill) {
      if (fill.marketDisplayName === market) position += (fill.side === 'BUY' ? 1 : -1) * Number(fill.size);
    },
    // Synchronous until there is something to send: a hook that returns a promise costs the
    // backtest a turn of the event loop to let its continuations run, and most books change nothing.
    onBook(book, ctx) {
      if (busy || book.market !== market) return;
      const bid = book.bids[0]?.[0];
      const ask = book.asks[0]?.[0];
      if (bid === undefined || ask === undefined) return;
      const mid = (bid + ask) / 2;
      const moved = Math.abs(mid - lastMid) / mid >= moveBps / 10_000;
      if (!moved && ctx.now() - lastQuoteAt < requoteUs) return;
      busy = true;
      lastQuoteAt = ctx.now();
      lastMid = mid;
      return requote(ctx, book.marketId, mid, bid, ask);
    },
    async onEnd(ctx) {
      await ctx.client.cancelAllOrders();
    },
  };

  async function requote(ctx: StrategyContext, marketId: number, mid: number, bid: number, ask: number): Promise<void> {
    const half = (mid * spreadBps) / 20_000;
    // Lean against inventory: a long book quotes lower, a short one higher.
    const skew = (position / maxPosition) * half;
    const orders = [];
    const quantity = ctx.formatSize(marketId, size);
    if (position + size <= maxPosition) {
      orders.push({ marketId, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'ALO', quantity, price: ctx.formatPrice(marketId, Math.min(mid - half - skew, bid), 'BUY') });
    }
    if (position - size >= -maxPosition) {
      orders.push({ marketId, orderSide: 'SELL', orderType: 'LIMIT', timeInForce: 'ALO', quantity, price: ctx.formatPrice(marketId, Math.max(mid + half - skew, ask), 'SELL') });
    }
    await ctx.client.cancelAllOrders({ marketId });
    if (orders.length > 0) await ctx.client.batchPlaceOrders({ orders });
    busy = false;
  }
}

/** The parameters a sweep may vary, with their defaults (`perpsim sweep --param name=...`). */
export const parameters = { market: 'BTC-USD', spreadBps: 4, size: 0.01, maxPosition: 0.1, requoteMs: 5_000, moveBps: 1 };

/** A factory: each run (and each sweep point) builds a fresh strategy from its config.params. */
export default (config: BacktestConfig): Strategy => marketMaker({ ...parameters, ...(config.params as MarketMakerOptions | undefined) });
