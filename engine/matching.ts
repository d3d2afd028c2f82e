/**
 * Matching: one taker against the opposite side of a book, price-time priority.
 *
 * Contract: `matchTaker` walks the best opposite levels while they cross the taker's limit
 * price, filling makers front to back, and reports each fill through `hooks.onFill` after the
 * maker has been reduced on the book (so a hook sees the book as it is). It never touches
 * accounts, margin or events: those belong to the stages around it (exchange-core's split of
 * risk / matching / settlement). It stops when `maxQty` is done, the book no longer crosses,
 * or the next maker belongs to the taker's own account (SELF_TRADE: the taker stops, the maker
 * keeps resting).
 *
 * Reduce-only makers may fill only what reduces their position: `hooks.makerAllowance` says
 * how much; a maker with nothing left to reduce is handed to `hooks.dropMaker`.
 */
import { reduceOrder, type Book } from './book.ts';
import type { Order } from './order.ts';

export const MATCH_DONE = 0;
export const MATCH_SELF_TRADE = 1;
export type MatchStop = typeof MATCH_DONE | typeof MATCH_SELF_TRADE;

export interface MatchHooks {
  onFill(maker: Order, price: number, qty: number): void;
  makerAllowance(maker: Order): number;
  dropMaker(maker: Order): void;
}

export function matchTaker(book: Book, taker: Order, maxQty: number, hooks: MatchHooks): MatchStop {
  const buy = taker.side === 0;
  const opposite = buy ? book.asks : book.bids;
  const limit = taker.price;
  let left = maxQty;
  while (left > 0) {
    const n = opposite.length;
    if (n === 0) break;
    const h = opposite.sorted[n - 1]!;
    const price = opposite.price[h]!;
    if (buy ? price > limit : price < limit) break;
    let maker = opposite.head[h] as Order | null;
    while (maker !== null && left > 0) {
      const next = maker.next;
      if (maker.account === taker.account) return MATCH_SELF_TRADE;
      let qty = left < maker.remaining ? left : maker.remaining;
      if (maker.reduceOnly) {
        const allowance = hooks.makerAllowance(maker);
        if (allowance <= 0) {
          hooks.dropMaker(maker);
          maker = next;
          continue;
        }
        if (allowance < qty) qty = allowance;
      }
      reduceOrder(book, maker, qty);
      left -= qty;
      hooks.onFill(maker, price, qty);
      maker = next;
    }
  }
  return MATCH_DONE;
}

/**
 * How much of `maxQty` a taker could fill right now at `limit` without meeting its own
 * account's orders: the FOK pre-check. Reduce-only makers count only their allowance.
 */
export function fillableQty(book: Book, taker: Order, maxQty: number, hooks: MatchHooks): number {
  const buy = taker.side === 0;
  const side = buy ? book.asks : book.bids;
  let total = 0;
  // Reduce-only makers of one account share that account's one position.
  let allowances: Map<Order['account'], number> | null = null;
  for (let i = side.length - 1; i >= 0 && total < maxQty; i--) {
    const h = side.sorted[i]!;
    const price = side.price[h]!;
    if (buy ? price > taker.price : price < taker.price) break;
    for (let maker = side.head[h] as Order | null; maker !== null && total < maxQty; maker = maker.next) {
      if (maker.account === taker.account) return total;
      if (!maker.reduceOnly) {
        total += maker.remaining;
        continue;
      }
      allowances ??= new Map();
      const left = allowances.get(maker.account) ?? Math.max(0, hooks.makerAllowance(maker));
      const take = Math.min(maker.remaining, left);
      allowances.set(maker.account, left - take);
      total += take;
    }
  }
  return total < maxQty ? total : maxQty;
}
