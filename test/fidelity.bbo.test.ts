/**
 * The bbo channel agrees with the book while the default agents trade: a frame shows a side
 * empty only when the book's side is empty. The simulated market (sim/market.ts startMarket:
 * random-walk oracle, market maker, noise taker) runs in process on the harness clock; every
 * command's events go through the bbo channel's own update function, as the WebSocket fan-out
 * does, and each frame is compared with the book at the end of its requote step.
 */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../engine/index.ts';
import { CHANNELS, type Subscription } from '../gateway/ws/channels.ts';
import { DEFAULT_AGENTS } from '../sim/agents.ts';
import { startMarket } from '../sim/market.ts';
import { gateway } from './support/gateway-fixture.ts';
import { levelCount } from '../engine/book.ts';

interface BboContents {
  bestBid: unknown;
  bestAsk: unknown;
}

describe('bbo frames with the default agents', () => {
  it('no frame over ten virtual seconds has a null side while BTC-USD and ETH-USD books are two-sided', async () => {
    const h = await gateway();
    const market = startMarket(h.exchange, { seed: 1, feedMs: 100, walk: {}, walkByMarket: {}, replays: new Map() }, DEFAULT_AGENTS);
    const frames = new Map<number, BboContents[]>([[1, []], [2, []]]);
    for (const [marketId, list] of frames) {
      const sub = { channel: 'bbo', market: h.exchange.engine.markets.get(marketId)! } as Subscription;
      h.exchange.listeners.add((events: readonly EngineEvent[]) => {
        for (const u of CHANNELS.bbo.updates(h.state, sub, events)) list.push(u.contents as BboContents);
      });
    }
    let oneSidedBooks = 0;
    for (let step = 0; step < 100; step++) {
      h.now.us += 100_000;
      h.exchange.submit({ type: 'advanceTime' });
      market(h.now.us);
      for (const marketId of frames.keys()) {
        const book = h.exchange.engine.markets.get(marketId)!.book;
        if (levelCount(book.bids) === 0 || levelCount(book.asks) === 0) oneSidedBooks++;
      }
    }
    expect(oneSidedBooks).toBe(0);
    for (const [marketId, list] of frames) {
      expect(list.length, `market ${marketId} frames`).toBeGreaterThan(50);
      const oneSided = list.filter((c) => c.bestBid === null || c.bestAsk === null).length;
      expect(oneSided, `market ${marketId}: ${oneSided} of ${list.length} frames one-sided`).toBe(0);
    }
  });
});
