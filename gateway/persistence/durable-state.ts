/**
 * What survives a restart: the engine, the live read models fed by its events, the gateway's own
 * durable state (API keys, spent nonces, replay protection, rate-limit pools) and the service
 * stores (affiliate program, notifications, preferences, leaderboard, portfolio) — as one image,
 * as one digest, and as journal records for the gateway changes that are not engine commands.
 *
 * Contract:
 * - `captureImage` is one copy of all of it (a flat table, graph-codec.ts, then v8.serialize),
 *   taken between commands;
 *   `restoreImage` puts an image back into the live objects (their identity is kept: listeners,
 *   the WebSocket channels and the simulator hold references to them).
 * - History (gateway/read-models/history-store.ts) is in an image as the memory store's lists, or — with
 *   SQLite history tables — as the journal position the image was taken at (`HistoryPart`);
 *   restoring the latter truncates the tables after that position (history-tables.ts).
 * - `stateHash(state)` digests the live parts (gateway/persistence/state-hash.ts): the engine,
 *   the live orders, the open candle bars, the inboxes without their items, the newest point of
 *   each portfolio series, funding rates, the gateway's collections and the service stores
 *   — not history (its rows are in the tables or the memory lists, depending on the mode, and a
 *   from-scratch replay rebuilds the same live state either way), not the journal and not the
 *   wall-clock token buckets of IPs.
 * - `watchGateway` swaps the gateway's Maps and Sets for journaled ones (same entries) so that
 *   every set/add/delete/clear is appended as a `gateway` record, and has the replay slots
 *   journal each take with its clocks (a `replay` record, replayed with the same drops);
 *   `applyRecord` replays any journal record. Gateway records are applied in journal order with the engine commands.
 */
import { deserialize, serialize } from 'node:v8';
import { engineState, graftEngine, type Command, type EngineState, type FillEvent, type FundingPaymentEvent, type InterestEvent, type TradesEvent, type TransferEvent } from '../../engine/index.ts';
import type { CandleStore } from '../read-models/candles.ts';
import type { Exchange } from '../read-models/exchange.ts';
import { TERMINAL_ORDER_STATUSES } from '../../engine/spec.ts';
import type { FundingRateStore } from '../read-models/funding-rates-store.ts';
import type { LeaderboardState } from '../services/leaderboard.ts';
import type { NotificationState } from '../services/notifications.ts';
import type { GatewayState, ServiceStore } from '../contract/operation.ts';
import type { ReplayImage } from '../auth/replay-slots.ts';
import type { PortfolioState } from '../services/portfolio.ts';
import type { PreferencesState } from '../services/preferences.ts';
import type { ReferralState } from '../services/referral.ts';
import { decodeGraph, encodeGraph, type EncodedGraph } from './graph-codec.ts';
import type { SqliteHistoryStore } from './history-tables.ts';
import type { Journal } from './journal.ts';
import { stateHash as digest } from './state-hash.ts';
import { ringOf, ringToArray } from '../shared/ring.ts';

type GatewayField = 'keys' | 'pools' | 'replay' | 'nonces';

export type JournalRecord =
  | { kind: 'command'; command: Command }
  | { kind: 'gateway'; field: GatewayField; op: 'set' | 'add' | 'delete' | 'clear'; key?: unknown; value?: unknown }
  /**
   * A service store changed by a request rather than an engine event: the wallet's new entry
   * (notifications, preferences), or the whole affiliate store (its writes touch several
   * wallets: codes, bindings, referees). Event-driven changes replay with the commands.
   */
  | { kind: 'service'; store: ServiceStore; wallet: string; value: unknown }
  /**
   * A replay slot taken at these clocks (µs), or every slot cleared: `ReplaySlots.take` replays
   * with the same drops. Journals written before slots had ages hold `gateway` records of field
   * 'replay' instead (an add or a drop each), still applied.
   */
  | { kind: 'replay'; op: 'take'; signature: string; wallUs: number; simUs: number }
  | { kind: 'replay'; op: 'clear' }
  /** The state went back to the initial image (POST /sim/reset). */
  | { kind: 'reset' }
  /** The state became a saved image (POST /sim/restore): its row in `images`. */
  | { kind: 'restore'; imageId: number };

/**
 * History in an image: the memory store's lists, or the journal position of SQLite tables. The
 * lists are rings in memory (shared/ring.ts) and oldest-first arrays in images, the layout of
 * the plain lists before the rings, so image bytes did not change.
 */
