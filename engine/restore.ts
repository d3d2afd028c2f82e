/**
 * The engine as a copyable image, and grafting an image back into a live engine.
 *
 * Contract: the engine's durable data is `engineState(engine)`, built explicitly and without
 * touching the engine: every root field but the wiring (event sink, match hooks, order lookup,
 * fee hook) and the per-command scratch (per-market dirty levels, trades and bbo included); the
 * account index and order table as their data (their Map-like readers are named and left out
 * by type); each market with its compiled spec (big.js values, rebuilt from configuration) as a
 * reference `{ id, status }`. The result is plain data a structured clone (v8.serialize, done
 * by the caller: the engine does no I/O) copies whole; nothing is taken out and put back.
 * `graftEngine` copies a cloned image into a live engine built from the same configuration:
 * the live engine, its markets, account index and order table keep their identity (the wiring
 * closes over them, and the gateway and the simulator hold references to markets), everything
 * else is the image's.
 */
import type { AccountIndex } from './account.ts';
import { NO_LEVEL, rebuildSide, type BookSide } from './book.ts';
import type { Order } from './order.ts';
import { adoptOrder } from './order-record.ts';
import { liveOrders, type OrderTable } from './order-table.ts';
import { AccountMarket } from './position.ts';
import { addSlot, AW, createRiskTable, ensureRow, reserveAccounts, type RiskTable } from './risk-table.ts';
import type { Engine, MarketState } from './state.ts';
import type { SideCode } from './types.ts';

/** The Map-like readers of the account index and order table: code, not data. */
type Readers = 'get' | 'has' | 'values';

/** What an image keeps of a market spec: enough to find the live spec again, and its status. */
export interface SpecRef {
  id: number;
  status: MarketState['spec']['status'];
}

export type MarketImage = Omit<MarketState, 'spec'> & { spec: SpecRef };

/** The engine's durable data: all of it but its wiring, per-command scratch and table readers. */
export interface EngineState extends Omit<Engine, 'wiring' | 'scratch' | 'accounts' | 'orders' | 'markets' | 'bySlot'> {
  accounts: Omit<AccountIndex, Readers>;
  orders: Omit<OrderTable, Readers>;
  markets: Map<number, MarketImage>;
  bySlot: MarketImage[];
}

/**
 * The durable data of `engine`: a new root over the engine's own records (shared, not copied),
 * valid until the next command runs.
 */
export function engineState(engine: Engine): EngineState {
  const { wiring: _wiring, scratch: _scratch, accounts, orders, markets: _markets, bySlot, ...rest } = engine;
  const { get: _ag, values: _av, ...accountData } = accounts;
  const { get: _og, has: _oh, values: _ov, ...orderData } = orders;
  const images = bySlot.map((ms): MarketImage => ({ ...ms, spec: { id: ms.spec.id, status: ms.spec.status } }));
  return { ...rest, accounts: accountData, orders: orderData, markets: new Map(images.map((m) => [m.spec.id, m])), bySlot: images };
}

/**
 * Kept for callers of the previous contract, which took the readers and specs out of the live
 * engine before a clone: `engineState` now builds an image that needs nothing taken out, so
 * this does nothing and its undo does nothing.
 * @deprecated call `engineState` and clone its result.
 */
export function detachEngine(_engine: Engine): () => void {
  return () => {};
}

/**
 * Root fields of images written before the wiring and scratch had fields of their own: not
 * state, never grafted.
 */
const LEGACY_NOT_STATE = ['sink', 'hooks', 'lookup', 'onFee', 'touchedMarkets', 'touchedCount', 'taker', 'takerMarket', 'liquidating', 'riskQueue', 'ended', 'endedCount'];
/** Market fields of images written while the per-market scratch sat on MarketState. */
const LEGACY_MARKET_SCRATCH = ['touched', 'dirtyBids', 'dirtyAsks', 'dirtyBidCount', 'dirtyAskCount', 'trades', 'tradesTaker', 'bboBefore'];
const TABLE_FUNCTIONS = ['get', 'has', 'values'] as const;

type Slots = Record<string, unknown>;

/**
 * Copies `image` (a clone of a detached engine built from the same markets) into `live`.
 * Throws when the image's markets are not the live engine's.
 */
export function graftEngine(live: Engine, image: EngineState): void {
  if (image.bySlot.length !== live.bySlot.length) throw new Error(`the image has ${image.bySlot.length} markets, the engine ${live.bySlot.length}`);
  for (const copy of image.bySlot) {
    const ref: Partial<SpecRef> = copy.spec;
    const target = live.markets.get(ref.id!);
    if (target === undefined || target.slot !== copy.slot) throw new Error(`the image's market ${ref.id} is not configured here`);
    Object.assign(target, copy, { spec: target.spec });
    // Images written before the spec reference carried the status leave the configured one.
    if (ref.status !== undefined) target.spec.status = ref.status;
    for (const key of LEGACY_MARKET_SCRATCH) delete (target as unknown as Slots)[key];
  }
  const skip = new Set<string>(['wiring', 'scratch', 'markets', 'bySlot', 'accounts', 'orders', ...LEGACY_NOT_STATE]);
  const from = image as unknown as Slots;
  const to = live as unknown as Slots;
  for (const key of Object.keys(from)) if (!skip.has(key)) to[key] = from[key];
  copyData(live.accounts as unknown as Slots, image.accounts as unknown as Slots);
  copyData(live.orders as unknown as Slots, image.orders as unknown as Slots);
  upgrade(live);
}

