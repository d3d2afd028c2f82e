/**
 * The history read models behind one interface: closed orders, fills, trades, funding payments,
 * interest settlements and transfers — with two implementations.
 *
 * - memory (`memoryHistoryStore`, the default of every exchange): the bounded in-memory lists
 *   of exchange.ts (`closed`, `fills`, `trades`, `ledgers`, closed orders kept in `orders`).
 *   `--memory`, the tests and the backtester use it; it is part of images and nothing else.
 * - SQLite (`gateway/persistence/history-tables.ts`, installed by `Persistence.attach` when a
 *   database is open): indexed tables written in the journal's group-commit transaction; the
 *   exchange then keeps only live orders in memory and images carry only the journal position.
 *
 * Candles, notifications and portfolio series: the SQLite store also keeps closed bars
 * (`candles`, candles.ts), inbox items (`notifications`, notifications.ts) and portfolio points
 * (`portfolio`, portfolio.ts); with the memory store they stay in the candle series, the inboxes
 * and the portfolio series, bounded as before.
 *
 * Contract (both): lists are oldest first, in event order, which is also time order; each list
 * holds at most the newest `cap` entries of its kind for the key (ExchangeLimits), so a read sees the same rows in both modes until the memory lists drop old entries.
 * `closedOrder(id)` answers an order that closed and is still remembered (the live ones are in
 * `exchange.orders`; `orderOf` asks both). Reads see the writes of the turn so far. Pages
 * (`page`, `closedOrderPage`, `newestTrades`' window) answer what the same filters over the
 * capped lists answer: the SQLite store runs them in SQL over the newest `cap` rows.
 */
import type { EngineEvent, FillEvent, FundingPaymentEvent, InterestEvent, OrderEvent, OrderStatus, SideCode, TradesEvent, TransferEvent } from '../../engine/index.ts';
import type { ClosedBars } from './candles.ts';
import type { NotificationLog } from '../services/notifications.ts';
import type { SampleLog } from '../services/portfolio.ts';
import { accountHistory, type Ledgers } from './history.ts';
import { inWindow, type Page, type Window } from '../shared/window.ts';
import { newRing, ringAt, ringFindNewest, ringLength, ringNewestFirst, ringNewestInWindow, ringToArray, type Ring } from '../shared/ring.ts';

/** The per-account lists a filtered page is read from. */
export interface AccountLists {
  fills: FillEvent;
  funding: FundingPaymentEvent;
  interest: InterestEvent;
  transfers: TransferEvent;
}

export interface PageQuery<T> {
  /** Inclusive, on the event's time. */
  window: Window;
  /** Only this market's entries (fills, funding); null: every market. */
  marketId: number | null;
  /** Further conditions on the event (role, side, …). */
  matches?: ((e: T) => boolean) | undefined;
  limit: number;
}

/** The order lists' filters (order-rows.ts): market, statuses, side, createdAt window, limit. */
export interface OrderQuery {
  marketId: number | null;
  statuses: ReadonlySet<OrderStatus> | null;
  side: SideCode | null;
  /** Inclusive, on `createdAt`. */
  window: Window;
  limit: number;
}

/** Whether an order update passes the order lists' filters. */
export function orderMatches(e: OrderEvent, q: OrderQuery): boolean {
  return (q.marketId === null || e.marketId === q.marketId) && (q.statuses === null || q.statuses.has(e.status)) && (q.side === null || e.side === q.side) && inWindow(e.createdAt, q.window);
}

/** The order lists' order: newest first by createdAt, then by orderId (descending). */
export const newestCreatedFirst = (a: OrderEvent, b: OrderEvent): number => b.createdAt - a.createdAt || b.orderId - a.orderId;

/** Every time an event can carry (µs). */
export const ALL_TIME: Window = { from: Number.MIN_SAFE_INTEGER, to: Number.MAX_SAFE_INTEGER };

/** A time window whose ends may be open. */
export type OpenWindow = Partial<Window>;

export interface HistoryStore {
  readonly kind: 'memory' | 'sqlite';
  /** The events of one applied command (the exchange calls it before its listeners). */
  record(events: readonly EngineEvent[]): void;
  closedOrder(orderId: number): OrderEvent | undefined;
  closedOrders(accountKey: string): readonly OrderEvent[];
  /**
   * The account's remembered closed orders that match `query`, newest first by createdAt (then
   * orderId), up to `query.limit`; `total` counts every match. SQL on the SQLite store.
   */
  closedOrderPage(accountKey: string, query: OrderQuery): Page<OrderEvent>;
  /** The same matches, the latest to close first, up to `query.limit` (no count). */
  latestClosedOrders(accountKey: string, query: OrderQuery): OrderEvent[];
  fills(accountKey: string): readonly FillEvent[];
  /** The account's fill of that trade, newest first when there are two (self-trade). */
  fillOfTrade(accountKey: string, tradeId: number): FillEvent | undefined;
  trades(marketId: number): readonly TradesEvent[];
  /**
   * The same trades within `window` (inclusive, on time), newest first, read lazily (stop early:
   * the newest few cost little). The SQLite store reads the window as an index range.
   */
  newestTrades(marketId: number, window?: OpenWindow): Iterable<TradesEvent>;
  funding(accountKey: string): readonly FundingPaymentEvent[];
  interest(accountKey: string): readonly InterestEvent[];
  transfers(accountKey: string): readonly TransferEvent[];
  /**
   * One list's entries that match `query`, newest first, up to `query.limit`; `total` counts
   * every match — as `newestFirst` over the whole list (read-filters.ts). The SQLite store
   * filters by time (and market, for fills) and counts in SQL.
   */
  page<K extends keyof AccountLists>(list: K, accountKey: string, query: PageQuery<AccountLists[K]>): Page<AccountLists[K]>;
  /** Closed candle bars (candles.ts); undefined: the series in memory keep them. */
  readonly candles?: ClosedBars | undefined;
  /** Notification inbox items (notifications.ts); undefined: the inboxes in memory keep them. */
  readonly notifications?: NotificationLog | undefined;
  /** Portfolio points (portfolio.ts); undefined: the series in memory keep them. */
  readonly portfolio?: SampleLog | undefined;
}

