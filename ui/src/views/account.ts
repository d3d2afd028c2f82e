/**
 * An account: for a master address, every subaccount with activity (the account channel for
 * indices 0-9; an account's snapshot is empty until its first deposit) with its balances,
 * margin state, positions, open orders (TPSL included), recent fills and transfers, live from
 * the account channels, and the address's notifications (REST, every few seconds).
 *
 * Margin state and liquidation prices are estimates made here from the live marks and the
 * markets' maintenance fractions (the interface prints neither): maintenance margin =
 * Σ |size| × mark × mmf; a position's liquidation price is the mark at which equity falls to the
 * maintenance margin with every other price held.
 */
import type { Fill, Market, Order, Position, TransferUpdate } from '../../../client/index.ts';
import { Console, describe } from '../context.ts';
import { field, fill, h, row, section, table, td } from '../dom.ts';
import { fixed, shortAddress, signClass, timeUs, usd } from '../format.ts';
import { snapshotOf, type Scope, type View } from '../view.ts';

const SUBACCOUNTS = 10;
const OPEN_STATUSES = new Set(['PENDING', 'OPEN', 'PARTIALLY_FILLED', 'UNTRIGGERED', 'TPSL_PLACED']);
const ADDRESS = /^0x[0-9a-f]{40}$/;

export const accountView: View = async (scope, root, param) => {
  const { ctx } = scope;
  const address = param?.toLowerCase();
  const input = h('input', { id: 'address', name: 'address', list: 'seen-addresses', placeholder: '0x… master address', value: address ?? '', size: 44, autocomplete: 'off', spellcheck: 'false' });
  const seen = h('datalist', { id: 'seen-addresses' });
  const form = h(
    'form',
    { class: 'inline', 'aria-label': 'Choose an account' },
    field('Address', input),
    seen,
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = `#/account/${input.value.trim().toLowerCase()}`;
  });
  const status = h('p', { class: 'muted', role: 'status' });
  const subaccounts = h('div', { class: 'subaccounts' });
  fill(root, section('Account', form, status), subaccounts);

  // Addresses seen in the request log, for the picker.
  void ctx.sim<{ requests: { address?: string }[] }>('GET', '/sim/journal?limit=1000').then(
    (reply) => {
      const addresses = [...new Set(reply.requests.map((r) => r.address).filter((a): a is string => a !== undefined))];
      seen.replaceChildren(...addresses.map((a) => h('option', { value: a })));
      if (address === undefined) status.textContent = addresses.length === 0 ? 'No address in the request log yet: type one.' : `${addresses.length} address(es) seen in the request log: pick one in the field.`;
    },
    (error: unknown) => {
      if (address === undefined) status.textContent = `Type an address (the request log is not available: ${describe(error)}).`;
    },
  );
  if (address === undefined) {
    input.focus();
    return;
  }
  if (!ADDRESS.test(address)) {
    status.textContent = `Not an address: ${address}`;
    status.setAttribute('role', 'alert');
    return;
  }
  status.textContent = `Watching ${address}: subaccounts appear once they have a deposit.`;
  const markets = await ctx.markets();
  const marks = new Map<number, number>();
  const views: SubaccountView[] = [];
  for (const [name, p] of await ctx.prices()) {
    const id = markets.find((m) => m.marketDisplayName === name)?.marketId;
    if (id !== undefined && p.markPrice !== '0') marks.set(id, Number(p.markPrice));
  }
  void scope.subscribe({ channel: 'oraclePrices' }, (frame) => {
    for (const p of frame.contents.prices ?? []) if (p.markPrice !== '0') marks.set(p.marketId, Number(p.markPrice));
    for (const v of views) v.paintPositions();
  });
  const order: number[] = [];
  for (let index = 0; index < SUBACCOUNTS; index++) {
    let view: SubaccountView | undefined;
    // The account channel re-snapshots every 5 s; a fill, position or transfer asks for one now.
    let pending: number | undefined;
    const fresh = (): void => {
      pending ??= window.setTimeout(() => {
        pending = undefined;
        void sub.then((s) => s?.resubscribe());
      }, 150);
    };
    scope.onDispose(() => window.clearTimeout(pending));
    const sub = scope.subscribe({ channel: 'account', id: address, accountIndex: index }, (frame) => {
      const contents = frame.contents as Record<string, unknown>;
      if (!('netQuoteBalance' in contents)) return;
      if (view === undefined) {
        view = new SubaccountView(scope, address, index, markets, marks, fresh);
        views.push(view);
        order.push(index);
        order.sort((a, b) => a - b);
        subaccounts.insertBefore(view.root, subaccounts.children[order.indexOf(index)] ?? null);
      }
      view.balances(contents);
    });
  }

  const notes = table('grid', ['Time', 'Type', 'Subaccount', 'Details', 'Seen'], 'Notifications');
  subaccounts.after(section('Notifications', h('div', { class: 'scroll short' }, notes.table)));
  scope.every(3000, async () => {
    const reply = await ctx.client.notifications({ address, limit: 20 });
    notes.body.replaceChildren(
      ...(reply.notifications.length === 0 ? [row([h('td', { colspan: 5, class: 'muted' }, 'none (the inbox fills once the wallet registers a push token)')])] : []),
      ...reply.notifications.map((n) => {
        const payload = (n.payload ?? {}) as Record<string, unknown>;
        const details = Object.entries(payload)
          .filter(([, v]) => v !== null && typeof v !== 'object')
          .map(([k, v]) => `${k} ${String(v)}`)
          .join(' · ');
        return row([td(timeUs(Number(BigInt(String(n.createdAtNs ?? 0)) / 1000n), true), ''), td(String(n.type ?? ''), ''), td(String(n.accountIndex ?? 0)), td(details, 'wrap'), td(n.seen === true ? 'yes' : 'no', '')]);
      }),
    );
  });
};