/**
 * Gives the image's orders their class back, and fills in what an image written before a layout
 * change lacks: orders with every field their own (order-record.ts), books whose levels were linked
 * records (now typed-array records by handle, book.ts), the pending parts of the accounts' balance
 * and lifetime tallies, and the risk table (images before it held per-market records and float margin sums on
 * the accounts: `tableOfRecords`).
 */
function upgrade(engine: Engine): void {
  // A clone keeps the orders' own fields and loses their class (order-record.ts).
  for (const order of liveOrders(engine.orders)) adoptOrder(order);
  for (const ms of engine.bySlot) {
    const old = ms.book as unknown as { bids: LinkedSide | BookSide; asks: LinkedSide | BookSide };
    if ('levels' in old.bids || 'levels' in old.asks) {
      ms.book = { bids: relink(old.bids as LinkedSide, 0), asks: relink(old.asks as LinkedSide, 1) };
    }
  }
  // Live orders off the book (untriggered TPSL) had a null level.
  for (const order of liveOrders(engine.orders)) if ((order.level as number | null) === null) order.level = NO_LEVEL;
  for (const account of engine.accounts.all) {
    // The balance was one bigint before fills added to a pending exact double (account.ts).
    // Lifetime tallies were bigint fields before they had a pending exact double (account.ts).
    if (account.lifetimeVolumeBase === undefined) {
      const old = account as unknown as Slots;
      Object.assign(account, {
        lifetimeVolumeBase: old.lifetimeVolume,
        volumePending: 0,
        volumePendingDay: -1,
        lifetimeFeesPaidBase: old.lifetimeFeesPaid,
        feesPending: 0,
      });
      delete old.lifetimeVolume;
      delete old.lifetimeFeesPaid;
    }
  }
  if (!('markets' in (engine.accounts.all[0] ?? {}))) {
    restrideSums(engine);
    return;
  }
  engine.accounts.table = tableOfRecords(engine);
}

/**
 * Account sums of an image written when they were 8 doubles per account (before the pending
 * balance, risk-table.ts QUOTE_PENDING) take the current stride; the new slots start at 0 (nothing
 * pending) and the balance is converted again at the next margin check (`quoteB` reset).
 */
function restrideSums(engine: Engine): void {
  const t = engine.accounts.table;
  const OLD_AW = 8;
  if (t.accountSums.length === t.accountCapacity * AW || t.accountSums.length !== t.accountCapacity * OLD_AW) return;
  const sums = new Float64Array(t.accountCapacity * AW);
  for (let a = 0; a < t.accountCapacity; a++) sums.set(t.accountSums.subarray(a * OLD_AW, (a + 1) * OLD_AW), a * AW);
  t.accountSums = sums;
  for (const account of engine.accounts.all) account.quoteB = 0n;
}

/** The per-market record of an image written before the risk table (one object per account and market). */
interface MarketRecord {
  openOrders: number;
  openBuy: number;
  openSell: number;
  size: number;
  listed: boolean;
  isolated: boolean;
  isolatedMargin: bigint;
  leverage: number;
  trigger: number;
  triggerVersion: number;
  cost: bigint;
  realizedPnl: bigint;
  fundingAllTime: bigint;
  fundingSinceOpen: bigint;
  fundingSinceChange: bigint;
}

/**
 * Moves the per-market records and float margin sums of an image written before the risk table
 * into a new table: rows in account order, then slot order; each account's active list keeps its
 * order; float caches start invalid (they are rebuilt on first use, from the same values).
 * Trigger versions are kept: the liquidation index's entries name them.
 */
function tableOfRecords(engine: Engine): RiskTable {
  const t = createRiskTable();
  for (const ms of engine.bySlot) addSlot(t, ms.spec.id);
  reserveAccounts(t, engine.accounts.all.length);
  for (const account of engine.accounts.all) {
    const old = account as unknown as Slots & { markets: (MarketRecord | undefined)[]; active: unknown[] };
    const rowOf = new Map<MarketRecord, number>();
    old.markets.forEach((am, slot) => {
      if (am === undefined) return;
      const row = ensureRow(t, account.id, slot);
      rowOf.set(am, row);
      const view = new AccountMarket(t, row);
      Object.assign(view, {
        openOrders: am.openOrders,
        openBuy: am.openBuy,
        openSell: am.openSell,
        size: am.size,
        listed: am.listed,
        isolated: am.isolated,
        isolatedMargin: am.isolatedMargin,
        leverage: am.leverage,
        trigger: am.trigger,
        triggerVersion: am.triggerVersion,
        cost: am.cost,
        realizedPnl: am.realizedPnl,
        fundingAllTime: am.fundingAllTime,
        fundingSinceOpen: am.fundingSinceOpen,
        fundingSinceChange: am.fundingSinceChange,
      });
    });
    account.active = (old.active as MarketRecord[]).map((am) => rowOf.get(am)!);
    account.table = t;
    account.quoteB = 0n;
    for (const key of ['markets', 'riskSums', 'sumEpoch', 'sumEq', 'sumIm', 'sumMm', 'sumChanges', 'quoteF']) delete old[key];
  }
  return t;
}

/** A book side as images before the typed-array levels hold it: linked level records, worst to best. */
interface LinkedSide {
  levels: { price: number; head: Order | null }[];
}

function relink(side: LinkedSide, code: SideCode): BookSide {
  return rebuildSide(
    code,
    side.levels.map((level) => {
      const orders: Order[] = [];
      for (let o = level.head; o !== null; o = o.next) orders.push(o);
      return { price: level.price, orders };
    }),
  );
}

function copyData(live: Slots, image: Slots): void {
  for (const key of Object.keys(image)) if (!(TABLE_FUNCTIONS as readonly string[]).includes(key)) live[key] = image[key];
}
