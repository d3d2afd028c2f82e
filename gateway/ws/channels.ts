/**
 * WebSocket channels: everything about a channel in one record (dYdX's three switches folded
 * into one place): its scope, the parameters its subscription identity includes, its snapshot
 * (the REST read for that channel, so the two always agree), how engine events become its
 * `channel_data` contents, and the periodic frames of the channels that send them. The
 * registry is keyed by the spec's channel list (engine/spec.ts WS_CHANNELS), so a channel of the
 * interface without a record does not compile.
 *
 * Identity: channel + id (market display name, `<market>/<timeframe>` for candles, or lowercase
 * address) + the filters the channel takes (accountIndex and `market` on account channels;
 * nLevels/sigFigs/roundStep on books). Unsubscribe must repeat it.
 *
 * Frame contents where the interface names fields but no shape (perpsim's choices, each quoted
 * at its record below):
 * - `isSnapshot: true` marks every full snapshot that is an object (orders, userFills,
 *   positions, markets, account, funding, accountAttributeUpdates, accountTransferUpdates,
 *   candles, exchangeAttributeUpdates, marketAttributes); predictedFunding is never wrapped
 *   (the interface says so), books and bbo are self-describing.
 * - Attribute channels (accountAttributeUpdates, exchangeAttributeUpdates, marketAttributes)
 *   carry `{isSnapshot, entries: [...]}`, each entry typed by `type` (account and exchange
 *   attributes) or a whole market block (marketAttributes), as the venue's clients read them.
 * - account updates: one update per frame, `{type, sequenceNumber, timestamp, netQuoteBalance,
 *   equity, freeCollateral, ...}` plus `order` (PLACED, CANCELED, MARGIN_CANCELED, REJECTED,
 *   TPSL_*), `rejectionReason` (REJECTED), `liquidation` (LIQUIDATION) or `adl` (ADL).
 * - funding, accountTransferUpdates, candles: one record per update frame, the REST row
 *   (funding adds the payment's account sequenceNumber).
 * - Every frame of one command reaches a connection in event order across its subscriptions
 *   (`Update.at`).
 *
 * Per-subscription memory (`Subscription.seen`) holds what a channel that emits on change last
 * sent that subscriber (the account's fee tier, the fee schedule, the newest candle bar).
 */
import {
  accountOrders,
  accountView,
  findAccount,
  LIMITS,
  type Account,
  type CandleTimeframe,
  type EngineEvent,
  type MarketState,
  type AccountUpdateType,
  type OrderEvent,
  type WsChannel,
} from '../../engine/index.ts';
import { candleRecord, readCandles } from '../read-models/candles.ts';
import { accountKeyOf } from '../shared/account-key.ts';
import type { Exchange } from '../read-models/exchange.ts';
import { ALL_TIME } from '../read-models/history-store.ts';
import { formatOrder, orderIdString, price, size, usd, type OrderRecord } from '../contract/format.ts';
import { marketRow, marketsById } from '../read-models/markets.ts';
import type { GatewayState } from '../contract/operation.ts';
import { account as accountRead } from '../operations/account-reads/account.ts';
import { transferUpdate, accountTransferUpdates as transfersRead } from '../operations/account-reads/account-transfer-updates.ts';
import { feeTiers as feeTiersRead, type FeeTierRecord, type FeeTiersReply } from '../operations/market-reads/fee-tiers.ts';
import { bboRecord } from '../operations/market-reads/bbo.ts';
import { fillRecord } from '../operations/account-reads/fills.ts';
import { funding as fundingRead, fundingPaymentRecord, fundingRateString } from '../operations/account-reads/funding.ts';
import { l2BookRecord } from '../operations/market-reads/l2-order-book.ts';
import { leverages as leveragesRead } from '../operations/account-reads/leverages.ts';
import { positionRecords } from '../read-models/positions.ts';
import { epochNanos } from '../operations/time.ts';
import { tradeRecord } from '../operations/market-reads/trades.ts';
import { attributeUpdates, onlineAttributeBlocks } from '../read-models/market-attributes.ts';
import { restRead } from './rest-read.ts';

export type Scope = 'market' | 'global' | 'account';

