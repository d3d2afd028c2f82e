/**
 * The engine as a copyable image, and grafting an image back into a live engine.
 *
 * Contract: the engine's durable data is `engineState(engine)`: everything but its wiring (the
 * event sink, match hooks, order lookup and fee hook) and its per-command scratch, which live
 * in two fields of their own and are never part of an image. What still needs taking out for a
 * structured clone (v8.serialize, done by the caller: the engine does no I/O) is the Map-like
 * readers of the account index and order table and the compiled market specs (big.js values,
 * class instances a clone would strip): `detachEngine` takes exactly those out and gives back a
 * function that puts them back. `graftEngine` copies a cloned image into a live engine built
 * from the same configuration: the live engine, its markets, account index and order table keep
 * their identity (the wiring closes over them, and the gateway and the simulator hold
 * references to markets), everything else is the image's.
 */
import { NO_LEVEL, rebuildSide, type BookSide } from './book.ts';
import type { Order } from './order.ts';
import { adoptOrder } from './order-record.ts';
import { liveOrders } from './order-table.ts';
import type { Engine } from './state.ts';
import type { SideCode } from './types.ts';

/** The engine's durable data: all of it but its wiring and per-command scratch. */
export type EngineState = Omit<Engine, 'wiring' | 'scratch'>;

/** The durable data of `engine` (a shallow view: its fields are the engine's own). */
export function engineState(engine: Engine): EngineState {
  const { wiring: _wiring, scratch: _scratch, ...state } = engine;
  return state;
}

/** Placeholder of a detached market spec: enough to find the live spec again. */
interface SpecRef {
  id: number;
}

/**
 * Root fields of images written before the wiring and scratch had fields of their own: not
 * state, never grafted.
 */
const LEGACY_NOT_STATE = ['sink', 'hooks', 'lookup', 'onFee', 'touchedMarkets', 'touchedCount', 'taker', 'takerMarket', 'liquidating', 'riskQueue', 'ended', 'endedCount'];
const TABLE_FUNCTIONS = ['get', 'has', 'values'] as const;

type Slots = Record<string, unknown>;

function strip(target: Slots, keys: readonly string[], saved: [Slots, string, unknown][]): void {
  for (const key of keys) {
    if (!(key in target)) continue;
    saved.push([target, key, target[key]]);
    target[key] = undefined;
  }
}

/**
 * Takes the table readers and market specs out of `engine` so that `engineState(engine)` can be
 * structurally cloned; the returned function restores them. Nothing may run on the engine in
 * between.
 */
export function detachEngine(engine: EngineState): () => void {
  const saved: [Slots, string, unknown][] = [];
  strip(engine.accounts as unknown as Slots, TABLE_FUNCTIONS, saved);
  strip(engine.orders as unknown as Slots, TABLE_FUNCTIONS, saved);
  for (const ms of engine.bySlot) {
    saved.push([ms as unknown as Slots, 'spec', ms.spec]);
    (ms as unknown as { spec: SpecRef }).spec = { id: ms.spec.id };
  }
  return () => {
    for (let i = saved.length - 1; i >= 0; i--) {
      const [target, key, value] = saved[i]!;
      target[key] = value;
    }
  };
}

/**
 * Copies `image` (a clone of a detached engine built from the same markets) into `live`.
 * Throws when the image's markets are not the live engine's.
 */
export function graftEngine(live: Engine, image: EngineState): void {
  if (image.bySlot.length !== live.bySlot.length) throw new Error(`the image has ${image.bySlot.length} markets, the engine ${live.bySlot.length}`);
  for (const copy of image.bySlot) {
    const id = (copy.spec as unknown as SpecRef).id;
    const target = live.markets.get(id);
    if (target === undefined || target.slot !== copy.slot) throw new Error(`the image's market ${id} is not configured here`);
    Object.assign(target, copy, { spec: target.spec });
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
 * records (now typed-array records by handle, book.ts), the float margin sums on the account
 * (they were a `riskSums` record) and the pending parts of its lifetime tallies.
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
    if (account.sumChanges !== undefined) continue;
    delete (account as unknown as Slots).riskSums;
    Object.assign(account, { sumEpoch: -1, sumEq: 0, sumIm: 0, sumMm: 0, sumChanges: 0, quoteB: 0n, quoteF: 0 });
  }
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
