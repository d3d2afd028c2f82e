/**
 * `perpsim record`: subscribes to a running perpsim's public WebSocket channels and writes the
 * backtest's JSONL format (data-format.ts) — the converter from perpsim's own streams.
 *
 * Channels → records (docs/decisions.md "Data format and recording"):
 * - l2OrderbookUpdates (nLevels 100): the subscribe snapshot → `book` snapshot, each delta → `book`;
 * - trades → one `trade` per row; the venue's WebSocket rows carry no side, so the aggressor is
 *   read off the recorded book: at or above the best ask a buy, at or below the best bid a sell,
 *   otherwise the side of the mid the price is on;
 * - oraclePrices → `oracle` (price, mark);
 * - predictedFunding → `funding` with the hour's rate so far (the last one of an hour is the
 *   settled rate).
 * `ts` is the exchange time in the frame (µs; predictedFunding has none and takes the latest
 * exchange time seen), `lts` the recorder's wall clock when the frame arrived.
 */
import WebSocket from 'ws';
import { wallMicros } from '../clock.ts';
import { MarketDataWriter, type PriceSize } from './data-format.ts';

export interface RecordOptions {
  /** The server's WebSocket, e.g. ws://127.0.0.1:8080/v1/ws. */
  url: string;
  out: string;
  /** Display names; default every ONLINE market (from GET /v1/markets). */
  markets?: string[] | undefined;
}

export interface Recording {
  /** Resolves once every channel is subscribed. */
  ready: Promise<void>;
  /** Closes the socket and the file; answers the number of events written. */
  stop(): Promise<number>;
  /** Settles when the recording stops (stop() or the server closing). */
  done: Promise<void>;
}

interface Frame {
  type: string;
  channel?: string;
  id?: string;
  contents?: unknown;
}

/** Best bid and ask of the recorded book per market, for the trades' aggressor side. */
class TopOfBook {
  readonly bids = new Map<string, number>();
  readonly asks = new Map<string, number>();

  apply(bids: readonly PriceSize[], asks: readonly PriceSize[], snapshot: boolean): void {
    if (snapshot) {
      this.bids.clear();
      this.asks.clear();
    }
    for (const [p, s] of bids) Number(s) > 0 ? this.bids.set(p, Number(p)) : this.bids.delete(p);
    for (const [p, s] of asks) Number(s) > 0 ? this.asks.set(p, Number(p)) : this.asks.delete(p);
  }

  side(price: number): 'BUY' | 'SELL' {
    const bid = Math.max(...this.bids.values());
    const ask = Math.min(...this.asks.values());
    if (price >= ask) return 'BUY';
    if (price <= bid) return 'SELL';
    return Number.isFinite(bid) && Number.isFinite(ask) && price < (bid + ask) / 2 ? 'SELL' : 'BUY';
  }
}

async function onlineMarkets(url: string): Promise<string[]> {
  const http = url.replace(/^ws/, 'http').replace(/\/v1\/ws\/?$/, '');
  const response = await fetch(`${http}/v1/markets`);
  const body = (await response.json()) as { markets: { marketDisplayName: string; status: string }[] };
  return body.markets.filter((m) => m.status === 'ONLINE').map((m) => m.marketDisplayName);
}

export async function recordMarketData(options: RecordOptions): Promise<Recording> {
  const markets = options.markets ?? (await onlineMarkets(options.url));
  const writer = new MarketDataWriter(options.out, { markets, source: options.url });
  const books = new Map(markets.map((m) => [m, new TopOfBook()] as const));
  const ws = new WebSocket(options.url);
  let lastTs = 0;
  let closed = false;
  const stamp = (ts: number | undefined): number => {
    if (ts !== undefined && ts > lastTs) lastTs = ts;
    return lastTs;
  };
  const subscriptions = [
    ...markets.flatMap((id) => [
      { type: 'subscribe', channel: 'l2OrderbookUpdates', id, nLevels: 100 },
      { type: 'subscribe', channel: 'trades', id },
      { type: 'subscribe', channel: 'predictedFunding', id },
    ]),
    { type: 'subscribe', channel: 'oraclePrices' },
  ];
  let pending = subscriptions.length;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const done = new Promise<void>((resolve) => ws.once('close', () => resolve()));

  ws.on('message', (data) => {
    if (closed) return;
    const lts = wallMicros();
    const frame = JSON.parse(String(data)) as Frame;
    if (frame.type === 'subscribed' && --pending === 0) markReady();
    if (frame.type !== 'subscribed' && frame.type !== 'channel_data') return;
    const market = frame.id ?? '';
    switch (frame.channel) {
      case 'l2OrderbookUpdates': {
        const c = frame.contents as { bids: PriceSize[]; asks: PriceSize[]; timestamp: number };
        const snapshot = frame.type === 'subscribed';
        books.get(market)?.apply(c.bids, c.asks, snapshot);
        const ts = stamp(c.timestamp);
        writer.write({ type: 'book', ts, lts: Math.max(lts, ts), market, ...(snapshot && { snapshot: true }), bids: c.bids, asks: c.asks });
        break;
      }
      case 'trades': {
        if (!Array.isArray(frame.contents)) break;
        for (const row of frame.contents as { price: string; size: string; timestamp: number }[]) {
          const ts = stamp(row.timestamp);
          writer.write({ type: 'trade', ts, lts: Math.max(lts, ts), market, side: books.get(market)?.side(Number(row.price)) ?? 'BUY', price: row.price, size: row.size });
        }
        break;
      }
      case 'oraclePrices': {
        const c = frame.contents as { prices?: { marketDisplayName: string; price: string; markPrice: string; markEpochNanos: string }[] } | undefined;
        for (const p of c?.prices ?? []) {
          if (!books.has(p.marketDisplayName)) continue;
          const ts = stamp(Number(BigInt(p.markEpochNanos) / 1000n));
          writer.write({ type: 'oracle', ts, lts: Math.max(lts, ts), market: p.marketDisplayName, price: p.price, mark: p.markPrice });
        }
        break;
      }
      case 'predictedFunding': {
        const c = frame.contents as { market?: string; rate1h?: string };
        if (c.market === undefined || c.rate1h === undefined || lastTs === 0) break;
        writer.write({ type: 'funding', ts: lastTs, lts: Math.max(lts, lastTs), market: c.market, rate: c.rate1h });
        break;
      }
      default:
        break;
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  for (const s of subscriptions) ws.send(JSON.stringify(s));
  const finish = (): number => {
    if (!closed) {
      closed = true;
      writer.close();
    }
    return writer.count;
  };
  void done.then(finish);
  return {
    ready,
    done,
    stop: async () => {
      const count = finish();
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) {
        ws.close();
        await done;
      }
      return count;
    },
  };
}
