/**
 * One market: its live depth ladder (l2Orderbook snapshots, sizes and cumulative sizes), a depth
 * chart drawn from the same snapshot, the trades tape (REST history, then the trades channel),
 * candles (the candles channel, one timeframe at a time, in lightweight-charts) and the market's
 * parameters from GET /v1/markets.
 */
import { CandlestickSeries, ColorType, createChart, type CandlestickData, type UTCTimestamp } from 'lightweight-charts';
import type { BookContents, Candle, LevelRow, Market, Subscription, Trade } from '../../../client/index.ts';
import { Console } from '../context.ts';
import { field, fill, h, row, section, table, td } from '../dom.ts';
import { fixed, percent, timeUs } from '../format.ts';
import { snapshotOf, type Scope, type View } from '../view.ts';

const LEVELS = 15;
const TAPE = 60;
export const TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;

export const marketView: View = async (scope, root, name) => {
  const { ctx } = scope;
  const market = name === undefined ? undefined : await ctx.market(name);
  if (market === undefined) {
    fill(root, section('Market', h('p', { role: 'alert' }, `Unknown market: ${name ?? '(none)'}.`), h('p', {}, h('a', { href: '#/markets' }, 'All markets'))));
    return;
  }
  const d = Console.decimals(market);
  const prices = h('p', { class: 'prices', role: 'status', 'aria-live': 'off' }, 'Oracle — · Mark —');
  const ladderBody = h('div', { class: 'ladder', role: 'table', 'aria-label': `${market.marketDisplayName} order book` });
  const depth = h('canvas', { class: 'depth', width: 600, height: 220, role: 'img', 'aria-label': 'Depth chart: cumulative bid and ask size by price' });
  const tape = table('grid tape', ['Time', 'Side', 'Price', 'Size'], 'Trades');
  const candleBox = h('div', { class: 'candles', role: 'img', 'aria-label': 'Candles chart' });
  const timeframe = h('select', { id: 'timeframe' }, ...TIMEFRAMES.map((tf) => h('option', { value: tf }, tf)));
  fill(
    root,
    h('div', { class: 'title' }, h('h1', {}, market.marketDisplayName), prices),
    h(
      'div',
      { class: 'market-grid' },
      section('Order book', ladderBody),
      h('div', { class: 'stack' }, section('Candles', field('Timeframe', timeframe), candleBox), section('Depth', depth)),
      section('Trades', h('div', { class: 'scroll tape-box' }, tape.table)),
      section('Parameters', parameters(market)),
    ),
  );

  const showPrices = (p: { price: string; markPrice: string }): void => {
    prices.textContent = `Oracle ${fixed(p.price, d.price)} · Mark ${p.markPrice === '0' ? 'n/a' : fixed(p.markPrice, d.price)}`;
  };
  let streamed = false;
  void ctx.prices().then((now) => {
    const p = now.get(market.marketDisplayName);
    if (p !== undefined && !streamed && !scope.disposed) showPrices(p);
  });
  void scope.subscribe({ channel: 'oraclePrices' }, (frame) => {
    const p = frame.contents.prices?.find((x) => x.marketId === market.marketId);
    if (p === undefined) return;
    streamed = true;
    showPrices(p);
  });
  void scope.subscribe({ channel: 'l2Orderbook', id: market.marketDisplayName, nLevels: LEVELS }, (frame) => {
    renderLadder(ladderBody, frame.contents, d);
    drawDepth(depth, frame.contents, d.price);
  });

  const trades: Trade[] = [];
  const paintTape = (): void => {
    tape.body.replaceChildren(
      ...trades.map((t) => row([td(timeUs(t.timestamp), ''), td(t.side ?? '—', t.side === 'BUY' ? 'pos' : t.side === 'SELL' ? 'neg' : 'muted'), td(fixed(t.price, d.price)), td(fixed(t.size, d.size))])),
    );
  };
  void ctx.client.trades({ market: market.marketDisplayName, limit: TAPE }).then((reply) => {
    if (scope.disposed) return;
    trades.push(...reply.trades.filter((t) => !trades.some((x) => x.tradeId === t.tradeId)));
    trades.sort((a, b) => b.timestamp - a.timestamp);
    paintTape();
  });
  void scope.subscribe({ channel: 'trades', id: market.marketDisplayName }, (frame) => {
    if (!Array.isArray(frame.contents)) return;
    trades.unshift(...[...frame.contents].reverse());
    trades.length = Math.min(trades.length, TAPE);
    paintTape();
  });

  candles(scope, candleBox, timeframe, market, d.price);
};