class SubaccountView {
  readonly root: HTMLElement;
  private readonly summary = h('dl', { class: 'summary' });
  private readonly positionsTable = table('grid', ['Market', 'Side', 'Size', 'Entry', 'Mark', 'Unrealized PnL', 'Liq. price (est.)', 'Leverage', 'Mode'], 'Positions');
  private readonly ordersTable = table('grid', ['Order', 'Market', 'Side', 'Type', 'Price', 'Remaining / size', 'Status', 'TIF', 'TPSL', 'Reduce only'], 'Open orders');
  private readonly fillsTable = table('grid', ['Time', 'Market', 'Side', 'Price', 'Size', 'Fee', 'Role', 'Closed PnL'], 'Recent fills');
  private readonly transfersTable = table('grid', ['Time', 'Type', 'Amount', 'Status', 'Balance after'], 'Transfers');
  private readonly positions = new Map<number, Position>();
  private readonly orders = new Map<string, Order>();
  private fills: Fill[] = [];
  private transfers: TransferUpdate[] = [];
  private account: Record<string, unknown> = {};

  constructor(
    scope: Scope,
    address: string,
    readonly index: number,
    private readonly markets: readonly Market[],
    private readonly marks: ReadonlyMap<number, number>,
    changed: () => void,
  ) {
    this.root = h(
      'article',
      { class: 'subaccount', 'data-subaccount': index, 'aria-label': `Subaccount ${index}` },
      h('h2', {}, `Subaccount ${index} `, h('span', { class: 'muted' }, shortAddress(address))),
      this.summary,
      h('h3', {}, 'Positions'),
      h('div', { class: 'scroll' }, this.positionsTable.table),
      h('h3', {}, 'Open orders'),
      h('div', { class: 'scroll' }, this.ordersTable.table),
      h('div', { class: 'two' }, h('div', {}, h('h3', {}, 'Recent fills'), h('div', { class: 'scroll short' }, this.fillsTable.table)), h('div', {}, h('h3', {}, 'Transfers'), h('div', { class: 'scroll short' }, this.transfersTable.table))),
    );
    const id = address;
    const accountIndex = index;
    void scope.subscribe({ channel: 'positions', id, accountIndex }, (frame) => {
      const contents = frame.contents;
      if (contents.isSnapshot === true || frame.type === 'subscribed') this.positions.clear();
      else changed();
      for (const p of Object.values(contents.positions ?? {})) {
        if (Number(p.size) === 0) this.positions.delete(p.marketId);
        else this.positions.set(p.marketId, p);
      }
      this.paintPositions();
    });
    void scope.subscribe({ channel: 'orders', id, accountIndex }, (frame) => {
      const snapshot = snapshotOf<{ orders: Order[]; recentClosedOrders?: Order[] }>(frame.contents);
      if (snapshot !== undefined) {
        this.orders.clear();
        for (const o of [...snapshot.orders, ...(snapshot.recentClosedOrders ?? [])]) this.orders.set(o.orderId, o);
      } else if ('orderId' in frame.contents) {
        const o = frame.contents as Order;
        this.orders.set(o.orderId, { ...this.orders.get(o.orderId), ...o });
      }
      this.paintOrders();
    });
    void scope.subscribe({ channel: 'userFills', id, accountIndex, nFills: 50 }, (frame) => {
      const snapshot = snapshotOf<{ fills: Fill[] }>(frame.contents);
      if (snapshot !== undefined) this.fills = [...snapshot.fills];
      else if ('tradeId' in frame.contents) {
        this.fills.unshift(frame.contents as Fill);
        changed();
      }
      this.fills.sort((a, b) => b.createdAt - a.createdAt);
      this.fills.length = Math.min(this.fills.length, 50);
      this.paintFills();
    });
    void scope.subscribe({ channel: 'accountTransferUpdates', id, accountIndex }, (frame) => {
      const snapshot = snapshotOf<{ accountTransferUpdates: TransferUpdate[] }>(frame.contents);
      if (snapshot !== undefined) this.transfers = [...snapshot.accountTransferUpdates];
      else if ('amount' in frame.contents) {
        this.transfers.unshift(frame.contents as TransferUpdate);
        changed();
      }
      this.transfers.length = Math.min(this.transfers.length, 50);
      this.paintTransfers();
    });
  }

