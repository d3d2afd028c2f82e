/**
 * A local order book kept from the `l2OrderbookUpdates` channel by the resync rules of
 * interface.md "Sequencing".
 *
 * Contract:
 * - Seed: a `subscribed` frame's contents (the snapshot) replace the whole book and its
 *   `lastSequenceId` becomes the baseline — on every (re)subscribe, reconnects included.
 * - Deltas carry absolute level sizes; a zero size ("0", "0.0", …) removes the level.
 * - A delta whose lastSequenceId is not above the last applied one is stale and ignored.
 * - The first delta after a snapshot may be a few sequences ahead of the baseline: applied
 *   (counted in `firstDeltaSkips`), not a reason to re-subscribe.
 * - Once applying, sequences are contiguous; a delta further ahead than last + 1 means a delta
 *   was missed: the book re-subscribes (unsubscribe and subscribe back to back), ignores the
 *   channel's frames until the fresh snapshot, and seeds from it. A 1001 close (or any drop)
 *   reconnects and re-subscribes the same way (ws.ts).
 * - Depth: a snapshot shows at most `nLevels` a side. A side that came back full may have levels
 *   beyond its worst snapshot price (the horizon) that the client never saw; `view(n)` says
 *   whether its top n levels lie within what the client can know exactly.
 *
 * Prices are compared as decimals (big.js), never as floats. `createLocalBook`, `seedBook`,
 * `applyDelta` and `bookView` are pure; `LocalOrderBook` runs them over a `WsClient`.
 */
import Big from 'big.js';
import type { BookContents, LevelRow } from './types.ts';
import type { ChannelFrame, Subscription, WsClient } from './ws.ts';

interface Level {
  price: Big;
  size: string;
}

interface BookSide {
  /** Price text as printed by the venue → level. */
  levels: Map<string, Level>;
  /** Worst snapshot price of a side that came back full (levels beyond it may be unknown). */
  horizon: Big | undefined;
}

export interface BookState {
  bids: BookSide;
  asks: BookSide;
  /** The depth asked for; a snapshot side this long may be truncated. */
  nLevels: number;
  /** The current subscription's snapshot lastSequenceId. */
  baseline: number;
  /** The last applied sequence (the baseline until a delta is applied). */
  lastSequenceId: number;
  /** True once a delta has been applied since the last snapshot. */
  applying: boolean;
  stats: { snapshots: number; applied: number; stale: number; gaps: number; firstDeltaSkips: number };
}

export type DeltaOutcome = 'applied' | 'stale' | 'gap';

export function createLocalBook(nLevels: number): BookState {
  return {
    bids: { levels: new Map(), horizon: undefined },
    asks: { levels: new Map(), horizon: undefined },
    nLevels,
    baseline: 0,
    lastSequenceId: 0,
    applying: false,
    stats: { snapshots: 0, applied: 0, stale: 0, gaps: 0, firstDeltaSkips: 0 },
  };
}

const ZERO = /^[+-]?0*(\.0*)?$/;

function seedSide(side: BookSide, rows: readonly LevelRow[], nLevels: number): void {
  side.levels.clear();
  for (const [price, size] of rows) if (!ZERO.test(size)) side.levels.set(price, { price: new Big(price), size });
  side.horizon = rows.length >= nLevels && rows.length > 0 ? new Big(rows[rows.length - 1]![0]) : undefined;
}

/** Replaces the book with a snapshot and takes its lastSequenceId as the baseline. */
export function seedBook(book: BookState, snapshot: BookContents): void {
  seedSide(book.bids, snapshot.bids, book.nLevels);
  seedSide(book.asks, snapshot.asks, book.nLevels);
  book.baseline = snapshot.lastSequenceId;
  book.lastSequenceId = snapshot.lastSequenceId;
  book.applying = false;
  book.stats.snapshots++;
}

function applySide(side: BookSide, rows: readonly LevelRow[]): void {
  for (const [price, size] of rows) {
    if (ZERO.test(size)) side.levels.delete(price);
    else side.levels.set(price, { price: side.levels.get(price)?.price ?? new Big(price), size });
  }
}

/** Applies one delta by the resync rules; `gap` leaves the book untouched (re-subscribe and seed again). */
export function applyDelta(book: BookState, delta: BookContents): DeltaOutcome {
  const seq = delta.lastSequenceId;
  if (seq <= book.lastSequenceId) {
    book.stats.stale++;
    return 'stale';
  }
  if (book.applying && seq !== book.lastSequenceId + 1) {
    book.stats.gaps++;
    return 'gap';
  }
  if (!book.applying && seq > book.baseline + 1) book.stats.firstDeltaSkips++;
  applySide(book.bids, delta.bids);
  applySide(book.asks, delta.asks);
  book.lastSequenceId = seq;
  book.applying = true;
  book.stats.applied++;
  return 'applied';
}

