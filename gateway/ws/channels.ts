/**
 * WebSocket channels: everything about a channel in one record (dYdX's three switches folded
 * into one place): its scope, the parameters its subscription identity includes, its snapshot
 * (the REST read for that channel, so the two always agree) and how engine events become its
 * `channel_data` contents.
 *
 * Identity: channel + id (market display name, or lowercase address) + the filters the channel
 * takes (accountIndex on account channels; nLevels/sigFigs/roundStep on books). Unsubscribe must
 * repeat it.
 */
import { findAccount, type EngineEvent, type MarketState } from '../../engine/index.ts';
import { bookSideLevels } from '../book-levels.ts';
import type { Exchange } from '../exchange.ts';
import { formatOrder, orderIdString, price, size } from '../format.ts';
import { marketRecord, marketsById } from '../markets.ts';
import { fillRecord } from '../operations/fills.ts';
import { positionRecords } from '../positions.ts';

export type Scope = 'market' | 'global' | 'account';

export interface Subscription {
  channel: string;
  /** The key of its identity (channel|id|filters). */
  key: string;
  /** Market display name or lowercase address, as echoed on frames. */
  id: string | undefined;
  market: MarketState | undefined;
  address: string | undefined;
  accountIndex: number | undefined;
  nLevels: number;
  sigFigs: number | undefined;
  roundStep: number | undefined;
}

export interface Channel {
  name: string;
  scope: Scope;
  /** Book parameters are part of this channel's identity. */
  book?: boolean;
  /** The `contents` of the subscribed frame; undefined: the channel has no snapshot. */
  snapshot?(exchange: Exchange, sub: Subscription): unknown;
  /** The `contents` of the channel_data frames one command's events produce for `sub`. */
  updates(exchange: Exchange, sub: Subscription, events: readonly EngineEvent[]): unknown[];
}

function bookContents(exchange: Exchange, sub: Subscription): Record<string, unknown> {
  const ms = sub.market!;
  const agg = { sigFigs: sub.sigFigs, roundStep: sub.roundStep };
  return {
    bids: bookSideLevels(ms.spec, ms.book.bids, 0, sub.nLevels, agg),
    asks: bookSideLevels(ms.spec, ms.book.asks, 1, sub.nLevels, agg),
    lastSequenceId: ms.seq,
    globalSequenceId: exchange.engine.seq.global,
    timestamp: exchange.clock(),
  };
}

function bboContents(exchange: Exchange, ms: MarketState): Record<string, unknown> {
  const bid = ms.book.bids.levels.at(-1);
  const ask = ms.book.asks.levels.at(-1);
  return {
    bestBid: bid === undefined ? null : { price: price(ms.spec, bid.price), size: size(ms.spec, bid.size) },
    bestAsk: ask === undefined ? null : { price: price(ms.spec, ask.price), size: size(ms.spec, ask.size) },
    lastSequenceId: ms.seq,
    globalSequenceId: exchange.engine.seq.global,
    timestamp: exchange.clock(),
  };
}

const mine = (sub: Subscription, e: { address: string; accountIndex: number; marketId?: number }): boolean =>
  e.address === sub.address && e.accountIndex === sub.accountIndex && (sub.market === undefined || e.marketId === sub.market.spec.id);