  private market(id: number): Market | undefined {
    return this.markets.find((m) => m.marketId === id);
  }

  balances(contents: Record<string, unknown>): void {
    for (const key of ['netQuoteBalance', 'equity', 'freeCollateral', 'netDeposits']) if (contents[key] !== undefined) this.account[key] = contents[key];
    this.paintSummary();
  }

  private mark(p: Position): number {
    return this.marks.get(p.marketId) ?? Number(p.markPx);
  }

  private maintenance(): number {
    let sum = 0;
    for (const p of this.positions.values()) sum += Math.abs(Number(p.size)) * this.mark(p) * Number(this.market(p.marketId)?.maintenanceMarginFraction ?? 0);
    return sum;
  }

  private paintSummary(): void {
    const equity = Number(this.account.equity ?? NaN);
    const mm = this.maintenance();
    const state = this.positions.size === 0 ? ['no positions', ''] : equity <= mm ? ['LIQUIDATABLE', 'neg'] : equity <= mm * 1.5 ? ['near liquidation', 'warn'] : ['healthy', 'pos'];
    const item = (k: string, v: string, cls = ''): HTMLElement[] => [h('dt', {}, k), h('dd', { class: cls, 'data-field': k }, v)];
    this.summary.replaceChildren(
      ...item('Equity', usd(this.account.equity as string | undefined)),
      ...item('Free collateral', usd(this.account.freeCollateral as string | undefined)),
      ...item('Net quote balance', usd(this.account.netQuoteBalance as string | undefined)),
      ...item('Net deposits', usd(this.account.netDeposits as string | undefined)),
      ...item('Maintenance margin (est.)', usd(mm)),
      ...item('Margin state', state[0]!, state[1]),
    );
  }

