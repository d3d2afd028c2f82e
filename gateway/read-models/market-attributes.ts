/**
 * Market attribute blocks (interface.md, channel `marketAttributes`; supplement §7 market
 * record): the off-hours part of a market record, per ONLINE market.
 *
 * Contract:
 * - A block is the market record's (gateway/read-models/markets.ts `marketRecord`) marketId,
 *   marketDisplayName, offHoursInitialMarginFraction, isOutsideRth, currentSettlementPrice,
 *   upper/lowerTradingBound, nextUpper/nextLowerTradingBound, isUpper/isLowerInExpansionZone,
 *   upper/lowerZoneEnteredAt and upper/lowerExpectedExpansionAt, copied from it so the two never
 *   disagree. Unused fields are null, never omitted (perpsim models no off-hours bands yet, so
 *   the band fields and clocks are always null; isOutsideRth is the engine's flag).
 * - Streaming: only markets with regular trading hours stream (24/7 markets have isOutsideRth
 *   false and no updates). A block is re-read when a command emitted a `prices` or `market`
 *   event for its market (the engine re-evaluates isOutsideRth on each oracle price) and is sent
 *   only when it differs from the last one sent. An update is the whole block plus `timestamp`
 *   (the event's time, µs) and `marketSequenceNum`, a per-market counter of attribute updates
 *   starting at 1. `boundEvent` / `boundSide` would annotate band moves; without bands they
 *   never appear.
 * - One tracker per gateway (`createMarketAttributeTracker`, built by `createGateway`) keeps the
 *   last block sent and the counter per market, and the changes of one event batch are computed
 *   once and shared by every subscriber (the listener hands each subscriber the same array; the
 *   tracker remembers the last batch it answered). The tracker starts from the blocks of the
 *   moment it is created, and a snapshot re-reads every block, so a change made while nobody
 *   listened is not sent again after it.
 */
import type { EngineEvent, MarketState } from '../../engine/index.ts';
import type { Exchange } from './exchange.ts';
import { marketRecord, marketsById } from './markets.ts';
import { plainRecord } from '../../engine/index.ts';

export const MARKET_ATTRIBUTE_FIELDS = [
  'marketId',
  'marketDisplayName',
  'offHoursInitialMarginFraction',
  'isOutsideRth',
  'currentSettlementPrice',
  'upperTradingBound',
  'lowerTradingBound',
  'nextUpperTradingBound',
  'nextLowerTradingBound',
  'isUpperInExpansionZone',
  'isLowerInExpansionZone',
  'upperZoneEnteredAt',
  'lowerZoneEnteredAt',
  'upperExpectedExpansionAt',
  'lowerExpectedExpansionAt',
] as const;

export type MarketAttributeBlock = Record<(typeof MARKET_ATTRIBUTE_FIELDS)[number], unknown>;

export type MarketAttributeUpdate = MarketAttributeBlock & { timestamp: number; marketSequenceNum: number };

export interface MarketAttributeTracker {
  readonly exchange: Exchange;
  /** The last block sent (JSON) and the attribute-update counter, per marketId. */
  sent: Map<number, string>;
  seq: Map<number, number>;
  /** The last event batch answered and its updates (every subscriber gets the same array). */
  lastBatch: readonly EngineEvent[] | undefined;
  lastUpdates: MarketAttributeUpdate[];
}

const streams = (ms: MarketState): boolean => ms.spec.status === 'ONLINE' && ms.spec.def.regularTradingHours !== null;

const buildTracker = plainRecord<MarketAttributeTracker>();

export function createMarketAttributeTracker(exchange: Exchange): MarketAttributeTracker {
  const tracker = buildTracker({ exchange, sent: new Map(), seq: new Map(), lastBatch: undefined, lastUpdates: [] });
  for (const ms of exchange.engine.markets.values()) if (streams(ms)) tracker.sent.set(ms.spec.id, JSON.stringify(marketAttributeBlock(ms)));
  return tracker;
}

export function marketAttributeBlock(ms: MarketState): MarketAttributeBlock {
  const record = marketRecord(ms);
  const block = {} as MarketAttributeBlock;
  for (const field of MARKET_ATTRIBUTE_FIELDS) block[field] = record[field] ?? null;
  return block;
}

/** Every ONLINE market's block, ascending by marketId (the snapshot); resyncs the tracker. */
export function onlineAttributeBlocks(tracker: MarketAttributeTracker): MarketAttributeBlock[] {
  const exchange = tracker.exchange;
  const blocks: MarketAttributeBlock[] = [];
  for (const ms of marketsById(exchange)) {
    if (ms.spec.status !== 'ONLINE') continue;
    const block = marketAttributeBlock(ms);
    if (streams(ms)) tracker.sent.set(ms.spec.id, JSON.stringify(block));
    blocks.push(block);
  }
  return blocks;
}

/** The attribute updates one command's events cause (computed once per batch). */
export function attributeUpdates(tracker: MarketAttributeTracker, events: readonly EngineEvent[]): MarketAttributeUpdate[] {
  if (tracker.lastBatch === events) return tracker.lastUpdates;
  const exchange = tracker.exchange;
  const updates: MarketAttributeUpdate[] = [];
  const done = new Set<number>();
  for (const e of events) {
    if ((e.type !== 'prices' && e.type !== 'market') || done.has(e.marketId)) continue;
    done.add(e.marketId);
    const ms = exchange.engine.markets.get(e.marketId);
    if (ms === undefined || !streams(ms)) continue;
    const block = marketAttributeBlock(ms);
    const text = JSON.stringify(block);
    if (tracker.sent.get(ms.spec.id) === text) continue;
    tracker.sent.set(ms.spec.id, text);
    const seq = (tracker.seq.get(ms.spec.id) ?? 0) + 1;
    tracker.seq.set(ms.spec.id, seq);
    updates.push({ ...block, timestamp: e.time, marketSequenceNum: seq });
  }
  tracker.lastBatch = events;
  tracker.lastUpdates = updates;
  return updates;
}
