/**
 * A client-side local order book kept from the `l2OrderbookUpdates` channel by the interface's
 * resync rules (interface.md "Sequencing"), the way a venue bot keeps one.
 *
 * Contract:
 * - Seed: the `subscribed` reply's contents (the snapshot) replace the whole book, and the
 *   snapshot's `lastSequenceId` becomes the baseline. This holds on every (re)subscribe: nothing
 *   is assumed to continue across one.
 * - Deltas carry absolute level sizes; a zero size ("0", "0.0", ...) removes the level.
 * - A delta whose lastSequenceId is not greater than the baseline is stale and ignored.
 * - The first delta applied after a snapshot may be a few sequences ahead of the baseline: that
 *   is expected and is applied (counted in `firstDeltaSkips`), not a reason to re-subscribe.
 * - Once applying, sequences are contiguous; a delta further ahead than last + 1 is a missed
 *   delta (a dropped frame, or the server's slow-consumer `degraded` drop) and the client
 *   re-subscribes: unsubscribe and subscribe are sent back to back, every frame of the channel
 *   is ignored until the fresh `subscribed` snapshot arrives, and that snapshot seeds the book.
 * - Depth: a snapshot carries at most `nLevels` levels a side. A side that came back full may
 *   have levels beyond its worst snapshot price that the client never saw (the horizon); levels
 *   a later delta names beyond it are exact, others may be missing. `view(n)` says whether its
 *   top n levels lie within what the client can know exactly.
 *
 * The book logic (`createLocalBook`, `seedBook`, `applyDelta`, `bookView`) is pure and has no
 * I/O; `connectBookClient` wraps it around one `ws` connection.
 */
import WebSocket from 'ws';

export type LevelRow = [price: string, size: string];

/** The contents of a book frame: the snapshot and every delta share this shape (supplement §9). */
export interface BookContents {
  bids: LevelRow[];
  asks: LevelRow[];
  lastSequenceId: number;
  globalSequenceId?: number;
  timestamp?: number;
}

interface BookSide {
  /** Price text as printed by the venue → size text. */
  levels: Map<string, string>;
  /** Worst snapshot price of a side that came back full (levels beyond it may be unknown). */
  horizon: number | undefined;
}

