/**
 * The engine as a copyable image, and grafting an image back into a live engine.
 *
 * Contract: the engine is plain data except for a few closures (the event sink, the match hooks,
 * the order lookup, the fee hook and the Map-like readers of the account index and order table)
 * and the compiled market specs (which hold big.js values, class instances a structured clone
 * would strip). `detachEngine` takes exactly those out so that a structured clone (v8.serialize,
 * done by the caller: the engine does no I/O) copies everything else with its shared references,
 * and gives back a function that puts them back. `graftEngine` copies a cloned image into a live
 * engine built from the same configuration: the live engine, its markets, account index and
 * order table keep their identity (the closures close over them, and the gateway and the
 * simulator hold references to markets), everything else is the image's.
 */
import type { Engine, MarketState } from './state.ts';

/** Placeholder of a detached market spec: enough to find the live spec again. */
interface SpecRef {
  id: number;
}

const ENGINE_FUNCTIONS = ['sink', 'hooks', 'lookup', 'onFee'] as const;
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
 * Takes the closures and market specs out of `engine` so that it can be structurally cloned;
 * the returned function restores them. Nothing may run on the engine in between.
 */
export function detachEngine(engine: Engine): () => void {
  const saved: [Slots, string, unknown][] = [];
  strip(engine as unknown as Slots, ENGINE_FUNCTIONS, saved);
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
export function graftEngine(live: Engine, image: Engine): void {
  const markets = new Map<MarketState, MarketState>();
  if (image.bySlot.length !== live.bySlot.length) throw new Error(`the image has ${image.bySlot.length} markets, the engine ${live.bySlot.length}`);
  for (const copy of image.bySlot) {
    const id = (copy.spec as unknown as SpecRef).id;
    const target = live.markets.get(id);
    if (target === undefined || target.slot !== copy.slot) throw new Error(`the image's market ${id} is not configured here`);
    Object.assign(target, copy, { spec: target.spec });
    markets.set(copy, target);
  }
  const liveOf = (ms: MarketState | null): MarketState | null => (ms === null ? null : (markets.get(ms) ?? null));
  const skip = new Set<string>([...ENGINE_FUNCTIONS, 'markets', 'bySlot', 'accounts', 'orders', 'touchedMarkets', 'takerMarket']);
  const from = image as unknown as Slots;
  const to = live as unknown as Slots;
  for (const key of Object.keys(from)) if (!skip.has(key)) to[key] = from[key];
  live.touchedMarkets = image.touchedMarkets.map((ms) => liveOf(ms)!);
  live.takerMarket = liveOf(image.takerMarket);
  copyData(live.accounts as unknown as Slots, image.accounts as unknown as Slots);
  copyData(live.orders as unknown as Slots, image.orders as unknown as Slots);
  upgrade(live);
}

/**
 * Fills in what an image written before a layout change lacks: the level key arrays of the
 * book sides, the float margin sums on the account (they were a `riskSums` record) and the
 * pending parts of its lifetime tallies.
 */
function upgrade(engine: Engine): void {
  for (const ms of engine.bySlot) {
    for (const side of [ms.book.bids, ms.book.asks]) {
      if (side.keys === undefined) side.keys = side.levels.map((level) => level.key);
    }
  }
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

function copyData(live: Slots, image: Slots): void {
  for (const key of Object.keys(image)) if (!(TABLE_FUNCTIONS as readonly string[]).includes(key)) live[key] = image[key];
}
