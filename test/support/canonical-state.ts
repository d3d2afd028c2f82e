/**
 * The engine's durable data as a layout-free value, for the differential harness's state hash.
 *
 * Why: the two engines must hold the same state, not the same storage. The reference keeps
 * orders and book levels as linked records; the live engine may keep them in typed arrays. Each
 * engine gets a `StateLayout` (how to read its book and its live orders); everything else is
 * copied as it is. In the copy:
 * - an order is its fields without its links (book level, book and account neighbours, the
 *   spare flag) and without `updatedAt` (read by nothing), keys sorted; an order met twice is one object (shared references survive);
 * - an account lists its live orders in its own list order (`liveOrders`) instead of head/tail;
 * - a market's book is `{bids, asks}`, each best level first as {price, size, count, orders};
 * - the engine's order table is its live orders by orderId;
 * - every other object keeps its prototype and its keys, sorted (field order is layout too).
 * The wiring and per-command scratch are left out, as before.
 */

type Slots = Record<string, unknown>;

export interface LevelView {
  price: number;
  size: number;
  count: number;
  /** The orders resting at the level, front of the queue first. */
  orders: object[];
}

export interface StateLayout {
  /** One side of a market's book, best level first. */
  bookSide(marketState: object, side: 0 | 1): LevelView[];
  /** Every live order, by orderId ascending. */
  liveOrders(engine: object): object[];
  isOrder(value: object): boolean;
  isAccount(value: object): boolean;
  /** An account's live orders in its list order. */
  accountOrders(account: object): object[];
  /**
   * The names of an order's fields, for an order whose fields are not all its own (accessors):
   * read by name. Without it, an order's own keys are its fields.
   */
  orderFields?: readonly string[];
}

/** Fields of the engine that are wiring or per-command scratch, not state. */
const NOT_STATE = new Set(['sink', 'hooks', 'lookup', 'onFee', 'wiring', 'scratch', 'touchedMarkets', 'touchedCount', 'taker', 'takerMarket', 'liquidating', 'riskQueue', 'ended', 'endedCount']);
const MARKET_SCRATCH = new Set(['touched', 'dirtyBids', 'dirtyAsks', 'dirtyBidCount', 'dirtyAskCount', 'trades', 'tradesTaker', 'bboBefore']);
/**
 * An order's links: storage, not state (the book and account lists carry the order); and
 * `updatedAt`, which the reference writes and nothing reads (the live engine dropped it).
 */
const ORDER_LINKS = new Set(['level', 'prev', 'next', 'aPrev', 'aNext', 'spare', 'updatedAt']);
const ACCOUNT_LINKS = new Set(['head', 'tail']);
/** Map-like readers of the account index (code, stripped or left out) and the live engine's risk table (seen through the accounts). */
const ACCOUNT_INDEX_READERS = new Set(['get', 'has', 'values', 'table']);

/** The layout of the reference engine: linked records (also the live engine's until it moves). */
export const LINKED_LAYOUT: StateLayout = {
  bookSide(ms, side) {
    const book = (ms as { book: { bids: { levels: LinkedLevel[] }; asks: { levels: LinkedLevel[] } } }).book;
    const levels = (side === 0 ? book.bids : book.asks).levels;
    const out: LevelView[] = [];
    for (let i = levels.length - 1; i >= 0; i--) {
      const level = levels[i]!;
      const orders: object[] = [];
      for (let o = level.head; o !== null; o = o.next) orders.push(o);
      out.push({ price: level.price, size: level.size, count: level.count, orders });
    }
    return out;
  },
  liveOrders(engine) {
    // The chunked order table (its Map-like readers are detached while the digest runs).
    const out: object[] = [];
    for (const chunk of (engine as { orders: { chunks: ({ slots: (object | undefined)[] } | undefined)[] } }).orders.chunks) {
      if (chunk !== undefined) for (const o of chunk.slots) if (o !== undefined) out.push(o);
    }
    return out;
  },
  isOrder: (v) => 'aNext' in v && 'orderType' in v,
  isAccount: (v) => 'clientIds' in v && 'liveCount' in v,
  accountOrders(account) {
    const out: object[] = [];
    for (let o = (account as { head: LinkedOrder | null }).head; o !== null; o = o.aNext) out.push(o);
    return out;
  },
};