  paintPositions(): void {
    const equity = Number(this.account.equity ?? NaN);
    const mm = this.maintenance();
    const rows = [...this.positions.values()].map((p) => {
      const m = this.market(p.marketId);
      const d = Console.decimals(m);
      const size = Number(p.size);
      const mark = this.mark(p);
      const upnl = size * (mark - Number(p.averageEntryPrice));
      const mmf = Number(m?.maintenanceMarginFraction ?? 0);
      const own = Math.abs(size) * mark * mmf;
      // equity(P) = E + s (P - mark); maintenance(P) = (mm - own) + |s| P mmf.
      const liq = (mm - own - equity + size * mark) / (size - Math.abs(size) * mmf);
      return row(
        [
          h('a', { href: `#/market/${p.marketDisplayName}` }, p.marketDisplayName),
          td(p.side, p.side === 'LONG' ? 'pos' : 'neg'),
          td(fixed(p.size, d.size)),
          td(fixed(p.averageEntryPrice, d.price)),
          td(fixed(mark, d.price)),
          td(usd(upnl), `num ${signClass(upnl)}`),
          td(Number.isFinite(liq) && liq > 0 ? fixed(liq, d.price) : '—'),
          td(p.leverage),
          td(p.marginMode, ''),
        ],
        { 'data-market': p.marketDisplayName },
      );
    });
    this.positionsTable.body.replaceChildren(...(rows.length === 0 ? [row([h('td', { colspan: 9, class: 'muted' }, 'no open positions')])] : rows));
    this.paintSummary();
  }

  private paintOrders(): void {
    const open = [...this.orders.values()].filter((o) => OPEN_STATUSES.has(o.status)).sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
    const rows = open.map((o) => {
      const d = Console.decimals(this.market(o.marketId));
      const tpsl = o.tpslType === undefined ? '—' : `${o.tpslType === 'STOP_LOSS' ? 'SL' : 'TP'} @ ${fixed(o.triggerPrice as string | undefined, d.price)}`;
      return row(
        [
          td(o.orderId, 'mono'),
          td(o.marketDisplayName, ''),
          td(o.side, o.side === 'BUY' ? 'pos' : 'neg'),
          td(o.type ?? 'LIMIT', ''),
          td(fixed(o.price, d.price)),
          td(`${fixed(o.remainingSize, d.size)} / ${fixed(o.originalSize, d.size)}`),
          td(o.status, ''),
          td(o.timeInForce ?? '—', ''),
          td(tpsl, ''),
          td(o.reduceOnly === true ? 'yes' : '', ''),
        ],
        { 'data-order': o.orderId },
      );
    });
    this.ordersTable.body.replaceChildren(...(rows.length === 0 ? [row([h('td', { colspan: 10, class: 'muted' }, 'no open orders')])] : rows));
  }

  private paintFills(): void {
    this.fillsTable.body.replaceChildren(
      ...this.fills.map((f) => {
        const d = Console.decimals(this.market(f.marketId));
        return row([td(timeUs(f.createdAt), ''), td(f.marketDisplayName, ''), td(f.side, f.side === 'BUY' ? 'pos' : 'neg'), td(fixed(f.price, d.price)), td(fixed(f.size, d.size)), td(usd(f.fee)), td(f.role, ''), td(f.closedPnl === undefined ? '—' : usd(f.closedPnl), `num ${signClass(f.closedPnl)}`)]);
      }),
    );
  }

  private paintTransfers(): void {
    this.transfersTable.body.replaceChildren(
      ...this.transfers.map((t) => row([td(timeUs(t.createdAt, true), ''), td(String(t.type ?? ''), ''), td(usd(t.amount), `num ${signClass(t.amount)}`), td(String(t.status ?? ''), ''), td(usd(t.netQuoteBalance))])),
    );
  }
}