function parameters(market: Market): HTMLElement {
  const rows: [string, unknown][] = [
    ['Status', market.status],
    ['Tick size', market.tickSize],
    ['Tick tiers', market.tickTiers.map((t) => (t.upToPrice === undefined ? `${t.tick} above` : `${t.tick} below ${t.upToPrice}`)).join('; ')],
    ['Step size', market.stepSize],
    ['Min order notional', market.minOrderNotional],
    ['Min / max order size', `${market.minOrderSize ?? '—'} / ${market.maxOrderSize ?? '—'}`],
    ['Initial margin fraction', market.initialMarginFraction],
    ['Maintenance margin fraction', market.maintenanceMarginFraction],
    ['Off-hours initial margin fraction', market.offHoursInitialMarginFraction],
    ['Max leverage', market.initialMarginFraction === undefined ? undefined : `${(1 / Number(market.initialMarginFraction)).toFixed(1)}×`],
    ['Trading hours', market.regularTradingHours === null || market.regularTradingHours === undefined ? '24/7' : JSON.stringify(market.regularTradingHours)],
    ['Outside trading hours', market.isOutsideRth],
    ['Settlement price', market.currentSettlementPrice],
    ['Trading bounds', market.upperTradingBound === null || market.upperTradingBound === undefined ? 'none' : `${String(market.lowerTradingBound)} – ${String(market.upperTradingBound)}`],
    ['Category', market.category],
    ['Market id', market.marketId],
  ];
  return h('dl', { class: 'params' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v === undefined || v === null ? '—' : String(v))]));
}

function renderLadder(box: HTMLElement, book: BookContents, d: { price: number; size: number }): void {
  const cumulate = (levels: readonly LevelRow[]): number[] => {
    let sum = 0;
    return levels.map(([, size]) => (sum += Number(size)));
  };
  const asks = book.asks.slice(0, LEVELS);
  const bids = book.bids.slice(0, LEVELS);
  const askCum = cumulate(asks);
  const bidCum = cumulate(bids);
  const max = Math.max(askCum.at(-1) ?? 0, bidCum.at(-1) ?? 0, 1e-18);
  const line = (side: 'ask' | 'bid', [price, size]: LevelRow, cum: number): HTMLElement =>
    h(
      'div',
      { class: `level ${side}`, role: 'row', style: `--depth:${((cum / max) * 100).toFixed(1)}%` },
      h('span', { role: 'cell', class: 'price' }, fixed(price, d.price)),
      h('span', { role: 'cell' }, fixed(size, d.size)),
      h('span', { role: 'cell' }, fixed(cum, d.size)),
    );
  const bestBid = Number(bids[0]?.[0] ?? NaN);
  const bestAsk = Number(asks[0]?.[0] ?? NaN);
  const spread = bestAsk - bestBid;
  box.replaceChildren(
    h('div', { class: 'level head', role: 'row' }, h('span', { role: 'columnheader' }, 'Price'), h('span', { role: 'columnheader' }, 'Size'), h('span', { role: 'columnheader' }, 'Cumulative')),
    ...asks.map((level, i) => line('ask', level, askCum[i]!)).reverse(),
    h('div', { class: 'level spread', role: 'row' }, h('span', { role: 'cell' }, Number.isFinite(spread) ? `spread ${fixed(spread, d.price)} (${percent(spread / bestBid, 3).replace('+', '')})` : asks.length + bids.length === 0 ? 'empty book' : 'one-sided book')),
    ...bids.map((level, i) => line('bid', level, bidCum[i]!)),
  );
}