/**
 * One channel_data frame: its contents and `at`, the global sequence of the event it reports
 * (of the last one, for a frame that sums up several). The server sends a connection the frames
 * of one command in `at` order across its subscriptions, so a socket sees the command's events
 * in the order they happened (interface.md: a cancel-replace's CANCELED arrives before any fill
 * or place of the replacement, with increasing account sequence numbers).
 */
export interface Update {
  at: number;
  contents: unknown;
}

const frame = (e: { globalSeq: number }, contents: unknown): Update => ({ at: e.globalSeq, contents });


/** The last event of the batch that `matches` (ES2022 has no findLast). */
function lastOf(events: readonly EngineEvent[], matches: (e: EngineEvent) => boolean): EngineEvent | undefined {
  for (let i = events.length - 1; i >= 0; i--) if (matches(events[i]!)) return events[i];
  return undefined;
}

export interface Subscription {
  channel: WsChannel;
  /** The key of its identity (channel|id|filters). */
  key: string;
  /** Market display name, `<market>/<timeframe>` or lowercase address, as echoed on frames. */
  id: string | undefined;
  market: MarketState | undefined;
  address: string | undefined;
  accountIndex: number | undefined;
  /** Book channels: levels per side. */
  nLevels: number;
  sigFigs: number | undefined;
  roundStep: number | undefined;
  /** userFills: fills in the snapshot. */
  nFills: number;
  /** candles: the bar length. */
  timeframe: CandleTimeframe | undefined;
  /** Simulated µs of the last periodic frame (at first: of the subscribe). */
  lastPeriodicAt: number;
  /** What an emit-on-change channel last sent this subscriber. */
  seen: Map<string, string | number>;
  /** The text of its channel_data frames up to their contents (`{"type":"channel_data",…,"contents":`), once built. */
  dataPrefix: string | undefined;
}

/** The subscribe parameters a channel takes beyond id, accountIndex and snapshot. */
export interface ChannelParams {
  /** nLevels, sigFigs, roundStep: part of the identity. */
  book?: true;
  /** `market` narrows an account channel to one market (part of the identity). */
  market?: true;
  /** userFills' snapshot length. */
  nFills?: true;
  /** The id is `<market>/<timeframe>`. */
  timeframe?: true;
  /** A global channel that tolerates (and ignores) an id. */
  ignoresId?: true;
}

