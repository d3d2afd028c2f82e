/**
 * report.html: one self-contained page — the summary, the equity curve, the price of each
 * traded market with the strategy's fills marked, the drawdown and the position over time.
 *
 * Charts are TradingView's lightweight-charts, whose standalone production bundle is read from
 * node_modules and inlined, with the data as JSON: the page needs no network and no server.
 * Once every chart has drawn, the page sets `data-rendered="true"` on <body> (the screenshot
 * test waits for it). The page carries nothing that varies between identical runs (no
 * generation time), so the same run gives the same bytes.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { MarketSpec } from '../../engine/index.ts';
import type { FillPoint, Sample, Summary } from './summary-types.ts';

let bundle: string | undefined;

export function chartsBundle(): string {
  if (bundle === undefined) {
    const require = createRequire(import.meta.url);
    // The package exports only its ES module and package.json; the standalone bundle is in dist/.
    const path = join(dirname(require.resolve('lightweight-charts/package.json')), 'dist', 'lightweight-charts.standalone.production.js');
    bundle = readFileSync(path, 'utf8').replaceAll('</script', '<\\/script');
  }
  return bundle;
}

/** JSON for inlining in a <script>: nothing in it can close the element. */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** A USD decimal string to the cent (display only; summary.json keeps the exact amount). */
export function cents(text: string): string {
  const r = Math.round(Number(text) * 100) / 100;
  return (r === 0 ? 0 : r).toFixed(2);
}

function significantPct(fraction: number): string {
  return String(Number((fraction * 100).toPrecision(4)));
}

/** Chart series: time in whole seconds, strictly ascending (the library's requirement); later points at one second win. */
function series(points: readonly { time: number; value: number }[]): { time: number; value: number }[] {
  const out: { time: number; value: number }[] = [];
  for (const p of [...points].sort((a, b) => a.time - b.time)) {
    const time = Math.floor(p.time / 1_000_000);
    if (out.length > 0 && out.at(-1)!.time === time) out[out.length - 1] = { time, value: p.value };
    else out.push({ time, value: p.value });
  }
  return out;
}

