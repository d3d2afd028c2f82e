/**
 * A client-side local order book kept from the `l2OrderbookUpdates` channel by the interface's
 * resync rules (interface.md "Sequencing"), the way a venue bot keeps one: the SDK's book
 * (client/book.ts) over a bare `ws` connection that can use a source address and drop frames.
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
 * The book logic (`createLocalBook`, `seedBook`, `applyDelta`, `bookView`) is the SDK's, pure
 * and without I/O; `connectBookClient` wraps it around one `ws` connection.
 */
import WebSocket from 'ws';
import { applyDelta, bookView, createLocalBook, seedBook, type BookState, type BookView } from '../../client/book.ts';
import type { BookContents } from '../../client/types.ts';

export { applyDelta, bookView, createLocalBook, seedBook };

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
  book: BookState;
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