function drawDepth(canvas: HTMLCanvasElement, book: BookContents, priceDecimals: number): void {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth || 600;
  const height = canvas.clientHeight || 220;
  if (canvas.width !== Math.round(width * ratio)) canvas.width = Math.round(width * ratio);
  if (canvas.height !== Math.round(height * ratio)) canvas.height = Math.round(height * ratio);
  const g = canvas.getContext('2d');
  if (g === null) return;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  const side = (levels: readonly LevelRow[]): [number, number][] => {
    let sum = 0;
    return levels.map(([p, s]) => [Number(p), (sum += Number(s))]);
  };
  const bids = side(book.bids);
  const asks = side(book.asks);
  const all = [...bids, ...asks];
  if (all.length === 0) return;
  const lo = Math.min(...all.map(([p]) => p));
  const hi = Math.max(...all.map(([p]) => p));
  const top = Math.max(...all.map(([, c]) => c));
  const pad = 4;
  const x = (p: number): number => (hi === lo ? width / 2 : pad + ((p - lo) / (hi - lo)) * (width - 2 * pad));
  const y = (c: number): number => height - pad - (c / top) * (height - 2 * pad);
  const area = (points: [number, number][], fillStyle: string, stroke: string): void => {
    if (points.length === 0) return;
    g.beginPath();
    g.moveTo(x(points[0]![0]), height - pad);
    for (const [p, c] of points) {
      g.lineTo(x(p), y(c));
    }
    g.lineTo(x(points.at(-1)![0]), height - pad);
    g.closePath();
    g.fillStyle = fillStyle;
    g.fill();
    g.strokeStyle = stroke;
    g.stroke();
  };
  area(bids, 'rgba(38, 166, 91, 0.25)', '#26a65b');
  area(asks, 'rgba(214, 69, 65, 0.25)', '#d64541');
  g.fillStyle = '#8a94a6';
  g.font = '11px system-ui, sans-serif';
  g.fillText(fixed(lo, priceDecimals), pad, 12);
  const hiText = fixed(hi, priceDecimals);
  g.fillText(hiText, width - pad - g.measureText(hiText).width, 12);
}

function candles(scope: Scope, box: HTMLElement, select: HTMLSelectElement, market: Market, priceDecimals: number): void {
  const chart = createChart(box, {
    autoSize: true,
    layout: { background: { type: ColorType.Solid, color: 'transparent' }, textColor: '#8a94a6', attributionLogo: false },
    grid: { vertLines: { color: 'rgba(138,148,166,0.12)' }, horzLines: { color: 'rgba(138,148,166,0.12)' } },
    timeScale: { timeVisible: true, secondsVisible: false },
  });
  const series = chart.addSeries(CandlestickSeries, {
    upColor: '#26a65b',
    downColor: '#d64541',
    wickUpColor: '#26a65b',
    wickDownColor: '#d64541',
    borderVisible: false,
    priceFormat: { type: 'price', precision: priceDecimals, minMove: Number(market.tickSize) },
  });
  scope.onDispose(() => chart.remove());
  const bar = (c: Candle): CandlestickData<UTCTimestamp> => ({ time: Math.floor(c.openTime / 1_000_000) as UTCTimestamp, open: Number(c.open), high: Number(c.high), low: Number(c.low), close: Number(c.close) });
  let current: Promise<Subscription<'candles'> | undefined> | undefined;
  const show = (tf: string): void => {
    void current?.then((s) => s?.unsubscribe()).catch(() => undefined);
    series.setData([]);
    const id = `${market.marketDisplayName}/${tf}`;
    current = scope.subscribe({ channel: 'candles', id }, (frame) => {
      if (select.value !== tf) return;
      const snapshot = snapshotOf<{ candles: Candle[] }>(frame.contents);
      if (snapshot !== undefined) {
        series.setData([...snapshot.candles].sort((a, b) => a.openTime - b.openTime).map(bar));
        chart.timeScale().fitContent();
      } else if ('openTime' in frame.contents) {
        series.update(bar(frame.contents as Candle));
      }
    });
  };
  select.addEventListener('change', () => show(select.value));
  show(select.value);
}