export function renderReport(summary: Summary, samples: readonly Sample[], fills: readonly FillPoint[], specs: readonly MarketSpec[]): string {
  const equity = series(samples.map((s) => ({ time: s.time, value: s.equity })));
  let peak = -Infinity;
  const drawdown = equity.map((p) => {
    peak = Math.max(peak, p.value);
    return { time: p.time, value: p.value - peak };
  });
  const traded = specs.filter((spec) => fills.some((f) => f.marketId === spec.id));
  // Every traded market gets its own price-and-fills chart; an idle run shows the first market's price.
  const shown = traded.length > 0 ? traded : specs.slice(0, 1);
  const markets = shown.map((spec) => {
    const own = fills.filter((f) => f.marketId === spec.id);
    const price = series([
      ...samples.filter((s) => (s.prices[spec.id] ?? 0) > 0).map((s) => ({ time: s.time, value: s.prices[spec.id]! })),
      ...own.map((f) => ({ time: f.time, value: f.price })),
    ]);
    const markers = own.map((f) => ({
      time: Math.floor(f.time / 1_000_000),
      position: f.side === 'BUY' ? 'belowBar' : 'aboveBar',
      color: f.side === 'BUY' ? '#1b8a3a' : '#c0392b',
      shape: f.side === 'BUY' ? 'arrowUp' : 'arrowDown',
    }));
    const position = series(samples.map((s) => ({ time: s.time, value: s.positions[spec.id] ?? 0 })));
    return { name: spec.displayName, price, markers, position };
  });
  const data = { equity, drawdown, markets };
  const ratio = (name: keyof Summary, suffix = ''): string => {
    const v = summary[name];
    return v === null ? `n/a (${summary.unavailable[name] ?? 'unavailable'})` : `${String(v)}${suffix}`;
  };
  const rows = [
    ['Data', summary.data],
    ['Markets', summary.markets.join(', ')],
    ['Events', String(summary.events)],
    ['Starting balance', cents(summary.startingBalance)],
    ['Final equity', cents(summary.finalEquity)],
    ['PnL total', cents(summary.pnl.total)],
    ['Realized', cents(summary.pnl.realized)],
    ['Unrealized', cents(summary.pnl.unrealized)],
    ['Fees', cents(summary.pnl.fees)],
    ['Funding', cents(summary.pnl.funding)],
    ['Max drawdown', `${cents(summary.maxDrawdown)} (${summary.maxDrawdownPct}%)`],
    ['Sharpe', ratio('sharpe')],
    ['Sortino', ratio('sortino')],
    ['Calmar', ratio('calmar')],
    ['Win rate', summary.winRate === null ? ratio('winRate') : `${significantPct(summary.winRate)}% of ${summary.trades} trades`],
    ['Profit factor', ratio('profitFactor')],
    ['Average holding time', ratio('avgHoldingSec', ' s')],
    ['Exposure', `${summary.exposurePct}% of the time`],
    ['Turnover', String(summary.turnover)],
    ['Fills', `${summary.fills.total} (maker ${summary.fills.maker}, taker ${summary.fills.taker})`],
    ['Rejections', Object.entries(summary.rejections).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'],
    ['Returns', `${summary.returns.count} returns sampled every ${summary.returns.intervalMs / 1000} s`],
  ];
  const table = rows.map(([k, v]) => `<tr><th>${escapeHtml(k!)}</th><td>${escapeHtml(v!)}</td></tr>`).join('');
  const priceDivs = markets.map((m, i) => `<h2>${escapeHtml(m.name)} price and fills</h2><div class="chart" id="price-${i}"></div>`).join('');
  const positionDivs = markets.map((m, i) => `<h2>${escapeHtml(m.name)} position</h2><div class="chart small" id="position-${i}"></div>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>perpsim backtest report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 24px; color: #1d2330; background: #fff; }
table { border-collapse: collapse; margin-bottom: 16px; }
th, td { text-align: left; padding: 2px 12px 2px 0; font-size: 13px; }
h1 { font-size: 20px; } h2 { font-size: 15px; margin: 18px 0 6px; }
.chart { width: 100%; height: 260px; } .chart.small { height: 160px; }
</style>
</head>
<body>
<h1>perpsim backtest report</h1>
<table>${table}</table>
<h2>Equity (USD)</h2><div class="chart" id="equity"></div>
${priceDivs}
<h2>Drawdown (USD)</h2><div class="chart small" id="drawdown"></div>
${positionDivs}
<script>${chartsBundle()}</script>
<script>
const data = ${inlineJson(data)};
const LC = LightweightCharts;
const options = { autoSize: true, layout: { attributionLogo: false }, timeScale: { timeVisible: true, secondsVisible: true } };
function line(id, points, color, kind) {
  const chart = LC.createChart(document.getElementById(id), options);
  const s = chart.addSeries(kind === 'area' ? LC.AreaSeries : LC.LineSeries, kind === 'area' ? { lineColor: color, topColor: color + '55', bottomColor: color + '08', lineWidth: 2 } : { color, lineWidth: 2 });
  s.setData(points);
  chart.timeScale().fitContent();
  return s;
}
line('equity', data.equity, '#2962ff', 'line');
line('drawdown', data.drawdown, '#c0392b', 'area');
data.markets.forEach((m, i) => {
  const s = line('price-' + i, m.price, '#455a64', 'line');
  LC.createSeriesMarkers(s, m.markers);
  line('position-' + i, m.position, '#8e44ad', 'area');
});
requestAnimationFrame(() => requestAnimationFrame(() => { document.body.dataset.rendered = 'true'; }));
</script>
</body>
</html>
`;
}