/**
 * The memory store's lists (exchange.ts fills them; an `Exchange` is one), capped rings
 * (shared/ring.ts). Read through this object on every call: a restore replaces the lists wholesale.
 */
export interface MemoryHistory {
  orders: Map<number, OrderEvent>;
  closed: Map<string, Ring<number>>;
  fills: Map<string, Ring<FillEvent>>;
  trades: Map<number, Ring<TradesEvent>>;
  ledgers: Ledgers;
}

/** What a missing key reads as (never written). */
const NO_ENTRIES: Ring<never> = newRing();

/** An order's latest update: live, or closed and still remembered. */
export function orderOf(exchange: { orders: ReadonlyMap<number, OrderEvent>; history: HistoryStore }, orderId: number): OrderEvent | undefined {
  return exchange.orders.get(orderId) ?? exchange.history.closedOrder(orderId);
}

export function memoryHistoryStore(exchange: MemoryHistory): HistoryStore {
  const ledger = (accountKey: string): ReturnType<typeof accountHistory> => accountHistory(exchange.ledgers, accountKey);
  const ringOfList = <K extends keyof AccountLists>(list: K, accountKey: string): Ring<AccountLists[K]> =>
    (list === 'fills' ? (exchange.fills.get(accountKey) ?? NO_ENTRIES) : ledger(accountKey)[list as Exclude<K, 'fills'>]) as Ring<AccountLists[K]>;
  const store: HistoryStore = {
    kind: 'memory',
    record: () => {},
    // The memory read model keeps closed orders in `exchange.orders` with the live ones.
    closedOrder: () => undefined,
    closedOrders(accountKey) {
      const out: OrderEvent[] = [];
      const ids = exchange.closed.get(accountKey) ?? NO_ENTRIES;
      for (let i = 0, n = ringLength(ids); i < n; i++) {
        const e = exchange.orders.get(ringAt(ids, i));
        if (e !== undefined) out.push(e);
      }
      return out;
    },
    fills: (accountKey) => ringToArray(exchange.fills.get(accountKey) ?? NO_ENTRIES),
    fillOfTrade: (accountKey, tradeId) => ringFindNewest(exchange.fills.get(accountKey) ?? NO_ENTRIES, (f) => f.tradeId === tradeId),
    trades: (marketId) => ringToArray(exchange.trades.get(marketId) ?? NO_ENTRIES),
    closedOrderPage(accountKey, query) {
      const kept = store.closedOrders(accountKey).filter((e) => orderMatches(e, query));
      kept.sort(newestCreatedFirst);
      return { rows: kept.slice(0, query.limit), total: kept.length };
    },
    latestClosedOrders(accountKey, query) {
      const list = store.closedOrders(accountKey);
      const out: OrderEvent[] = [];
      for (let i = list.length - 1; i >= 0 && out.length < query.limit; i--) if (orderMatches(list[i]!, query)) out.push(list[i]!);
      return out;
    },
    // Time never decreases along the list: past `from`, nothing older is in the window.
    newestTrades: (marketId, window = {}) => ringNewestInWindow(exchange.trades.get(marketId) ?? NO_ENTRIES, window.from ?? -Infinity, window.to ?? Infinity),
    funding: (accountKey) => ringToArray(ledger(accountKey).funding),
    interest: (accountKey) => ringToArray(ledger(accountKey).interest),
    transfers: (accountKey) => ringToArray(ledger(accountKey).transfers),
    page(list, accountKey, query) {
      return ringNewestFirst(ringOfList(list, accountKey), (e) => entryMatches(e, query), query.limit);
    },
  };
  return store;
}

/** Whether an entry passes a page query's window, market and further conditions. */
export function entryMatches<T extends AccountLists[keyof AccountLists]>(e: T, query: PageQuery<T>): boolean {
  return inWindow(e.time, query.window) && (query.marketId === null || ('marketId' in e && e.marketId === query.marketId)) && (query.matches === undefined || query.matches(e));
}

