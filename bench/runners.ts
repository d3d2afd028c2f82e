/**
 * The two reference runners: the bare typed-array book (speed ceiling) and the
 * `nodejs-order-book` package (a popular JS book, one OrderBook per market).
 *
 * Every runner works in two steps: `prepare` builds its inputs from the stream and replays the
 * prefill (not timed), `run` replays the benchmark ops (timed by the caller). Inputs are
 * pre-built for all runners so the timed loop measures the book, not the stream decoding.
 */
import { OrderBook, Side, type LimitOrderOptions, type OrderUpdatePrice } from 'nodejs-order-book';
import { BareBook, PLACED_POST_ONLY_REJECTED, TIF_ALO, TIF_GTT, TIF_IOC } from './bare-book.ts';
import { MARKETS, PRICE_SPAN } from './setup.ts';
import { OP_ALO, OP_CANCEL, OP_GTT, OP_IOC, OP_MARKET, OP_MODIFY, type Stream } from './stream.ts';

export interface Runner<State> {
  name: string;
  prepare(s: Stream): State;
  /** Replays ops [from, to); returns nothing the caller needs, so nothing is allocated. */
  run(state: State, s: Stream, from: number, to: number): void;
  /** Human-readable outcome of a completed state, for cross-checking runners. */
  summary(state: State): string;
}

// ---------------------------------------------------------------------------------------------
// Bare book

export interface BareState {
  book: BareBook;
  postOnlyRejected: number;
  cancelMisses: number;
  modifyMisses: number;
}

function runBare(st: BareState, s: Stream, from: number, to: number): void {
  const { book } = st;
  const { kind, market, side, price, size, ref } = s;
  for (let i = from; i < to; i++) {
    switch (kind[i]) {
      case OP_GTT:
        book.place(ref[i]!, market[i]!, side[i]!, price[i]!, size[i]!, TIF_GTT);
        break;
      case OP_ALO:
        if (book.place(ref[i]!, market[i]!, side[i]!, price[i]!, size[i]!, TIF_ALO) === PLACED_POST_ONLY_REJECTED) {
          st.postOnlyRejected++;
        }
        break;
      case OP_IOC:
      case OP_MARKET:
        book.place(ref[i]!, market[i]!, side[i]!, price[i]!, size[i]!, TIF_IOC);
        break;
      case OP_CANCEL:
        if (!book.cancel(ref[i]!)) st.cancelMisses++;
        break;
      case OP_MODIFY:
        if (!book.modify(ref[i]!, price[i]!, size[i]!)) st.modifyMisses++;
        break;
    }
  }
}

export const bareRunner: Runner<BareState> = {
  name: 'bare book',
  prepare(s) {
    const st: BareState = {
      book: new BareBook(MARKETS, PRICE_SPAN, s.refs),
      postOnlyRejected: 0,
      cancelMisses: 0,
      modifyMisses: 0,
    };
    runBare(st, s, 0, s.prefill);
    return st;
  },
  run: runBare,
  summary(st) {
    let resting = 0;
    for (let m = 0; m < MARKETS; m++) resting += st.book.bidOrders[m]! + st.book.askOrders[m]!;
    return `trades ${st.book.trades}, traded qty ${st.book.tradedQty}, resting ${resting}, ` +
      `cancel misses ${st.cancelMisses}, modify misses ${st.modifyMisses}, post-only rejected ${st.postOnlyRejected}`;
  },
};

// ---------------------------------------------------------------------------------------------
// nodejs-order-book

// The package's TimeInForce enum is not exported; its values are the plain strings.
const NOB_IOC = 'IOC' as NonNullable<LimitOrderOptions['timeInForce']>;

export interface NobState {
  books: OrderBook[];
  ids: string[];
  /** Per op: the limit() options of a place, or the modify() update. */
  args: (LimitOrderOptions | OrderUpdatePrice | null)[];
  tradedQty: number;
  errors: number;
  cancelMisses: number;
  modifyMisses: number;
}

function runNob(st: NobState, s: Stream, from: number, to: number): void {
  const { books, ids, args } = st;
  const { kind, market, ref } = s;
  for (let i = from; i < to; i++) {
    const book = books[market[i]!]!;
    const k = kind[i]!;
    if (k === OP_CANCEL) {
      if (book.cancel(ids[ref[i]!]!) === undefined) st.cancelMisses++;
    } else if (k === OP_MODIFY) {
      const r = book.modify(ids[ref[i]!]!, args[i] as OrderUpdatePrice);
      if (r.err !== null) st.modifyMisses++;
    } else {
      // A MARKET IOC is an IOC limit at its worst acceptable price: same fills as perpsim's
      // price-protected market order, where the package's market() would have no bound.
      const o = args[i] as LimitOrderOptions;
      const r = book.limit(o);
      if (r.err !== null) st.errors++;
      else st.tradedQty += o.size - r.quantityLeft;
    }
  }
}

export const nobRunner: Runner<NobState> = {
  name: 'nodejs-order-book',
  prepare(s) {
    const books: OrderBook[] = [];
    for (let m = 0; m < MARKETS; m++) books.push(new OrderBook());
    const ids: string[] = new Array<string>(s.refs);
    for (let r = 0; r < s.refs; r++) ids[r] = 'o' + r;
    const args: (LimitOrderOptions | OrderUpdatePrice | null)[] = new Array(s.length).fill(null);
    for (let i = 0; i < s.length; i++) {
      const k = s.kind[i]!;
      const side = s.side[i] === 0 ? Side.BUY : Side.SELL;
      if (k === OP_GTT) {
        args[i] = { id: ids[s.ref[i]!]!, side, size: s.size[i]!, price: s.price[i]! };
      } else if (k === OP_ALO) {
        args[i] = { id: ids[s.ref[i]!]!, side, size: s.size[i]!, price: s.price[i]!, postOnly: true };
      } else if (k === OP_IOC || k === OP_MARKET) {
        args[i] = { id: ids[s.ref[i]!]!, side, size: s.size[i]!, price: s.price[i]!, timeInForce: NOB_IOC };
      } else if (k === OP_MODIFY) {
        args[i] = { price: s.price[i]!, size: s.size[i]! };
      }
    }
    const st: NobState = { books, ids, args, tradedQty: 0, errors: 0, cancelMisses: 0, modifyMisses: 0 };
    runNob(st, s, 0, s.prefill);
    return st;
  },
  run: runNob,
  summary(st) {
    return `traded qty ${st.tradedQty}, errors ${st.errors}, cancel misses ${st.cancelMisses}, ` +
      `modify misses ${st.modifyMisses}`;
  },
};

/** The same resting-order layout as perpsimMemory, in nodejs-order-book, for comparison. */
export function nobMemory(orders: number, startMid: number): number {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run with --expose-gc');
  const books: OrderBook[] = [];
  for (let m = 0; m < MARKETS; m++) books.push(new OrderBook());
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < orders; i++) {
    const m = i % MARKETS;
    const j = Math.floor(i / MARKETS);
    const buy = (j & 1) === 0;
    const level = 1 + (Math.floor(j / 2) % 500);
    books[m]!.limit({
      id: 'o' + i,
      side: buy ? Side.BUY : Side.SELL,
      size: 100 + ((i * 7_919) % 1_900),
      price: buy ? startMid - level : startMid + level,
    });
  }
  gc();
  gc();
  const delta = process.memoryUsage().heapUsed - before;
  if (books.length < 0) console.log(books);
  return delta;
}