interface LinkedOrder {
  next: LinkedOrder | null;
  aNext: LinkedOrder | null;
}
interface LinkedLevel {
  price: number;
  size: number;
  count: number;
  head: LinkedOrder | null;
}

/** The canonical copy of `engine`'s durable data (call with the engine detached). */
export function canonicalState(engine: object, layout: StateLayout, substitute?: (value: object) => object): unknown {
  const memo = new Map<object, unknown>();
  // A substituted object's view, mapped back to the object: the copy is remembered for both, so
  // that the object is one copy however it is reached (orders point back at their account).
  const viewOf = new Map<object, object>();
  const remember = (source: object, out: unknown): void => {
    memo.set(source, out);
    const original = viewOf.get(source);
    if (original !== undefined) memo.set(original, out);
  };

  const record = (source: object, skip: ReadonlySet<string>, extra?: (out: Slots) => void): Slots => {
    const out = Object.create(Object.getPrototypeOf(source) as object | null) as Slots;
    remember(source, out);
    const from = source as Slots;
    for (const key of Object.keys(from).sort()) if (!skip.has(key)) out[key] = copy(from[key]);
    extra?.(out);
    return out;
  };

  // A market's spec is its id (its status is in the commands' events; the reference's detach leaves `{ id }`).
  const market = (ms: object): Slots =>
    record(ms, new Set([...MARKET_SCRATCH, 'book', 'spec']), (out) => {
      out.book = { bids: side(ms, 0), asks: side(ms, 1) };
      out.spec = { id: (ms as { spec: { id: number } }).spec.id };
    });

  const side = (ms: object, s: 0 | 1): unknown[] =>
    layout.bookSide(ms, s).map((level) => ({ price: level.price, size: level.size, count: level.count, orders: level.orders.map(copy) }));

  function copy(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return value;
    const seen = memo.get(value);
    if (seen !== undefined) return seen;
    if (substitute !== undefined) {
      const view = substitute(value);
      if (view !== value) {
        viewOf.set(view, value);
        return copy(view);
      }
    }
    if (ArrayBuffer.isView(value)) return value;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      remember(value, out);
      for (let i = 0; i < value.length; i++) out.push(copy(value[i]));
      return out;
    }
    if (value instanceof Map) {
      const out = new Map();
      remember(value, out);
      for (const [k, v] of value) out.set(copy(k), copy(v));
      return out;
    }
    if (value instanceof Set) {
      const out = new Set();
      remember(value, out);
      for (const v of value) out.add(copy(v));
      return out;
    }
    if (layout.isOrder(value)) {
      const names = layout.orderFields;
      if (names === undefined) return record(value, ORDER_LINKS);
      const out: Slots = {};
      remember(value, out);
      for (const key of [...names].sort()) if (!ORDER_LINKS.has(key)) out[key] = copy((value as Slots)[key]);
      return out;
    }
    if (layout.isAccount(value)) {
      return record(value, ACCOUNT_LINKS, (out) => {
        out.liveOrders = layout.accountOrders(value).map(copy);
      });
    }
    return record(value, new Set());
  }

  const root = engine as Slots;
  // Markets first, so that each is one object however it is reached.
  const bySlot = (root.bySlot as object[]).map(market);
  return record(engine, new Set([...NOT_STATE, 'orders', 'bySlot', 'markets', 'accounts']), (out) => {
    out.accounts = record(root.accounts as object, ACCOUNT_INDEX_READERS);
    out.bySlot = bySlot;
    out.markets = new Map([...(root.markets as Map<number, object>)].map(([id, ms]) => [id, memo.get(ms)]));
    out.orders = layout.liveOrders(engine).map(copy);
  });
}