export type HistoryPart =
  | { kind: 'memory'; closed: Map<string, number[]>; fills: Map<string, FillEvent[]>; trades: Map<number, TradesEvent[]>; ledgers: Map<string, { funding: FundingPaymentEvent[]; interest: InterestEvent[]; transfers: TransferEvent[] }> }
  | { kind: 'sqlite'; seq: number };

type MemoryPart = Extract<HistoryPart, { kind: 'memory' }>;

function mapValues<K, A, B>(map: ReadonlyMap<K, A>, f: (a: A) => B): Map<K, B> {
  const out = new Map<K, B>();
  for (const [k, v] of map) out.set(k, f(v));
  return out;
}

function memoryPart(exchange: Exchange): MemoryPart {
  return {
    kind: 'memory',
    closed: mapValues(exchange.closed, ringToArray),
    fills: mapValues(exchange.fills, ringToArray),
    trades: mapValues(exchange.trades, ringToArray),
    ledgers: mapValues(exchange.ledgers, (h) => ({ funding: ringToArray(h.funding), interest: ringToArray(h.interest), transfers: ringToArray(h.transfers) })),
  };
}

interface Durable {
  engine: EngineState;
  /** Live orders; with the memory history store also the remembered closed ones. */
  orders: Exchange['orders'];
  history: HistoryPart;
  candles: CandleStore['series'];
  fundingRates: FundingRateStore['byMarket'];
  keys: Map<string, unknown>;
  pools: Map<string, unknown>;
  /** A `Set` of lowercase slots without ages in images written before slots had ages. */
  replay: ReplayImage | Set<string>;
  nonces: Set<string>;
  referral: ReferralState;
  notifications: NotificationState;
  preferences: PreferencesState;
  leaderboard: LeaderboardState;
  portfolio: PortfolioState;
}

function durableParts(state: GatewayState, replay: Durable['replay']): Durable {
  const exchange = state.exchange;
  return {
    engine: engineState(exchange.engine),
    orders: exchange.orders,
    history:
      exchange.history.kind === 'memory'
        ? memoryPart(exchange)
        : { kind: 'sqlite', seq: (exchange.history as SqliteHistoryStore).position() },
    candles: state.candles.series,
    fundingRates: state.fundingRates.byMarket,
    keys: state.keys.byKey,
    pools: state.pools,
    replay,
    nonces: state.nonces,
    referral: state.referral,
    notifications: state.notifications,
    preferences: state.preferences,
    leaderboard: state.leaderboard,
    portfolio: state.portfolio,
  };
}

/** The record of a service write: a copy, since the journal encodes records at the end of the turn. */
export function serviceRecord(state: GatewayState, store: ServiceStore, wallet: string): JournalRecord {
  switch (store) {
    case 'referral':
      return { kind: 'service', store, wallet, value: structuredClone(state.referral) };
    case 'notifications': {
      const ns = state.notifications;
      return { kind: 'service', store, wallet, value: structuredClone({ inbox: ns.inboxes.get(wallet), nextId: ns.nextId }) };
    }
    case 'preferences':
      return { kind: 'service', store, wallet, value: structuredClone(state.preferences.byWallet.get(wallet)) };
  }
}

function applyService(state: GatewayState, record: Extract<JournalRecord, { kind: 'service' }>): void {
  switch (record.store) {
    case 'referral':
      state.referral = record.value as ReferralState;
      return;
    case 'notifications': {
      const { inbox, nextId } = record.value as { inbox: NotificationState['inboxes'] extends Map<string, infer I> ? I | undefined : never; nextId: number };
      const ns = state.notifications;
      if (inbox === undefined) ns.inboxes.delete(record.wallet);
      else ns.inboxes.set(record.wallet, inbox);
      ns.nextId = nextId;
      return;
    }
    case 'preferences': {
      const byWallet = state.preferences.byWallet;
      const doc = record.value as PreferencesState['byWallet'] extends Map<string, infer D> ? D | undefined : never;
      if (doc === undefined) byWallet.delete(record.wallet);
      else byWallet.set(record.wallet, doc);
      return;
    }
  }
}

/**
 * The engine and read models are digested as one graph (their shared references are part of
 * the state); the gateway's collections entry by entry, because their values come back from
 * the journal one record at a time and whether two entries share an immutable value (the fresh
 * pools do) means nothing.
 */
