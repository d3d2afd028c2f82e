/**
 * Markets: every market's prices, 24 h change, funding and open interest, and its status —
 * ONLINE/OFFLINE (markets channel), halted (GET /sim/halt, when the control API answers this
 * page) and outside trading hours (isOutsideRth). Live from the markets, oraclePrices and
 * predictedFunding channels; 24 h change and mid from REST every few seconds.
 */
import type { Market } from '../../../client/index.ts';
import { Console, describe } from '../context.ts';
import { fill, h, row, section, table, td } from '../dom.ts';
import { countdown, fixed, percent, signClass } from '../format.ts';
import type { View } from '../view.ts';

const HOUR_US = 3_600_000_000;
const COLUMNS = ['Market', 'Status', 'Oracle (index)', 'Mark', 'Book mid', '24 h', 'Funding 1 h', 'Next funding', 'Open interest'] as const;
type Column = 'status' | 'oracle' | 'mark' | 'mid' | 'change' | 'funding' | 'next' | 'oi';

interface Line {
  market: Market;
  cells: Record<Column, HTMLTableCellElement>;
  halted: boolean;
}

export function statusText(market: Market, halted: boolean): string {
  const parts: string[] = [market.status];
  if (halted) parts.push('HALTED');
  if (market.isOutsideRth === true) parts.push('OUTSIDE HOURS');
  return parts.join(' · ');
}

export const marketsView: View = async (scope, root) => {
  const { ctx } = scope;
  const note = h('p', { class: 'muted', role: 'status' }, 'Prices stream from the WebSocket; 24 h change and mid refresh every 5 s.');
  const { table: t, body } = table('grid markets', COLUMNS, 'Markets');
  fill(root, section('Markets', note, h('div', { class: 'scroll' }, t)));
  const lines = new Map<number, Line>();
  for (const market of await ctx.markets(true)) {
    const cells = {} as Record<Column, HTMLTableCellElement>;
    for (const column of ['status', 'oracle', 'mark', 'mid', 'change', 'funding', 'next', 'oi'] as const) {
      cells[column] = td('—', column === 'status' ? 'status' : 'num');
      cells[column].dataset.col = column;
    }
    const link = h('a', { href: `#/market/${market.marketDisplayName}` }, market.marketDisplayName);
    body.append(row([link, cells.status, cells.oracle, cells.mark, cells.mid, cells.change, cells.funding, cells.next, cells.oi], { 'data-market': market.marketDisplayName }));
    lines.set(market.marketId, { market, cells, halted: false });
  }
  const paint = (line: Line): void => {
    const { market, cells } = line;
    const d = Console.decimals(market);
    cells.status.textContent = statusText(market, line.halted);
    cells.status.className = `status ${market.status !== 'ONLINE' || line.halted ? 'neg' : market.isOutsideRth === true ? 'warn' : 'pos'}`;
    cells.oracle.textContent = fixed(market.oraclePrice, d.price);
    cells.mark.textContent = market.markPrice === '0' ? 'n/a' : fixed(market.markPrice, d.price);
    cells.oi.textContent = fixed(market.openInterest as string | undefined, d.size);
  };
  for (const line of lines.values()) paint(line);

  void scope.subscribe({ channel: 'markets' }, (frame) => {
    const contents = frame.contents;
    for (const [id, market] of Object.entries(contents.markets ?? {})) {
      const line = lines.get(Number(id));
      if (line === undefined) continue;
      line.market = { ...line.market, ...market };
      paint(line);
    }
  });
  void scope.subscribe({ channel: 'oraclePrices' }, (frame) => {
    for (const price of frame.contents.prices ?? []) {
      const line = lines.get(price.marketId);
      if (line === undefined) continue;
      line.market = { ...line.market, oraclePrice: price.price, markPrice: price.markPrice };
      paint(line);
    }
  });
  for (const line of lines.values()) {
    if (line.market.status !== 'ONLINE') continue;
    void scope.subscribe({ channel: 'predictedFunding', id: line.market.marketDisplayName }, (frame) => {
      const rate = frame.contents.rate1h;
      line.cells.funding.textContent = rate === undefined ? '—' : percent(rate, 4);
      line.cells.funding.className = `num ${signClass(rate)}`;
    });
  }
  scope.every(5000, async () => {
    const [overview, mids] = await Promise.all([ctx.client.apiMetaOverview(), ctx.client.mids()]);
    for (const entry of Object.values(overview)) {
      const line = lines.get(Number(entry.marketId));
      if (line === undefined) continue;
      line.cells.change.textContent = percent(entry.priceChange24h as string | undefined);
      line.cells.change.className = `num ${signClass(entry.priceChange24h as string | undefined)}`;
    }
    for (const line of lines.values()) line.cells.mid.textContent = fixed(mids.mids[line.market.marketDisplayName], Console.decimals(line.market).price);
  });
  let haltsKnown = true;
  scope.every(2000, async () => {
    if (!haltsKnown) return;
    try {
      const { halted } = await ctx.sim<{ halted: string[] }>('GET', '/sim/halt');
      for (const line of lines.values()) {
        line.halted = halted.includes(line.market.marketDisplayName);
        paint(line);
      }
    } catch (error) {
      haltsKnown = false;
      note.textContent = `Halts unknown: the control API ${describe(error)}`;
    }
  });
  // Funding settles on the hour of simulated time (main.ts keeps the time synced).
  scope.every(1000, () => {
    const now = ctx.nowUs();
    if (now === 0) return;
    const next = Math.ceil((now + 1) / HOUR_US) * HOUR_US;
    for (const line of lines.values()) line.cells.next.textContent = line.market.status === 'ONLINE' ? countdown((next - now) / 1000) : '—';
  });
};