export interface BookView {
  bids: LevelRow[];
  asks: LevelRow[];
  lastSequenceId: number;
  /** False when a side's top `n` reach past what the last snapshot showed (the horizon). */
  exact: boolean;
}

function topOf(side: BookSide, n: number, descending: boolean): { rows: LevelRow[]; exact: boolean } {
  const sorted = [...side.levels.entries()].sort(([, a], [, b]) => (descending ? b.price.cmp(a.price) : a.price.cmp(b.price))).slice(0, n);
  const rows = sorted.map(([text, level]): LevelRow => [text, level.size]);
  const horizon = side.horizon;
  if (horizon === undefined) return { rows, exact: true };
  const beyond = (price: Big): boolean => (descending ? price.lt(horizon) : price.gt(horizon));
  // Short of n levels, the next unseen one could be beyond the horizon; past it, holes may exist.
  return { rows, exact: rows.length === n && !sorted.some(([, level]) => beyond(level.price)) };
}

/** The best `n` levels a side, best first (bids descending, asks ascending), as wire pairs. */
export function bookView(book: BookState, n: number): BookView {
  const bids = topOf(book.bids, n, true);
  const asks = topOf(book.asks, n, false);
  return { bids: bids.rows, asks: asks.rows, lastSequenceId: book.lastSequenceId, exact: bids.exact && asks.exact };
}

// ---------------------------------------------------------------------------------------------
// Over a WsClient

export interface LocalOrderBookOptions {
  /** Display name (as the venue prints it, e.g. "BTC-USD"). */
  market: string;
  /** 1-100 (default 100). */
  nLevels?: number;
  /** Called after every snapshot and applied delta. */
  onChange?: (book: LocalOrderBook) => void;
}

export class LocalOrderBook {
  readonly state: BookState;
  /** Re-subscribes after a mid-stream gap. */
  resubscribes = 0;
  private phase: 'resyncing' | 'live' = 'resyncing';
  private subscription: Subscription<'l2OrderbookUpdates'> | undefined;
  private readonly waiters = new Set<() => void>();
  private stopListening: (() => void) | undefined;

  private constructor(private readonly options: LocalOrderBookOptions) {
    this.state = createLocalBook(options.nLevels ?? 100);
  }

  /** Subscribes and resolves once the book is seeded from the first snapshot. */
  static async open(ws: WsClient, options: LocalOrderBookOptions): Promise<LocalOrderBook> {
    const book = new LocalOrderBook(options);
    // Whatever the book held stops being current when the connection drops; the reconnect's
    // snapshot makes it live again.
    book.stopListening = ws.on((event) => {
      if (event.type === 'close') book.phase = 'resyncing';
    });
    book.subscription = await ws.subscribe({ channel: 'l2OrderbookUpdates', id: options.market, nLevels: book.state.nLevels }, (frame) => book.onFrame(frame));
    return book;
  }

  /** 'live' between a snapshot and the next gap; 'resyncing' while waiting for a snapshot. */
  get status(): 'resyncing' | 'live' {
    return this.phase;
  }

  get lastSequenceId(): number {
    return this.state.lastSequenceId;
  }

  view(n = this.state.nLevels): BookView {
    return bookView(this.state, n);
  }

  private onFrame(frame: ChannelFrame<'l2OrderbookUpdates'>): void {
    if (frame.type === 'subscribed') {
      seedBook(this.state, frame.contents);
      this.phase = 'live';
    } else if (this.phase === 'live') {
      const outcome = applyDelta(this.state, frame.contents);
      if (outcome === 'gap') {
        this.phase = 'resyncing';
        this.resubscribes++;
        this.subscription?.resubscribe();
        return;
      }
      if (outcome === 'stale') return;
    } else {
      return;
    }
    this.options.onChange?.(this);
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Resolves once the book is live and has applied everything up to `lastSequenceId`. */
  caughtUp(lastSequenceId: number, timeoutMs = 5_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = (): boolean => this.phase === 'live' && this.state.lastSequenceId >= lastSequenceId;
      if (check()) return resolve();
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`book not caught up to ${lastSequenceId} (at ${this.state.lastSequenceId}, ${this.phase})`));
      }, timeoutMs);
      const waiter = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
    });
  }

  close(): Promise<void> {
    this.stopListening?.();
    return this.subscription?.unsubscribe() ?? Promise.resolve();
  }
}