export interface Channel {
  name: WsChannel;
  scope: Scope;
  params?: ChannelParams;
  /** The `contents` of the subscribed frame; undefined: the channel has no snapshot. */
  snapshot?(state: GatewayState, sub: Subscription): unknown;
  /** The subscribed frame's contents when there is no snapshot to send. */
  ack?: unknown;
  /** Seeds the subscription's memory at subscribe time (also with snapshot:false). */
  start?(state: GatewayState, sub: Subscription): void;
  /** The channel_data frames one command's events produce for `sub`, in event order. */
  updates(state: GatewayState, sub: Subscription, events: readonly EngineEvent[]): Update[];
  /**
   * Frames sent on the simulated clock: once at least `everyUs` of exchange time has passed
   * since the subscription's last one (gateway/ws/server.ts runs the timer). `contents`
   * undefined: nothing to send this time.
   */
  periodic?: { everyUs: number; contents(state: GatewayState, sub: Subscription): unknown };
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

const mine = (sub: Subscription, e: { address: string; accountIndex: number; marketId?: number | undefined }): boolean =>
  e.address === sub.address && e.accountIndex === sub.accountIndex && (sub.market === undefined || e.marketId === sub.market.spec.id);

/** The subscription's market filter as the history store takes it. */
const marketOf = (sub: Subscription): number | null => (sub.market === undefined ? null : sub.market.spec.id);

const accountOf = (exchange: Exchange, sub: Subscription): Account | undefined => findAccount(exchange.engine.accounts, sub.address!, sub.accountIndex!);

const accountQuery = (sub: Subscription): Record<string, unknown> => ({ address: sub.address, accountIndex: sub.accountIndex });

const displayNameOf = (exchange: Exchange, marketId: number): string => exchange.engine.markets.get(marketId)!.spec.displayName;

function bookContents(exchange: Exchange, sub: Subscription): ReturnType<typeof l2BookRecord> {
  // nLevels ≤ 100 per side keeps every frame within the 300-level snapshot ceiling.
  const n = Math.min(sub.nLevels, LIMITS.l2SnapshotMaxLevels / 2);
  return l2BookRecord(exchange, sub.market!, n, { sigFigs: sub.sigFigs, roundStep: sub.roundStep });
}


const marketsSnapshot = (state: GatewayState): Record<string, unknown> => ({
  isSnapshot: true,
  markets: Object.fromEntries(marketsById(state.exchange).map((ms) => [String(ms.spec.id), marketRow(state, ms)])),
});

// ---------------------------------------------------------------------------------------------
// account: snapshot = GET /v1/account; updates from order, rejected, liquidation and adl events.

/** The account record (GET /v1/account) with isSnapshot; `{}` before the account's first deposit. */
function accountSnapshot(state: GatewayState, sub: Subscription): Record<string, unknown> {
  const record = restRead(state, accountRead, accountQuery(sub));
  return record === undefined ? {} : { isSnapshot: true, ...record };
}

/** netQuoteBalance, equity and freeCollateral after the command (equity and free collateral net of the hour's accrued funding, like GET /v1/account). */
function balances(exchange: Exchange, sub: Subscription): { netQuoteBalance: string; equity: string; freeCollateral: string } {
  const acct = accountOf(exchange, sub);
  if (acct === undefined) return { netQuoteBalance: usd(0n), equity: usd(0n), freeCollateral: usd(0n) };
  const view = accountView(exchange.engine, acct);
  return { netQuoteBalance: usd(view.netQuoteBalance), equity: usd(view.equity), freeCollateral: usd(view.freeCollateral) };
}

/**
 * The account update type of an order event, or undefined when the account channel does not
 * report it (fills are userFills' business; FILLED, LIQUIDATED and ADL orders end by fills).
 * OPEN / PARTIALLY_FILLED is PLACED: the order now rests with these terms (a placement, a
 * resting remainder after taking liquidity, a modify) — except a maker's partial fill, which
 * only reports the fill.
 */
function orderUpdateType(e: OrderEvent, makerFilled: () => ReadonlySet<number>): AccountUpdateType | undefined {
  switch (e.status) {
    case 'OPEN':
    case 'PARTIALLY_FILLED':
      return makerFilled().has(e.orderId) ? undefined : 'PLACED';
    case 'CANCELED':
    case 'MARGIN_CANCELED':
    case 'REJECTED':
    case 'TPSL_PLACED':
    case 'TPSL_CANCELED':
    case 'TPSL_TRIGGERED':
      return e.status;
    default:
      return undefined;
  }
}

export interface AccountUpdate {
  type: AccountUpdateType;
  /** The account sequence of the event (interface "Sequencing": AccountUpdate.sequenceNumber). */
  sequenceNumber: number;
  timestamp: number;
  netQuoteBalance: string;
  equity: string;
  freeCollateral: string;
  order?: OrderRecord | { orderId?: string; clientId?: string; marketId: number; marketDisplayName: string };
  /** A refused cancel or modify: which request it was. */
  command?: 'cancelOrder' | 'modifyOrder';
  rejectionReason?: string | null;
  liquidation?: { marketId: number | null; marketDisplayName: string | null; equity: string; maintenanceMargin: string };
  adl?: { marketId: number; marketDisplayName: string; size: string; price: string; liquidatedUser: string };
}

function accountUpdates(state: GatewayState, sub: Subscription, events: readonly EngineEvent[]): Update[] {
  const exchange = state.exchange;
  const out: Update[] = [];
  let makers: Set<number> | undefined;
  const makerFilled = (): ReadonlySet<number> => {
    makers ??= new Set(events.flatMap((f) => (f.type === 'fill' && f.role === 'MAKER' ? [f.orderId] : [])));
    return makers;
  };
  let money: ReturnType<typeof balances> | undefined;
  const base = (type: AccountUpdateType, e: { accountSeq: number; time: number }): AccountUpdate => {
    money ??= balances(exchange, sub);
    return { type, sequenceNumber: e.accountSeq, timestamp: e.time, ...money };
  };
  for (const e of events) {
    switch (e.type) {
      case 'order': {
        if (!mine(sub, e)) break;
        const type = orderUpdateType(e, makerFilled);
        if (type === undefined) break;
        const update = base(type, e);
        update.order = formatOrder(e, exchange.engine.markets.get(e.marketId)!.spec, true);
        if (type === 'REJECTED') update.rejectionReason = e.rejectionReason ?? null;
        out.push(frame(e, update));
        break;
      }
      case 'rejected': {
        if (!mine(sub, e)) break;
        const update = base('REJECTED', e);
        update.order = {
          ...(e.orderId !== undefined ? { orderId: orderIdString(e.orderId) } : {}),
          ...(e.clientId !== undefined ? { clientId: e.clientId } : {}),
          marketId: e.marketId,
          marketDisplayName: displayNameOf(exchange, e.marketId),
        };
        update.command = e.command;
        update.rejectionReason = e.rejectionReason;
        out.push(frame(e, update));
        break;
      }
      case 'liquidation': {
        if (!mine(sub, e)) break;
        const update = base('LIQUIDATION', e);
        update.liquidation = {
          marketId: e.marketId ?? null,
          marketDisplayName: e.marketId === undefined ? null : displayNameOf(exchange, e.marketId),
          equity: usd(e.equity),
          maintenanceMargin: usd(e.maintenance),
        };
        out.push(frame(e, update));
        break;
      }
      case 'adl': {
        if (!mine(sub, e)) break;
        const spec = exchange.engine.markets.get(e.marketId)!.spec;
        const update = base('ADL', e);
        update.adl = { marketId: e.marketId, marketDisplayName: spec.displayName, size: size(spec, e.size), price: price(spec, e.price), liquidatedUser: e.liquidatedUser };
        out.push(frame(e, update));
        break;
      }
      default:
        break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// accountAttributeUpdates and exchangeAttributeUpdates

/** The standing the feeTier entry carries (the REST standing without address and accountIndex). */
type FeeTierStanding = Omit<NonNullable<FeeTiersReply['account']>, 'address' | 'accountIndex'>;

/** The feeTier entry: the account's standing in the schedule (GET /v1/feetiers?address=). */
function feeTierEntry(state: GatewayState, sub: Subscription): { type: 'feeTier' } & FeeTierStanding {
  const { level, name, makerFeePpm, takerFeePpm, rollingVolume, lifetimeVolume, lifetimeFeesPaid } = restRead(state, feeTiersRead, accountQuery(sub))!.account!;
  return { type: 'feeTier', level, name, makerFeePpm, takerFeePpm, rollingVolume, lifetimeVolume, lifetimeFeesPaid };
}

/** The feeTierConfig entry: the schedule (GET /v1/feetiers). */
function feeTierConfigEntry(state: GatewayState): { type: 'feeTierConfig'; feeTiers: FeeTierRecord[] } {
  return { type: 'feeTierConfig', feeTiers: restRead(state, feeTiersRead, {})!.feeTiers };
}

function accountAttributeUpdates(state: GatewayState, sub: Subscription, events: readonly EngineEvent[]): Update[] {
  const exchange = state.exchange;
  const entries: Record<string, unknown>[] = [];
  let last: EngineEvent | undefined;
  for (const e of events) {
    if (!('address' in e) || !mine(sub, e)) continue;
    last = e;
    if (e.type !== 'leverage') continue;
    const common = { marketId: e.marketId, marketDisplayName: displayNameOf(exchange, e.marketId), leverage: e.leverage, isolated: e.isolated, marginMode: e.isolated ? 'ISOLATED' : 'CROSS', sequenceNumber: e.accountSeq };
    if (e.status === 'APPLIED') entries.push({ type: 'leverage', ...common, ...(e.requestId !== undefined ? { requestId: e.requestId } : {}) });
    // leverage: the setting still in effect.
    else entries.push({ type: 'leverageReject', ...common, status: 'REJECTED', rejectReason: e.rejectReason ?? null, requestId: e.requestId ?? null });
  }
  // The tier moves with the rolling 30-day volume: looked at whenever the account had events.
  if (last !== undefined) {
    const tier = feeTierEntry(state, sub);
    if (sub.seen.get('feeTier') !== tier.level) {
      sub.seen.set('feeTier', tier.level);
      entries.push(tier);
    }
  }
  return entries.length === 0 || last === undefined ? [] : [frame(last, { isSnapshot: false, entries })];
}

// ---------------------------------------------------------------------------------------------
// candles

function candleUpdates(state: GatewayState, sub: Subscription, events: readonly EngineEvent[]): Update[] {
  const ms = sub.market!;
  const trades = lastOf(events, (e) => e.type === 'trades' && e.marketId === ms.spec.id);
  if (trades === undefined) return [];
  const exchange = state.exchange;
  const timeframe = sub.timeframe!;
  const now = exchange.clock();
  const [bar, previous] = readCandles(state.candles, ms.spec.id, timeframe, { to: Number.MAX_SAFE_INTEGER, limit: 2 });
  if (bar === undefined) return [];
  const out: Update[] = [];
  // A new bar opened: the one this subscriber saw last is final now; say so once.
  if (previous !== undefined && sub.seen.get('openTime') === previous.openTime) out.push(frame(trades, candleRecord(ms.spec, timeframe, previous, now)));
  sub.seen.set('openTime', bar.openTime);
  out.push(frame(trades, candleRecord(ms.spec, timeframe, bar, now)));
  return out;
}

// ---------------------------------------------------------------------------------------------
// The registry

export const CHANNELS: Readonly<Record<WsChannel, Channel>> = {
  /**
   * "Periodic full snapshots about every 200 ms ... Snapshots carry up to 300 levels." Every
   * frame (the subscribed one too) is the GET /v1/l2OrderBook record at the subscription's
   * nLevels and aggregation: at most 100 levels a side, inside the 300-level ceiling. Periods
   * run on the simulated clock; frames echo sigFigs / roundStep (server.ts frameBase).
   */
  l2Orderbook: {
    name: 'l2Orderbook',
    scope: 'market',
    params: { book: true },
    snapshot: (state, sub) => bookContents(state.exchange, sub),
    updates: () => [],
    periodic: { everyUs: 200_000, contents: (state, sub) => bookContents(state.exchange, sub) },
  },
  l2OrderbookUpdates: {
    name: 'l2OrderbookUpdates',
    scope: 'market',
    params: { book: true },
    snapshot: (state, sub) => bookContents(state.exchange, sub),
    updates: (state, sub, events) => {
      const ms = sub.market!;
      const out: Update[] = [];
      for (const e of events) {
        if (e.type !== 'book' || e.marketId !== ms.spec.id) continue;
        if (sub.sigFigs !== undefined) {
          // Aggregated books: the buckets' absolute sizes after the change, as a full delta.
          out.push(frame(e, { ...bookContents(state.exchange, sub), lastSequenceId: e.marketSeq, globalSequenceId: e.globalSeq, timestamp: e.time }));
          continue;
        }
        const pairs = (flat: number[]): [string, string][] => {
          const rows: [string, string][] = [];
          for (let i = 0; i < flat.length; i += 2) rows.push([price(ms.spec, flat[i]!), size(ms.spec, flat[i + 1]!)]);
          return rows;
        };
        out.push(frame(e, { bids: pairs(e.bids), asks: pairs(e.asks), lastSequenceId: e.marketSeq, globalSequenceId: e.globalSeq, timestamp: e.time }));
      }
      return out;
    },
  },
  /** Rows are the REST trade records (marketId and the taker's `side` included, as live clients read them). */
  trades: {
    name: 'trades',
    scope: 'market',
    ack: {},
    updates: (state, sub, events) => {
      const ms = sub.market!;
      const out: Update[] = [];
      for (const e of events) {
        if (e.type !== 'trades' || e.marketId !== ms.spec.id) continue;
        out.push(frame(e, e.entries.map((t) => tradeRecord(state.exchange, e, t))));
      }
      return out;
    },
  },
  bbo: {
    name: 'bbo',
    scope: 'market',
    snapshot: (state, sub) => bboRecord(state.exchange, sub.market!),
    updates: (state, sub, events) => events.flatMap((e) => (e.type === 'bbo' && e.marketId === sub.market!.spec.id ? [frame(e, bboRecord(state.exchange, sub.market!))] : [])),
  },
  markets: {
    name: 'markets',
    scope: 'global',
    params: { ignoresId: true },
    snapshot: (state) => marketsSnapshot(state),
    updates: (state, _sub, events) => {
      const last = lastOf(events, (e) => e.type === 'market' || e.type === 'prices');
      return last === undefined ? [] : [frame(last, marketsSnapshot(state))];
    },
  },
  oraclePrices: {
    name: 'oraclePrices',
    scope: 'global',
    params: { ignoresId: true },
    updates: (state, _sub, events) => {
      const out: Update[] = [];
      for (const e of events) {
        if (e.type !== 'prices') continue;
        const ms = state.exchange.engine.markets.get(e.marketId)!;
        if (ms.spec.status !== 'ONLINE') continue;
        out.push(
          frame(e, {
            epoch: epochNanos(e.time),
            prices: [{ marketDisplayName: ms.spec.displayName, marketId: ms.spec.id, price: price(ms.spec, e.oraclePrice), markPrice: e.markPrice > 0 ? price(ms.spec, e.markPrice) : '0', markEpochNanos: epochNanos(e.time) }],
          }),
        );
      }
      return out;
    },
  },
  /**
   * "Entries by type: feeTierConfig (snapshot on subscribe, re-sent on operator change) and
   * marketAttributes (streaming only; superseded by marketAttributes channel)." The schedule is
   * compared with the one last sent after every command; marketAttributes entries are the
   * marketAttributes channel's updates with `type` added.
   */
  exchangeAttributeUpdates: {
    name: 'exchangeAttributeUpdates',
    scope: 'global',
    snapshot: (state) => ({ isSnapshot: true, entries: [feeTierConfigEntry(state)] }),
    start: (state, sub) => void sub.seen.set('feeTierConfig', JSON.stringify(feeTierConfigEntry(state))),
    updates: (state, sub, events) => {
      const entries: Record<string, unknown>[] = attributeUpdates(state.marketAttributes, events).map((u) => ({ type: 'marketAttributes', ...u }));
      const config = feeTierConfigEntry(state);
      const text = JSON.stringify(config);
      if (sub.seen.get('feeTierConfig') !== text) {
        sub.seen.set('feeTierConfig', text);
        entries.unshift(config);
      }
      return entries.length === 0 ? [] : [{ at: events.at(-1)!.globalSeq, contents: { isSnapshot: false, entries } }];
    },
  },
  /**
   * "Full current attribute block per online market ...; unused fields are null, never omitted.
   * Snapshot on subscribe, streaming updates replace the entry wholesale and add timestamp and
   * per-market marketSequenceNum ... 24/7 markets have isOutsideRth false and no streaming
   * updates." (market-attributes.ts)
   */
  marketAttributes: {
    name: 'marketAttributes',
    scope: 'global',
    snapshot: (state) => ({ isSnapshot: true, entries: onlineAttributeBlocks(state.marketAttributes) }),
    updates: (state, _sub, events) => {
      const updates = attributeUpdates(state.marketAttributes, events);
      return updates.length === 0 ? [] : [{ at: events.at(-1)!.globalSeq, contents: { isSnapshot: false, entries: updates } }];
    },
  },
  /** "{market, rate1h} on every recompute; empty contents when none yet; not wrapped in isSnapshot." rate1h: the hour's rate so far as a decimal fraction. */
  predictedFunding: {
    name: 'predictedFunding',
    scope: 'market',
    snapshot: (_state, sub) => {
      const ms = sub.market!;
      return ms.funding.samples === 0 && !ms.funding.fixed ? {} : { market: ms.spec.displayName, rate1h: fundingRateString(ms.funding.rate) };
    },
    updates: (_state, sub, events) =>
      events.flatMap((e) => (e.type === 'predictedFunding' && e.marketId === sub.market!.spec.id ? [frame(e, { market: sub.market!.spec.displayName, rate1h: fundingRateString(e.rate) })] : [])),
  },
  /**
   * "Snapshot, re-snapshot every 5 seconds, updates of type PLACED, CANCELED, MARGIN_CANCELED,
   * REJECTED, TPSL_PLACED, TPSL_CANCELED, TPSL_TRIGGERED, LIQUIDATION, ADL. netQuoteBalance on
   * every frame; equity and free collateral net accrued unsettled funding." Snapshots are the
   * GET /v1/account record plus isSnapshot (`{}` before the first deposit, and no re-snapshot
   * then); updates are AccountUpdate. Refused cancels and modifies are REJECTED updates too.
   */
  account: {
    name: 'account',
    scope: 'account',
    snapshot: accountSnapshot,
    updates: accountUpdates,
    periodic: {
      everyUs: 5_000_000,
      contents: (state, sub) => {
        const snapshot = accountSnapshot(state, sub);
        return Object.keys(snapshot).length === 0 ? undefined : snapshot;
      },
    },
  },
  /**
   * "Open positions only; deltas carry per-account lastSequenceId and per-row sequenceNumber."
   * `positions` is a map keyed by marketId (a string), as the REST positions reply and the live
   * connector read it; a delta holds each changed market's latest row (a closed one at size "0.0").
   */
  positions: {
    name: 'positions',
    scope: 'account',
    params: { market: true },
    snapshot: (state, sub) => {
      const acct = accountOf(state.exchange, sub);
      const rows = acct === undefined ? [] : Object.values(positionRecords(state.exchange, acct)).filter((row) => sub.market === undefined || row.marketId === sub.market.spec.id);
      return { isSnapshot: true, positions: Object.fromEntries(rows.map((row) => [String(row.marketId), row])), lastSequenceId: acct?.seq ?? 0 };
    },
    updates: (state, sub, events) => {
      const exchange = state.exchange;
      const rows: Record<string, unknown> = {};
      let last: EngineEvent | undefined;
      for (const e of events) {
        if (e.type !== 'position' || !mine(sub, e)) continue;
        last = e;
        const acct = findAccount(exchange.engine.accounts, e.address, e.accountIndex)!;
        const ms = exchange.engine.markets.get(e.marketId)!;
        const current = positionRecords(exchange, acct, false)[String(e.marketId)];
        rows[String(e.marketId)] = { ...(current ?? { address: e.address, accountIndex: e.accountIndex, marketId: e.marketId, marketDisplayName: ms.spec.displayName, size: '0.0', side: e.size > 0 ? 'LONG' : 'SHORT' }), sequenceNumber: e.accountSeq, ...(e.requestId !== undefined ? { requestId: e.requestId } : {}) };
      }
      return last === undefined ? [] : [frame(last, { positions: rows, lastSequenceId: accountOf(exchange, sub)?.seq ?? 0 })];
    },
  },
  /** "Snapshot (nFills 1-500, default 500) then live fills." */
  userFills: {
    name: 'userFills',
    scope: 'account',
    params: { market: true, nFills: true },
    snapshot: (state, sub) => {
      const fills = state.exchange.history.page('fills', accountKeyOf(sub.address!, sub.accountIndex!), { window: ALL_TIME, marketId: marketOf(sub), limit: sub.nFills }).rows;
      return { isSnapshot: true, fills: fills.map((f) => fillRecord(state.exchange, f)) };
    },
    updates: (state, sub, events) =>
      events.flatMap((e) => (e.type === 'fill' && mine(sub, e) ? [frame(e, { ...fillRecord(state.exchange, e), sequenceNumber: e.accountSeq, ...(e.clientId !== undefined ? { clientId: e.clientId } : {}) })] : [])),
  },
  /**
   * "Open and recent closed orders (up to 100 closed in snapshot) ...; snapshot carries
   * lastSequenceId." Open: the account's live orders (resting and untriggered) in placement
   * order; recentClosedOrders: the latest to close first.
   */
  orders: {
    name: 'orders',
    scope: 'account',
    params: { market: true },
    snapshot: (state, sub) => {
      const exchange = state.exchange;
      const acct = accountOf(exchange, sub);
      const record = (e: OrderEvent | undefined): OrderRecord[] =>
        e === undefined || !mine(sub, e) ? [] : [formatOrder(e, exchange.engine.markets.get(e.marketId)!.spec, true)];
      const open = acct === undefined ? [] : accountOrders(acct).flatMap((o) => record(exchange.orders.get(o.id)));
      const query = { marketId: marketOf(sub), statuses: null, side: null, window: ALL_TIME, limit: LIMITS.ordersSnapshotClosedMax };
      const closed = exchange.history.latestClosedOrders(accountKeyOf(sub.address!, sub.accountIndex!), query).flatMap(record);
      return { isSnapshot: true, orders: open, recentClosedOrders: closed, lastSequenceId: acct?.seq ?? 0 };
    },
    updates: (state, sub, events) => events.flatMap((e) => (e.type === 'order' && mine(sub, e) ? [frame(e, formatOrder(e, state.exchange.engine.markets.get(e.marketId)!.spec, true))] : [])),
  },
  /**
   * "Snapshot of up to 100 payments from the last 30 days, then one event per (market,
   * account) per payment time." Snapshot: GET /v1/funding (default 30-day window, newest first,
   * limit 100) plus isSnapshot; each update: one payment record plus its account sequenceNumber.
   */
  funding: {
    name: 'funding',
    scope: 'account',
    snapshot: (state, sub) => {
      const reply = restRead(state, fundingRead, { ...accountQuery(sub), limit: LIMITS.fundingSnapshotMax })!;
      return { isSnapshot: true, fundingPayments: reply.fundingPayments };
    },
    updates: (state, sub, events) => events.flatMap((e) => (e.type === 'funding' && mine(sub, e) ? [frame(e, { ...fundingPaymentRecord(state.exchange, e), sequenceNumber: e.accountSeq })] : [])),
  },
  /**
   * "Entries by type: leverage (per market, with isolated and marginMode), feeTier,
   * leverageReject (streaming only, with rejectReason ... and the originating requestId)."
   * Snapshot: a leverage entry for every market (GET /v1/leverages) and the feeTier entry; a
   * feeTier entry streams when the account's tier changes.
   */
  accountAttributeUpdates: {
    name: 'accountAttributeUpdates',
    scope: 'account',
    snapshot: (state, sub) => {
      const reply = restRead(state, leveragesRead, accountQuery(sub))!;
      return { isSnapshot: true, entries: [...reply.leverages.map((row) => ({ type: 'leverage', ...row })), feeTierEntry(state, sub)] };
    },
    start: (state, sub) => void sub.seen.set('feeTier', feeTierEntry(state, sub).level),
    updates: accountAttributeUpdates,
  },
  /**
   * "Deposits, withdrawals, internal transfers, referral claims; snapshot newest-first, then one
   * event per frame; globalSequenceId gives strict ordering." Snapshot: GET
   * /v1/accountTransferUpdates plus isSnapshot; each update: one row.
   */
  accountTransferUpdates: {
    name: 'accountTransferUpdates',
    scope: 'account',
    snapshot: (state, sub) => ({ isSnapshot: true, accountTransferUpdates: restRead(state, transfersRead, accountQuery(sub))!.accountTransferUpdates }),
    updates: (state, sub, events) => events.flatMap((e) => (e.type === 'transfer' && mine(sub, e) ? [frame(e, transferUpdate(state.exchange, e))] : [])),
  },
  /**
   * "Subscription id is <market>/<timeframe>; ... snapshot up to 200 candles then updates."
   * Snapshot newest first (like GET /v1/candles, supplement §12); each update is the bar the
   * command's trades went into, preceded once by the bar it superseded, now final.
   */
  candles: {
    name: 'candles',
    scope: 'market',
    params: { timeframe: true },
    snapshot: (state, sub) => {
      const exchange = state.exchange;
      const bars = readCandles(state.candles, sub.market!.spec.id, sub.timeframe!, { to: Number.MAX_SAFE_INTEGER, limit: LIMITS.candleSnapshotMax });
      const now = exchange.clock();
      return { isSnapshot: true, candles: bars.map((bar) => candleRecord(sub.market!.spec, sub.timeframe!, bar, now)) };
    },
    start: (state, sub) => {
      const [newest] = readCandles(state.candles, sub.market!.spec.id, sub.timeframe!, { to: Number.MAX_SAFE_INTEGER, limit: 1 });
      if (newest !== undefined) sub.seen.set('openTime', newest.openTime);
    },
    updates: candleUpdates,
  },
};

export function isChannelName(name: unknown): name is WsChannel {
  return typeof name === 'string' && Object.hasOwn(CHANNELS, name);
}
