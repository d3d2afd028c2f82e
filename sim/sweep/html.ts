/**
 * sweep.html: one self-contained page — a sortable table of every run, a heatmap of a chosen
 * metric over two chosen parameters (where other parameters vary, a cell shows the best run's
 * value), and the equity curves of the best runs by the sweep's ranking metric. Charts are the
 * report's lightweight-charts bundle, inlined; the data is inlined JSON; nothing is fetched.
 * `data-rendered="true"` is set on <body> once everything has drawn. No generation time: the
 * same sweep gives the same bytes.
 */
import { chartsBundle, escapeHtml, inlineJson } from '../backtest/report.ts';
import type { RunResult } from './run.ts';
import { LOWER_IS_BETTER, METRICS, score, type RunRow, type SweepPlan } from './rows.ts';

/** Equity curves shown. */
const BEST_CURVES = 5;
const COLORS = ['#2962ff', '#c0392b', '#1b8a3a', '#8e44ad', '#e67e22'];

export function renderSweepHtml(plan: SweepPlan, rows: readonly RunRow[], results: ReadonlyMap<string, RunResult>): string {
  const params = plan.names.filter((n) => n !== 'seed');
  const ranked = rows.filter((r) => score(r.metrics, plan.rankBy) !== null).sort((a, b) => score(b.metrics, plan.rankBy)! - score(a.metrics, plan.rankBy)! || a.run - b.run);
  const curves = ranked.slice(0, BEST_CURVES).map((r, i) => ({
    label: `#${r.run} ${params.map((p) => `${p}=${String(r.params[p])}`).join(' ')}`,
    color: COLORS[i % COLORS.length],
    points: dedupe(results.get(r.key)?.equity ?? []),
  }));
  const data = {
    params,
    metrics: METRICS,
    lowerIsBetter: [...LOWER_IS_BETTER],
    rankBy: plan.rankBy,
    rows: rows.map((r) => ({ run: r.run, params: r.params, seed: r.seed, status: r.status, error: r.error ?? null, metrics: r.metrics ?? null })),
    curves,
  };
  const failed = rows.filter((r) => r.status === 'failed').length;
  const title = `perpsim sweep: ${plan.strategyName} on ${plan.dataName}`;
  const options = (names: readonly string[], selected: string): string => names.map((n) => `<option${n === selected ? ' selected' : ''}>${escapeHtml(n)}</option>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 24px; color: #1d2330; background: #fff; }
h1 { font-size: 20px; } h2 { font-size: 15px; margin: 20px 0 6px; }
table { border-collapse: collapse; font-size: 12px; }
th, td { padding: 2px 8px; text-align: right; border-bottom: 1px solid #eee; white-space: nowrap; }
#runs th { cursor: pointer; background: #f4f6fa; position: sticky; top: 0; }
#heatmap td { min-width: 64px; text-align: center; color: #111; }
.failed { color: #c0392b; }
.chart { width: 100%; height: 320px; }
.legend span { display: inline-block; margin-right: 14px; font-size: 12px; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${rows.length} runs (${failed} failed), seed ${plan.seed}, ranked by ${escapeHtml(plan.rankBy)}. Money in USD to the cent.</p>
<h2>Equity of the best ${curves.length} runs by ${escapeHtml(plan.rankBy)}</h2>
<div class="legend" id="legend"></div>
<div class="chart" id="equity"></div>
<h2>Heatmap</h2>
<p><label>metric <select id="hm-metric">${options(METRICS, plan.rankBy)}</select></label>
<label>x <select id="hm-x">${options(params, params[0] ?? '')}</select></label>
<label>y <select id="hm-y">${options(params, params[1] ?? params[0] ?? '')}</select></label></p>
<table id="heatmap"></table>
<h2>Runs (click a column to sort)</h2>
<p id="shown"></p>
<table id="runs"></table>
<script>${chartsBundle()}</script>
<script>
const data = ${inlineJson(data)};
const MONEY = new Set(['pnl', 'realized', 'unrealized', 'fees', 'funding', 'interest', 'finalEquity', 'maxDrawdown', 'tradedNotional']);
function show(metric, v) {
  if (v === null || v === undefined) return 'n/a';
  return MONEY.has(metric) ? (Math.round(Number(v) * 100) / 100).toFixed(2) : String(v);
}
function num(v) { return v === null || v === undefined ? null : Number(v); }
function better(metric, a, b) { return data.lowerIsBetter.includes(metric) ? a < b : a > b; }
function text(el, t) { el.textContent = t; return el; }

const columns = [{ id: 'run', get: (r) => r.run }]
  .concat(data.params.map((p) => ({ id: p, get: (r) => r.params[p] })))
  .concat([{ id: 'seed', get: (r) => r.seed }, { id: 'status', get: (r) => r.status }])
  .concat(data.metrics.map((m) => ({ id: m, get: (r) => (r.metrics ? num(r.metrics[m]) : null), metric: m })))
  .concat([{ id: 'error', get: (r) => r.error }]);
const SHOWN = 2000;
let sortBy = data.rankBy, sortDesc = !data.lowerIsBetter.includes(data.rankBy);
function renderTable() {
  const table = document.getElementById('runs');
  table.replaceChildren();
  const head = table.insertRow();
  for (const c of columns) {
    const th = text(document.createElement('th'), c.id + (c.id === sortBy ? (sortDesc ? ' ▼' : ' ▲') : ''));
    th.dataset.column = c.id;
    th.onclick = () => { sortDesc = sortBy === c.id ? !sortDesc : true; sortBy = c.id; renderTable(); };
    head.appendChild(th);
  }
  document.getElementById('shown').textContent = data.rows.length > SHOWN ? 'Showing the first ' + SHOWN + ' of ' + data.rows.length + ' runs in this order; sweep.csv has them all.' : '';
  const col = columns.find((c) => c.id === sortBy);
  const rows = data.rows.slice().sort((a, b) => {
    const x = col.get(a), y = col.get(b);
    if (x === y) return a.run - b.run;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    return (x < y ? -1 : 1) * (sortDesc ? -1 : 1);
  });
  // A page stays responsive with a few thousand rows; sweep.csv has them all.
  for (const r of rows.slice(0, SHOWN)) {
    const tr = table.insertRow();
    if (r.status === 'failed') tr.className = 'failed';
    for (const c of columns) text(tr.insertCell(), c.metric ? show(c.metric, r.metrics && r.metrics[c.metric]) : c.get(r) === null ? '' : String(c.get(r)));
  }
}

function renderHeatmap() {
  const metric = document.getElementById('hm-metric').value;
  const px = document.getElementById('hm-x').value, py = document.getElementById('hm-y').value;
  const table = document.getElementById('heatmap');
  table.replaceChildren();
  if (!px) return;
  const sortValues = (vs) => [...new Set(vs)].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1));
  const xs = sortValues(data.rows.map((r) => r.params[px]));
  const ys = py === px ? [''] : sortValues(data.rows.map((r) => r.params[py]));
  const cells = new Map();
  for (const r of data.rows) {
    const v = r.metrics ? num(r.metrics[metric]) : null;
    if (v === null) continue;
    const k = JSON.stringify([r.params[px], py === px ? '' : r.params[py]]);
    if (!cells.has(k) || better(metric, v, cells.get(k))) cells.set(k, v);
  }
  let lo = Infinity, hi = -Infinity;
  for (const v of cells.values()) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const head = table.insertRow();
  text(head.insertCell(), py === px ? '' : py + ' \\\\ ' + px);
  for (const x of xs) text(head.insertCell(), String(x)).style.fontWeight = 'bold';
  for (const y of ys) {
    const tr = table.insertRow();
    text(tr.insertCell(), String(y)).style.fontWeight = 'bold';
    for (const x of xs) {
      const td = tr.insertCell();
      const v = cells.get(JSON.stringify([x, y]));
      text(td, show(metric, v));
      if (v !== undefined && hi > lo) {
        let t = (v - lo) / (hi - lo);
        if (data.lowerIsBetter.includes(metric)) t = 1 - t;
        td.style.background = 'hsl(' + Math.round(t * 120) + ', 70%, 70%)';
      } else if (v !== undefined) td.style.background = 'hsl(60, 70%, 70%)';
    }
  }
}

const LC = LightweightCharts;
const chart = LC.createChart(document.getElementById('equity'), { autoSize: true, layout: { attributionLogo: false }, timeScale: { timeVisible: true, secondsVisible: true } });
for (const c of data.curves) {
  chart.addSeries(LC.LineSeries, { color: c.color, lineWidth: 2 }).setData(c.points.map(([time, value]) => ({ time, value })));
  const span = text(document.createElement('span'), '■ ' + c.label);
  span.style.color = c.color;
  document.getElementById('legend').appendChild(span);
}
chart.timeScale().fitContent();
for (const id of ['hm-metric', 'hm-x', 'hm-y']) document.getElementById(id).onchange = renderHeatmap;
renderTable();
renderHeatmap();
requestAnimationFrame(() => requestAnimationFrame(() => { document.body.dataset.rendered = 'true'; }));
</script>
</body>
</html>
`;
}

/** The chart wants strictly ascending times: a later point at the same second wins. */
function dedupe(points: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of points) {
    if (out.length > 0 && out.at(-1)![0] >= p[0]) out[out.length - 1] = [out.at(-1)![0], p[1]];
    else out.push(p);
  }
  return out;
}
