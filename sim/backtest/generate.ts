/**
 * A seeded synthetic recording in perpsim's market-data format, for benchmarks and tests: an
 * oracle random walk (sim/feeds.ts), a 20-level book on each side around it, trades at the top
 * of the book each followed by the delta that removes their size (as a venue's feed sends
 * them), other size changes near the top, and an hourly funding rate. The same seed and count
 * give the same file, byte for byte.
 */
import { compileMarket, formatUnits, type MarketDef } from '../../engine/index.ts';
import { createWalk, DEFAULT_WALK, step } from '../feeds.ts';
import { createPrng } from '../prng.ts';
import { MarketDataWriter, type PriceSize } from './data-format.ts';

export interface GenerateOptions {
  market: MarketDef;
  /** Starting price in ticks. */
  startTicks: number;
  events: number;
  seed: number;
  start: number;
  /** Book level spacing in ticks. */
  spacing?: number;
  levels?: number;
}

const HOUR_US = 3_600_000_000;

export function generateRecording(path: string, options: GenerateOptions): number {
  const spec = compileMarket(options.market);
  const rng = createPrng(options.seed);
  const walk = createWalk(spec, options.startTicks, options.seed, { ...DEFAULT_WALK, volatility: 0.8 });
  const spacing = options.spacing ?? 10;
  const depth = options.levels ?? 20;
  const market = spec.displayName;
  const price = (ticks: number): string => formatUnits(ticks, spec.tick);
  const size = (quantums: number): string => formatUnits(quantums, spec.step);
  // Level sizes around 0.05-2 units of the market's minimum order multiplied up.
  const levelSize = (): number => spec.minSize * (1 + rng.int(200));
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  let ts = options.start;
  let oracle = options.startTicks;
  let bestBid = 0;
  let bestAsk = 0;
  const writer = new MarketDataWriter(path, { markets: [market], source: `generated seed ${options.seed}` });
  const lts = (): number => ts + 500 + rng.int(2500);

  const grid = (): [number, number] => {
    const bid = Math.floor(oracle / spacing) * spacing;
    return [bid, bid + spacing];
  };
  /** Re-centres the book on the oracle; answers the delta that does it. */
  const recentre = (): { bids: PriceSize[]; asks: PriceSize[] } => {
    const [bid, ask] = grid();
    const delta = { bids: [] as PriceSize[], asks: [] as PriceSize[] };
    const wantBids = new Set<number>();
    const wantAsks = new Set<number>();
    for (let k = 0; k < depth; k++) {
      wantBids.add(bid - k * spacing);
      wantAsks.add(ask + k * spacing);
    }
    for (const [side, want, out] of [[bids, wantBids, delta.bids], [asks, wantAsks, delta.asks]] as const) {
      for (const p of [...side.keys()]) {
        if (!want.has(p)) {
          side.delete(p);
          out.push([price(p), '0']);
        }
      }
      for (const p of want) {
        if (!side.has(p)) {
          const q = levelSize();
          side.set(p, q);
          out.push([price(p), size(q)]);
        }
      }
    }
    bestBid = bid;
    bestAsk = ask;
    return delta;
  };

  const first = recentre();
  writer.write({ type: 'book', ts, lts: lts(), market, snapshot: true, bids: first.bids, asks: first.asks });
  writer.write({ type: 'oracle', ts, lts: lts(), market, price: price(oracle) });
  let nextFunding = Math.ceil((ts + 1) / HOUR_US) * HOUR_US;
  let written = 2;
  while (written < options.events) {
    ts += 1 + rng.int(2000);
    if (ts >= nextFunding) {
      const rate = (rng.next() - 0.45) * 0.0001;
      writer.write({ type: 'funding', ts, lts: lts(), market, rate: rate.toFixed(10) });
      nextFunding += HOUR_US;
      written++;
      continue;
    }
    const r = rng.next();
    if (r < 0.08) {
      oracle = step(walk, 100_000, ts);
      writer.write({ type: 'oracle', ts, lts: lts(), market, price: price(oracle) });
      written++;
      const [bid] = grid();
      if (bid !== bestBid && written < options.events) {
        const delta = recentre();
        writer.write({ type: 'book', ts, lts: lts(), market, bids: delta.bids, asks: delta.asks });
        written++;
      }
    } else if (r < 0.3) {
      const buy = rng.next() < 0.5;
      const level = buy ? bestAsk : bestBid;
      const book = buy ? asks : bids;
      const available = book.get(level) ?? 0;
      const q = Math.max(1, Math.min(available, Math.ceil(available * rng.next())));
      writer.write({ type: 'trade', ts, lts: lts(), market, side: buy ? 'BUY' : 'SELL', price: price(level), size: size(q) });
      written++;
      if (written < options.events) {
        // The level refills from behind when it is emptied, so the book never thins out.
        const left = available - q > 0 ? available - q : levelSize();
        book.set(level, left);
        const pair: PriceSize[] = [[price(level), size(left)]];
        writer.write({ type: 'book', ts, lts: lts(), market, bids: buy ? [] : pair, asks: buy ? pair : [] });
        written++;
      }
    } else {
      const bidSide = rng.next() < 0.5;
      const k = Math.min(depth - 1, Math.floor(-Math.log(1 - rng.next()) * 3));
      const level = bidSide ? bestBid - k * spacing : bestAsk + k * spacing;
      const q = levelSize();
      (bidSide ? bids : asks).set(level, q);
      const pair: PriceSize[] = [[price(level), size(q)]];
      writer.write({ type: 'book', ts, lts: lts(), market, bids: bidSide ? pair : [], asks: bidSide ? [] : pair });
      written++;
    }
  }
  writer.close();
  return ts;
}
