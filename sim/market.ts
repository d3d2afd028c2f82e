/**
 * The simulated market, apart from any server: oracle feeds and liquidity agents stepping an
 * exchange on its own clock. The server (server.ts) and the backtester both drive it.
 */
import type { Exchange } from '../gateway/read-models/exchange.ts';
import { createAgents, noise, requote, type AgentParams } from './agents.ts';
import { createWalk, step, walkParamsFor, type WalkParams } from './feeds.ts';
import { createReplay, replayPrice, type PriceRow } from './replay-feed.ts';

export interface FeedOptions {
  seed: number;
  feedMs: number;
  walk: Partial<WalkParams>;
  walkByMarket: Readonly<Record<string, Partial<WalkParams>>>;
  replays: ReadonlyMap<number, readonly PriceRow[]>;
}

/**
 * The simulated market: an oracle feed per ONLINE market (a recorded file's replay, else the
 * random walk) and the liquidity agents. The returned function catches up to `now` in whole
 * feed steps (at most 50 per call, so an accelerated clock degrades gracefully; the steps'
 * times stay on their grid, so the feeds stay deterministic); the book is quoted at once.
 */
export function startMarket(exchange: Exchange, feeds: FeedOptions, agentParams: AgentParams): (now: number) => void {
  const agents = createAgents(exchange, feeds.seed, agentParams);
  let last = exchange.clock();
  const markets = [...exchange.engine.markets.values()]
    .filter((ms) => ms.spec.status === 'ONLINE' && ms.oraclePrice > 0)
    .map((ms) => {
      const rows = feeds.replays.get(ms.spec.id);
      if (rows !== undefined) {
        const replay = createReplay(ms.spec, rows, last);
        return { ms, next: (_dtUs: number, nowUs: number) => replayPrice(replay, nowUs) };
      }
      const walk = createWalk(ms.spec, ms.oraclePrice, feeds.seed, walkParamsFor(ms.spec.displayName, feeds.walk, feeds.walkByMarket));
      return { ms, next: (dtUs: number, nowUs: number) => step(walk, dtUs, nowUs) };
    });
  for (const { ms } of markets) requote(exchange, agents, ms);
  const stepUs = feeds.feedMs * 1000;
  return (now) => {
    let steps = Math.min(50, Math.floor((now - last) / stepUs));
    while (steps-- > 0) {
      last += stepUs;
      for (const { ms, next } of markets) {
        exchange.submit({ type: 'setOraclePrice', marketId: ms.spec.id, price: next(stepUs, last) });
        requote(exchange, agents, ms);
        noise(exchange, agents, ms);
      }
    }
  };
}