export interface LocalBook {
  bids: BookSide;
  asks: BookSide;
  /** The depth asked for; a snapshot side of this length may be truncated. */
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

export function createLocalBook(nLevels: number): LocalBook {
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

const ZERO = /^0*(\.0*)?$/;

function isZero(size: string): boolean {
  return ZERO.test(size);
}

function seedSide(side: BookSide, rows: readonly LevelRow[], nLevels: number): void {
  side.levels.clear();
  for (const [price, size] of rows) if (!isZero(size)) side.levels.set(price, size);
  side.horizon = rows.length >= nLevels && rows.length > 0 ? Number(rows[rows.length - 1]![0]) : undefined;
}

/** Replaces the book with a snapshot and takes its lastSequenceId as the baseline. */
export function seedBook(book: LocalBook, snapshot: BookContents): void {
  seedSide(book.bids, snapshot.bids, book.nLevels);
  seedSide(book.asks, snapshot.asks, book.nLevels);
  book.baseline = snapshot.lastSequenceId;
  book.lastSequenceId = snapshot.lastSequenceId;
  book.applying = false;
  book.stats.snapshots++;
}

function applySide(side: BookSide, rows: readonly LevelRow[]): void {
  for (const [price, size] of rows) {
    if (isZero(size)) side.levels.delete(price);
    else side.levels.set(price, size);
  }
}

/**
 * Applies one delta by the resync rules. `gap` leaves the book untouched: the caller must
 * re-subscribe and seed again.
 */
export function applyDelta(book: LocalBook, delta: BookContents): DeltaOutcome {
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
  /** False when a side's top `n` reach past what the last snapshot showed (see the horizon). */
  exact: boolean;
}

function topOf(side: BookSide, n: number, descending: boolean): { rows: LevelRow[]; exact: boolean } {
  const rows = [...side.levels.entries()].sort((a, b) => (descending ? Number(b[0]) - Number(a[0]) : Number(a[0]) - Number(b[0]))).slice(0, n);
  if (side.horizon === undefined) return { rows, exact: true };
  const beyond = (price: number): boolean => (descending ? price < side.horizon! : price > side.horizon!);
  // Short of n levels, the next unseen one could be beyond the horizon; past it, holes may exist.
  const exact = rows.length === n && !rows.some(([price]) => beyond(Number(price)));
  return { rows, exact };
}

/** The best `n` levels a side, best first (bids descending, asks ascending), as wire pairs. */
export function bookView(book: LocalBook, n: number): BookView {
  const bids = topOf(book.bids, n, true);
  const asks = topOf(book.asks, n, false);
  return { bids: bids.rows, asks: asks.rows, lastSequenceId: book.lastSequenceId, exact: bids.exact && asks.exact };
}

// ---------------------------------------------------------------------------------------------
// Over a WebSocket.

export interface BookClientOptions {
  /** The server's base URL (http://host:port); the socket is at /v1/ws. */
  url: string;
  /** Market display name or id, as the subscribe frame's `id`. */
  market: string;
  /** 1-100; the depth of every snapshot. Default 100. */
  nLevels?: number;
  /** Source address of the connection (a loopback alias such as 127.0.0.2). */
  localAddress?: string;
  /**
   * Frames for which this returns false are dropped as if lost in transit (tests use it to
   * make a gap and exercise the re-subscribe path).
   */
  deliver?: (frame: Record<string, unknown>) => boolean;
}

export interface WsBookClient {
  book: LocalBook;
  /** Re-subscribes done after a mid-stream gap. */
  resubscribes: number;
  /** `degraded` frames received (the server dropped updates for a slow consumer). */
  degraded: number;
  /** Error frames received (status and message). */
  errors: string[];
  /** 'live' between a snapshot and the next gap; 'resyncing' while waiting for a snapshot. */
  state(): 'resyncing' | 'live';
  view(n?: number): BookView;
  /** Resolves once the book is live and has applied everything up to `lastSequenceId`. */
  caughtUp(lastSequenceId: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Connects, subscribes to l2OrderbookUpdates of `market`, and resolves after the first snapshot. */
export async function connectBookClient(options: BookClientOptions): Promise<WsBookClient> {
  const nLevels = options.nLevels ?? 100;
  const book = createLocalBook(nLevels);
  const ws = new WebSocket(options.url.replace(/^http/, 'ws') + '/v1/ws', options.localAddress === undefined ? {} : { localAddress: options.localAddress });
  const subscription = { channel: 'l2OrderbookUpdates', id: options.market, nLevels };
  let state: 'resyncing' | 'live' = 'resyncing';
  let marketName: string | undefined;
  const waiters = new Set<() => void>();
  const client: WsBookClient = {
    book,
    resubscribes: 0,
    degraded: 0,
    errors: [],
    state: () => state,
    view: (n = nLevels) => bookView(book, n),
    caughtUp: (lastSequenceId, timeoutMs = 5_000) =>
      new Promise<void>((resolve, reject) => {
        const check = (): boolean => state === 'live' && book.lastSequenceId >= lastSequenceId;
        if (check()) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`book not caught up to ${lastSequenceId} (at ${book.lastSequenceId}, ${state})`));
        }, timeoutMs);
        const waiter = (): void => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        };
        waiters.add(waiter);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };

  const resubscribe = (): void => {
    state = 'resyncing';
    client.resubscribes++;
    ws.send(JSON.stringify({ type: 'unsubscribe', ...subscription }));
    ws.send(JSON.stringify({ type: 'subscribe', ...subscription }));
  };

  let first: ((error?: Error) => void) | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    first = (error) => (error === undefined ? resolve() : reject(error));
  });

  ws.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    if (options.deliver !== undefined && !options.deliver(frame)) return;
    if (frame.type === 'degraded') {
      client.degraded++;
      return;
    }
    if (frame.type === 'error') {
      const error = frame.error as { message?: string } | undefined;
      client.errors.push(`${String(frame.status)} ${error?.message ?? ''}`);
      if (state === 'resyncing' && book.stats.snapshots === 0) first?.(new Error(`subscribe refused: ${error?.message ?? ''}`));
      return;
    }
    if (frame.channel !== 'l2OrderbookUpdates') return;
    if (marketName !== undefined && frame.id !== marketName) return;
    if (frame.type === 'subscribed') {
      marketName = String(frame.id);
      seedBook(book, frame.contents as BookContents);
      state = 'live';
      first?.();
    } else if (frame.type === 'channel_data' && state === 'live') {
      if (applyDelta(book, frame.contents as BookContents) === 'gap') resubscribe();
    } else {
      return;
    }
    for (const waiter of [...waiters]) waiter();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'subscribe', ...subscription }));
  await ready;
  return client;
}
