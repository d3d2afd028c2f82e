/**
 * Liquidity agents: ordinary accounts that trade through the same engine commands as everyone
 * (their fills, fees and funding are real).
 *
 * - The market maker quotes a ladder of `levels` bids and asks around the oracle price, spaced
 *   `spacingBps` apart and skewed against its inventory, and replaces it whenever the oracle
 *   moves. The replacement never shows the market an empty side that the book does not have
 *   at the end of the requote (the bbo channel publishes every command's top of book): old
 *   quotes the new ladder would cross are canceled first, the new ladder goes in as one
 *   batchPlace (one publication), then the rest of the old ladder is canceled order by order.
 * - The noise taker sends a market order of random side and size with probability
 *   `takeProbability` per step.
 * Both draw from a seeded PRNG.
 */
import { accountOrders, findAccount, positionOf, LIMITS, onTierTick, type BatchOrder, type Engine, type MarketState } from '../engine/index.ts';
import type { Exchange } from '../gateway/read-models/exchange.ts';
import { createPrng, type Prng } from './prng.ts';

export interface AgentParams {
  levels: number;
  spacingBps: number;
  /** USD notional per level. */
  levelNotionalUsd: number;
  /** Quote shift per unit of inventory notional, in bps per 10,000 USD. */
  skewBpsPer10k: number;
  takeProbability: number;
  takeNotionalUsd: number;
}

export const DEFAULT_AGENTS: AgentParams = { levels: 25, spacingBps: 2, levelNotionalUsd: 2_000, skewBpsPer10k: 1, takeProbability: 0.3, takeNotionalUsd: 500 };

const USD = 1_000_000_000n;
const DAY_US = 86_400_000_000;

export interface Agents {
  params: AgentParams;
  rng: Prng;
  maker: (marketId: number) => { address: string; accountIndex: number };
  taker: (marketId: number) => { address: string; accountIndex: number };
}

function agentAddress(kind: number, marketId: number): string {
  return '0x' + (kind.toString(16) + marketId.toString(16).padStart(6, '0')).padStart(40, '0');
}

export function createAgents(exchange: Exchange, seed: number, params: AgentParams = DEFAULT_AGENTS): Agents {
  const agents: Agents = {
    params,
    rng: createPrng(seed * 104_729 + 1),
    maker: (marketId) => ({ address: agentAddress(0xa9e47, marketId), accountIndex: 0 }),
    taker: (marketId) => ({ address: agentAddress(0x7a4e5, marketId), accountIndex: 0 }),
  };
  for (const ms of exchange.engine.markets.values()) {
    if (ms.spec.status !== 'ONLINE') continue;
    for (const who of [agents.maker(ms.spec.id), agents.taker(ms.spec.id)]) {
      // A recovered or restored state already funded them.
      if (findAccount(exchange.engine.accounts, who.address, who.accountIndex)?.activated === true) continue;
      exchange.submit({ type: 'deposit', ...who, amount: 1_000_000_000n * USD });
    }
  }
  return agents;
}

/** Quantums worth about `usd` at `price` ticks, at least the market's minimum size. */
function sizeFor(ms: MarketState, usd: number, price: number): number {
  const perQuantumUsd = (price * Number(ms.spec.valueMul)) / 1e9;
  const quantums = Math.floor(usd / perQuantumUsd);
  return Math.min(ms.spec.maxSize, Math.max(ms.spec.minSize, quantums));
}

function onTick(ms: MarketState, price: number, down: boolean): number {
  let p = Math.max(1, price);
  while (!onTierTick(ms.spec, p)) p += down ? -1 : 1;
  return Math.max(1, p);
}

/** Replaces the maker's ladder in one market around the current oracle price (see the header for the order of commands). */
export function requote(exchange: Exchange, agents: Agents, ms: MarketState): void {
  const oracle = ms.oraclePrice;
  if (oracle <= 0 || ms.spec.status !== 'ONLINE') return;
  const maker = agents.maker(ms.spec.id);
  const engine: Engine = exchange.engine;
  const now = exchange.clock();
  const account = engine.accounts.get(`${maker.address}/${maker.accountIndex}`);
  const inventory = account === undefined ? 0 : positionOf(account, ms.slot);
  const inventoryUsd = (inventory * oracle * Number(ms.spec.valueMul)) / 1e18;
  const { levels, spacingBps, levelNotionalUsd, skewBpsPer10k } = agents.params;
  const skew = Math.round((oracle * (inventoryUsd / 10_000) * skewBpsPer10k) / 10_000);
  const spacing = Math.max(1, Math.round((oracle * spacingBps) / 10_000));
  const ladder: BatchOrder[] = [];
  let topBid = 0;
  let lowAsk = Infinity;
  for (let k = 1; k <= levels; k++) {
    const bid = onTick(ms, oracle - skew - k * spacing, true);
    const ask = onTick(ms, oracle - skew + k * spacing, false);
    topBid = Math.max(topBid, bid);
    lowAsk = Math.min(lowAsk, ask);
    const jitter = 0.5 + agents.rng.next();
    for (const [side, price] of [[0, bid], [1, ask]] as const) {
      ladder.push({ ...maker, marketId: ms.spec.id, side, orderType: 0, tif: 3, price, size: sizeFor(ms, levelNotionalUsd * jitter, price), reduceOnly: false, goodTilTime: now + 40 * DAY_US });
    }
  }
  const old = account === undefined ? [] : accountOrders(account).filter((o) => o.marketId === ms.spec.id).map((o) => ({ id: o.id, crossed: o.side === 1 ? o.price <= topBid : o.price >= lowAsk }));
  const cancel = (orderId: number): void => void exchange.submit({ type: 'cancelOrder', ...maker, marketId: ms.spec.id, orderId });
  // Post-only quotes would be refused against the maker's own old quotes on the other side.
  for (const o of old) if (o.crossed) cancel(o.id);
  for (let i = 0; i < ladder.length; i += LIMITS.batchMax) exchange.submit({ type: 'batchPlace', orders: ladder.slice(i, i + LIMITS.batchMax) });
  for (const o of old) if (!o.crossed) cancel(o.id);
}

/** Maybe sends one market order from the noise taker. */
export function noise(exchange: Exchange, agents: Agents, ms: MarketState): void {
  if (ms.markPrice <= 0 || agents.rng.next() >= agents.params.takeProbability) return;
  const side = agents.rng.next() < 0.5 ? 0 : 1;
  const limit = onTick(ms, Math.round(ms.markPrice * (side === 0 ? 1.05 : 0.95)), side === 1);
  exchange.submit({
    type: 'placeOrder',
    ...agents.taker(ms.spec.id),
    marketId: ms.spec.id,
    side,
    orderType: 1,
    tif: 2,
    price: limit,
    size: sizeFor(ms, agents.params.takeNotionalUsd * (0.2 + agents.rng.next() * 1.6), ms.markPrice),
    reduceOnly: false,
    goodTilTime: exchange.clock() + 40 * DAY_US,
  });
}
