/**
 * Queue position of the strategy's resting orders against replayed liquidity.
 *
 * A resting order joins the back of its price level: `ahead` starts at the level's visible
 * replayed size. What moves it (docs/decisions.md "Queue position"):
 * - A replayed trade at the order's price, by an aggressor on the other side, first eats the
 *   queue ahead; what is left of the trade fills the order. A trade strictly through the price
 *   (a sell below a bid, a buy above an ask) fills the whole order: the aggressor swept the level.
 * - A level that grows grows behind the order.
 * - A level that shrinks without a trade to explain it lost cancels. `conservative` (risk-averse)
 *   never lets cancels move the order forward except when the level becomes smaller than the
 *   queue ahead (then `ahead` is the level). `probabilistic` draws, from a seeded PRNG, whether
 *   each such cancel was ahead of the order (probability ahead / (ahead + behind)) and moves it
 *   forward by the cancel when it was. Shrinkage that a replayed trade already explained (the
 *   recording's delta that follows its trade) is not counted twice.
 */
import { createPrng, type Prng } from '../prng.ts';

export type QueueModelName = 'conservative' | 'probabilistic';

/** One resting order of the strategy, as the replay tracks it. */
export interface OwnOrder {
  orderId: number;
  marketId: number;
  side: 0 | 1;
  price: number;
  remaining: number;
  /** Replayed size ahead of the order at its price. */
  ahead: number;
  /** Placement order among own orders (FIFO at one price). */
  seq: number;
}

export interface QueueModel {
  name: QueueModelName;
  /**
   * The level at the order's price shrank from `before` to `after` (both visible replayed
   * sizes), of which `traded` was already accounted for by replayed trades.
   */
  onShrink(order: OwnOrder, before: number, after: number, traded: number): void;
}

function clampToLevel(order: OwnOrder, after: number): void {
  if (order.ahead > after) order.ahead = after;
}

export function createQueueModel(name: QueueModelName, seed: number): QueueModel {
  if (name === 'conservative') {
    return { name, onShrink: (order, _before, after) => clampToLevel(order, after) };
  }
  const rng: Prng = createPrng(seed * 31 + 17);
  return {
    name,
    onShrink(order, before, after, traded) {
      const cancels = before - after - traded;
      if (cancels > 0 && order.ahead > 0) {
        const behind = Math.max(0, before - traded - order.ahead);
        if (rng.next() * (order.ahead + behind) < order.ahead) order.ahead = Math.max(0, order.ahead - cancels);
      }
      clampToLevel(order, after);
    },
  };
}

/**
 * A replayed trade (aggressor `side`, `price`, `size`) against the own orders of the other side,
 * best price first and FIFO at a price: how much each order is owed. Mutates `ahead`; answers
 * the total owed.
 */
export function tradeAgainst(orders: readonly OwnOrder[], side: 0 | 1, price: number, size: number, owed: Map<number, number>): number {
  let left = size;
  let total = 0;
  for (const order of orders) {
    // A sell aggressor meets bids (side 0) at or above its price; a buy meets asks at or below.
    if (order.side === side || order.remaining <= 0) continue;
    const through = side === 1 ? order.price > price : order.price < price;
    const at = order.price === price;
    if (!through && !at) continue;
    let fill = 0;
    if (through) fill = order.remaining;
    else {
      const eaten = Math.min(order.ahead, left);
      order.ahead -= eaten;
      left -= eaten;
      fill = Math.min(order.remaining, left);
      left -= fill;
    }
    if (fill > 0) {
      owed.set(order.orderId, (owed.get(order.orderId) ?? 0) + fill);
      total += fill;
    }
  }
  return total;
}