export const CHANNELS: Record<string, Channel> = {
  bbo: {
    name: 'bbo',
    scope: 'market',
    snapshot: (exchange, sub) => bboContents(exchange, sub.market!),
    updates: (exchange, sub, events) => events.filter((e) => e.type === 'bbo' && e.marketId === sub.market!.spec.id).map(() => bboContents(exchange, sub.market!)),
  },
  l2OrderbookUpdates: {
    name: 'l2OrderbookUpdates',
    scope: 'market',
    book: true,
    snapshot: bookContents,
    updates: (exchange, sub, events) => {
      const ms = sub.market!;
      const out: unknown[] = [];
      for (const e of events) {
        if (e.type !== 'book' || e.marketId !== ms.spec.id) continue;
        if (sub.sigFigs !== undefined) {
          // Aggregated books: the buckets' absolute sizes after the change, as a full delta.
          out.push({ ...bookContents(exchange, sub), lastSequenceId: e.marketSeq, globalSequenceId: e.globalSeq, timestamp: e.time });
          continue;
        }
        const pairs = (flat: number[]): [string, string][] => {
          const rows: [string, string][] = [];
          for (let i = 0; i < flat.length; i += 2) rows.push([price(ms.spec, flat[i]!), size(ms.spec, flat[i + 1]!)]);
          return rows;
        };
        out.push({ bids: pairs(e.bids), asks: pairs(e.asks), lastSequenceId: e.marketSeq, globalSequenceId: e.globalSeq, timestamp: e.time });
      }
      return out;
    },
  },
  trades: {
    name: 'trades',
    scope: 'market',
    updates: (_exchange, sub, events) => {
      const ms = sub.market!;
      const out: unknown[] = [];
      for (const e of events) {
        if (e.type !== 'trades' || e.marketId !== ms.spec.id) continue;
        out.push(
          e.entries.map((t) => ({
            marketDisplayName: ms.spec.displayName,
            price: price(ms.spec, t.price),
            size: size(ms.spec, t.size),
            tradeId: t.tradeId.toString(16),
            timestamp: e.time,
            takerOrderId: orderIdString(e.takerOrderId),
            takerAddress: t.takerAddress,
            makerOrderId: orderIdString(t.makerOrderId),
            makerAddress: t.makerAddress,
            sequenceNumber: e.marketSeq,
          })),
        );
      }
      return out;
    },
  },
  markets: {
    name: 'markets',
    scope: 'global',
    snapshot: (exchange) => ({ isSnapshot: true, markets: Object.fromEntries(marketsById(exchange).map((ms) => [String(ms.spec.id), marketRecord(ms)])) }),
    updates: (exchange, _sub, events) =>
      events.some((e) => e.type === 'market' || e.type === 'prices')
        ? [{ isSnapshot: true, markets: Object.fromEntries(marketsById(exchange).map((ms) => [String(ms.spec.id), marketRecord(ms)])) }]
        : [],
  },
  oraclePrices: {
    name: 'oraclePrices',
    scope: 'global',
    updates: (exchange, _sub, events) => {
      const out: unknown[] = [];
      for (const e of events) {
        if (e.type !== 'prices') continue;
        const ms = exchange.engine.markets.get(e.marketId)!;
        if (ms.spec.status !== 'ONLINE') continue;
        out.push({
          epoch: String(BigInt(e.time) * 1000n),
          prices: [{ marketDisplayName: ms.spec.displayName, marketId: ms.spec.id, price: price(ms.spec, e.oraclePrice), markPrice: e.markPrice > 0 ? price(ms.spec, e.markPrice) : '0', markEpochNanos: String(BigInt(e.time) * 1000n) }],
        });
      }
      return out;
    },
  },
  orders: {
    name: 'orders',
    scope: 'account',
    snapshot: (exchange, sub) => {
      const open: unknown[] = [];
      const closed: unknown[] = [];
      for (const e of exchange.orders.values()) {
        if (!mine(sub, e)) continue;
        const record = formatOrder(e, exchange.engine.markets.get(e.marketId)!.spec, true);
        if (e.status === 'OPEN' || e.status === 'PARTIALLY_FILLED' || e.status === 'TPSL_PLACED') open.push(record);
        else closed.push(record);
      }
      const account = findAccount(exchange.engine.accounts, sub.address!, sub.accountIndex!);
      return { isSnapshot: true, orders: open, recentClosedOrders: closed.slice(-100).reverse(), lastSequenceId: account?.seq ?? 0 };
    },
    updates: (exchange, sub, events) =>
      events.filter((e) => e.type === 'order' && mine(sub, e)).map((e) => (e.type === 'order' ? formatOrder(e, exchange.engine.markets.get(e.marketId)!.spec, true) : undefined)),
  },
  userFills: {
    name: 'userFills',
    scope: 'account',
    snapshot: (exchange, sub) => {
      const fills = (exchange.fills.get(`${sub.address}/${sub.accountIndex}`) ?? []).filter((f) => mine(sub, f));
      return { isSnapshot: true, fills: fills.slice(-sub.nLevels).reverse().map((f) => fillRecord(exchange, f)) };
    },
    updates: (exchange, sub, events) => events.filter((e) => e.type === 'fill' && mine(sub, e)).map((e) => (e.type === 'fill' ? { ...fillRecord(exchange, e), sequenceNumber: e.accountSeq, ...(e.clientId !== undefined ? { clientId: e.clientId } : {}) } : undefined)),
  },
  positions: {
    name: 'positions',
    scope: 'account',
    snapshot: (exchange, sub) => {
      const account = findAccount(exchange.engine.accounts, sub.address!, sub.accountIndex!);
      const rows = account === undefined ? [] : Object.values(positionRecords(exchange, account));
      return { isSnapshot: true, positions: rows, lastSequenceId: account?.seq ?? 0 };
    },
    updates: (exchange, sub, events) => {
      const rows: unknown[] = [];
      for (const e of events) {
        if (e.type !== 'position' || !mine(sub, e)) continue;
        const account = findAccount(exchange.engine.accounts, e.address, e.accountIndex)!;
        const ms = exchange.engine.markets.get(e.marketId)!;
        const current = positionRecords(exchange, account, false)[String(e.marketId)];
        rows.push({ ...(current ?? { address: e.address, accountIndex: e.accountIndex, marketId: e.marketId, marketDisplayName: ms.spec.displayName, size: '0.0', side: e.size > 0 ? 'LONG' : 'SHORT' }), sequenceNumber: e.accountSeq, ...(e.requestId !== undefined ? { requestId: e.requestId } : {}) });
      }
      return rows.length === 0 ? [] : [{ positions: rows, lastSequenceId: findAccount(exchange.engine.accounts, sub.address!, sub.accountIndex!)?.seq ?? 0 }];
    },
  },
};