export function stateHash(state: GatewayState): string {
  // The replay slots as the Set of lowercase spellings, oldest first, that they were before they
  // had ages: the digest of a state is the one earlier versions logged (ages are left out).
  const { keys, pools, replay, nonces, history: _history, orders, candles, notifications, portfolio, ...rest } = durableParts(state, new Set(state.replay.slots()));
  const live = new Map<number, unknown>();
  for (const [id, e] of orders) if (!TERMINAL_ORDER_STATUSES.has(e.status)) live.set(id, e);
  // A series' open bar is live; the closed ones are history (memory series or SQLite rows).
  const openBars = new Map<string, unknown>();
  for (const [key, bars] of candles) openBars.set(key, bars[bars.length - 1]);
  // Inbox items are history (the inboxes or SQLite rows); tokens and the clock of each inbox are live.
  const inboxes = new Map<string, unknown>();
  for (const [wallet, inbox] of notifications.inboxes) inboxes.set(wallet, { tokens: inbox.tokens, lastNs: inbox.lastNs });
  // A portfolio series' newest point and cadence decide the next sample; its older points are history.
  const accounts = new Map<string, unknown>();
  for (const [key, a] of portfolio.accounts) accounts.set(key, { realized: a.realized, series: a.series.map((s) => ({ cadenceUs: s.cadenceUs, last: s.points[s.points.length - 1] })) });
  const graph = { ...rest, orders: live, candles: openBars, notifications: { inboxes, nextId: notifications.nextId }, portfolio: { nextSampleAt: portfolio.nextSampleAt, accounts } };
  const entries = (map: Map<string, unknown>): [string, string][] => [...map].map(([k, v]) => [k, digest(v)]);
  return digest({ graph, keys: entries(keys), pools: entries(pools), replay, nonces });
}

export function captureImage(state: GatewayState): Buffer {
  return serialize(encodeGraph(durableParts(state, state.replay.image())));
}

function refill<K, V>(live: Map<K, V>, image: Map<K, V>): void;
function refill<T>(live: Set<T>, image: Set<T>): void;
function refill(live: Map<unknown, unknown> | Set<unknown>, image: Map<unknown, unknown> | Set<unknown>): void {
  live.clear();
  if (live instanceof Map) for (const [k, v] of image as Map<unknown, unknown>) live.set(k, v);
  else for (const v of image as Set<unknown>) live.add(v);
}

/** Puts an image back into the live state; the journal is muted meanwhile (the caller journals the restore itself). */
export function restoreImage(state: GatewayState, image: Buffer, journal?: Journal): void {
  const parts = decodeGraph(deserialize(image) as EncodedGraph) as Durable;
  const exchange = state.exchange;
  const muted = journal?.muted ?? false;
  if (journal !== undefined) journal.muted = true;
  try {
    graftEngine(exchange.engine, parts.engine);
    exchange.orders = parts.orders;
    restoreHistory(exchange, parts.history);
    state.candles.series = parts.candles;
    state.fundingRates.byMarket = parts.fundingRates;
    refill(state.keys.byKey as Map<string, unknown>, parts.keys);
    refill(state.pools as Map<string, unknown>, parts.pools);
    state.replay.load(parts.replay);
    refill(state.nonces, parts.nonces);
    state.referral = parts.referral;
    state.notifications = parts.notifications;
    state.preferences = parts.preferences;
    state.leaderboard = parts.leaderboard;
    state.portfolio = parts.portfolio;
  } finally {
    if (journal !== undefined) journal.muted = muted;
  }
}

/**
 * Memory store: the image's lists (empty when the image came from SQLite tables). SQLite store:
 * the tables back to the image's position (nothing while recovering, see history-tables.ts); an
 * image with memory lists (the backtester's, an older perpsim's) leaves the tables as they are.
 */
function restoreHistory(exchange: Exchange, part: HistoryPart | undefined): void {
  if (exchange.history.kind === 'memory') {
    const memory = part?.kind === 'memory' ? part : undefined;
    exchange.closed = memory === undefined ? new Map() : mapValues(memory.closed, ringOf);
    exchange.fills = memory === undefined ? new Map() : mapValues(memory.fills, ringOf);
    exchange.trades = memory === undefined ? new Map() : mapValues(memory.trades, ringOf);
    exchange.ledgers = memory === undefined ? new Map() : mapValues(memory.ledgers, (h) => ({ funding: ringOf(h.funding), interest: ringOf(h.interest), transfers: ringOf(h.transfers) }));
    if (memory === undefined) for (const [id, e] of exchange.orders) if (TERMINAL_ORDER_STATUSES.has(e.status)) exchange.orders.delete(id);
    return;
  }
  const tables = exchange.history as SqliteHistoryStore;
  if (part?.kind === 'sqlite') tables.truncateAfter(part.seq);
  for (const [id, e] of exchange.orders) if (TERMINAL_ORDER_STATUSES.has(e.status)) exchange.orders.delete(id);
}

class JournaledMap<K, V> extends Map<K, V> {
  constructor(private readonly field: GatewayField, private readonly journal: Journal, entries: Iterable<[K, V]>) {
    super();
    for (const [k, v] of entries) super.set(k, v);
  }
  override set(key: K, value: V): this {
    this.journal.append({ kind: 'gateway', field: this.field, op: 'set', key, value } satisfies JournalRecord);
    return super.set(key, value);
  }
  override delete(key: K): boolean {
    this.journal.append({ kind: 'gateway', field: this.field, op: 'delete', key } satisfies JournalRecord);
    return super.delete(key);
  }
  override clear(): void {
    this.journal.append({ kind: 'gateway', field: this.field, op: 'clear' } satisfies JournalRecord);
    super.clear();
  }
}

class JournaledSet<T> extends Set<T> {
  constructor(private readonly field: GatewayField, private readonly journal: Journal, items: Iterable<T>) {
    super();
    for (const v of items) super.add(v);
  }
  override add(value: T): this {
    if (!this.has(value)) this.journal.append({ kind: 'gateway', field: this.field, op: 'add', value } satisfies JournalRecord);
    return super.add(value);
  }
  override delete(value: T): boolean {
    this.journal.append({ kind: 'gateway', field: this.field, op: 'delete', value } satisfies JournalRecord);
    return super.delete(value);
  }
  override clear(): void {
    this.journal.append({ kind: 'gateway', field: this.field, op: 'clear' } satisfies JournalRecord);
    super.clear();
  }
}

/** Journals the gateway's durable collections from now on. */
export function watchGateway(state: GatewayState, journal: Journal): void {
  state.keys.byKey = new JournaledMap('keys', journal, state.keys.byKey);
  state.pools = new JournaledMap('pools', journal, state.pools);
  state.replay.journal = {
    take: (signature, wallUs, simUs) => journal.append({ kind: 'replay', op: 'take', signature, wallUs, simUs } satisfies JournalRecord),
    clear: () => journal.append({ kind: 'replay', op: 'clear' } satisfies JournalRecord),
  };
  state.nonces = new JournaledSet('nonces', journal, state.nonces);
}

function collection(state: GatewayState, field: Exclude<GatewayField, 'replay'>): Map<unknown, unknown> | Set<unknown> {
  switch (field) {
    case 'keys':
      return state.keys.byKey;
    case 'pools':
      return state.pools;
    case 'nonces':
      return state.nonces;
  }
}

/** A replay-slot record of a journal written before slots had ages: an add, a drop or a clear. */
function applyOlderReplayRecord(state: GatewayState, record: Extract<JournalRecord, { kind: 'gateway' }>): void {
  if (record.op === 'clear') state.replay.clear();
  else if (record.op === 'delete') state.replay.forget(record.value as string);
  else state.replay.adopt(record.value as string);
}

export interface ReplayContext {
  state: GatewayState;
  /** The image /sim/reset returns to. */
  initialImage: Buffer;
  /** A saved image by its row id (restore records). */
  imageById(id: number): Buffer;
}

/**
 * Applies one journal record (the journal must be muted). A command that throws is replayed as
 * it ran live: the exception is swallowed there too, after the same partial effects.
 */
export function applyRecord(ctx: ReplayContext, record: JournalRecord): void {
  switch (record.kind) {
    case 'command':
      try {
        ctx.state.exchange.applyStamped(record.command);
      } catch {
        // Live, this command's request failed with a 500 after the same partial effects.
      }
      return;
    case 'replay':
      if (record.op === 'clear') ctx.state.replay.clear();
      else ctx.state.replay.take(record.signature, record.wallUs, record.simUs);
      return;
    case 'gateway': {
      if (record.field === 'replay') return applyOlderReplayRecord(ctx.state, record);
      const target = collection(ctx.state, record.field);
      if (record.op === 'clear') target.clear();
      else if (record.op === 'delete') target.delete(target instanceof Map ? record.key : record.value);
      else if (target instanceof Map) target.set(record.key, record.value);
      else target.add(record.value);
      return;
    }
    case 'service':
      applyService(ctx.state, record);
      return;
    case 'reset':
      restoreImage(ctx.state, ctx.initialImage);
      return;
    case 'restore':
      restoreImage(ctx.state, ctx.imageById(record.imageId));
      return;
  }
}
