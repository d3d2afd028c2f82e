/**
 * The request log: GET /sim/journal polled every second (newest first), filtered by address
 * (server side) and status class (here); a row opens to the request's query and body.
 */
import type { RequestRecord } from '../../../sim/ui/protocol.ts';
import { describe } from '../context.ts';
import { field, fill, h, row, section, table, td } from '../dom.ts';
import { shortAddress, timeUs } from '../format.ts';
import type { View } from '../view.ts';

const STATUS_FILTERS = { all: () => true, ok: (s: number) => s < 400, '4xx': (s: number) => s >= 400 && s < 500, '5xx': (s: number) => s >= 500 } as const;
type StatusFilter = keyof typeof STATUS_FILTERS;

export function statusClass(status: number): string {
  return status < 300 ? 'ok' : status < 400 ? 'redirect' : status < 500 ? 'client-error' : 'server-error';
}

export const logView: View = (scope, root, param) => {
  const { ctx } = scope;
  const address = h('input', { id: 'log-address', name: 'address', placeholder: '0x… (any)', size: 44, value: param ?? '', autocomplete: 'off', spellcheck: 'false' });
  const statusSelect = h('select', { id: 'log-status', name: 'status' }, h('option', { value: 'all' }, 'all'), h('option', { value: 'ok' }, '< 400'), h('option', { value: '4xx' }, '4xx'), h('option', { value: '5xx' }, '5xx'));
  const limit = h('select', { id: 'log-limit', name: 'limit' }, ...[100, 300, 1000].map((n) => h('option', { value: n }, String(n))));
  const info = h('p', { class: 'muted', role: 'status' });
  const log = table('grid log', ['Time', 'Transport', 'Method', 'Path', 'Status', 'Signer / address', ''], 'Request log');
  const filters = h('form', { class: 'inline', 'aria-label': 'Filter the request log' }, field('Address', address), field('Status', statusSelect), field('Rows', limit));
  fill(root, section('Request log', filters, info, h('div', { class: 'scroll tall' }, log.table)));

  const open = new Set<number>();
  let records: RequestRecord[] = [];
  let painted = '';
  const paint = (): void => {
    // Repainted only when something changed, keeping the keyboard focus on the same row.
    const key = `${statusSelect.value}|${[...open].join(',')}|${records.length}|${records[0]?.id ?? 0}|${records.at(-1)?.id ?? 0}`;
    if (key === painted) return;
    painted = key;
    const focusedId = document.activeElement?.closest('tr')?.getAttribute('data-id');
    const keep = STATUS_FILTERS[statusSelect.value as StatusFilter] ?? STATUS_FILTERS.all;
    const rows: HTMLTableRowElement[] = [];
    for (const r of records) {
      if (!keep(r.status)) continue;
      const expanded = open.has(r.id);
      const toggle = h('button', { type: 'button', class: 'link', 'aria-expanded': expanded ? 'true' : 'false', 'aria-label': `Request ${r.id} body` }, expanded ? 'hide' : 'body');
      toggle.addEventListener('click', () => {
        if (open.has(r.id)) open.delete(r.id);
        else open.add(r.id);
        paint();
      });
      const who = r.address === undefined ? '—' : h('a', { href: `#/account/${r.address}`, title: r.address }, shortAddress(r.address));
      rows.push(row([td(timeUs(r.time), 'mono'), td(r.transport, ''), td(r.method, ''), td(r.path, 'mono'), td(String(r.status), `num status-${statusClass(r.status)}`), td(who, 'mono'), td(toggle, '')], { 'data-id': r.id, 'data-path': r.path, 'data-status': r.status }));
      if (expanded) {
        const detail = { ...(r.query !== undefined && Object.keys(r.query).length > 0 && { query: r.query }), body: r.body, ...(r.bodyBytes !== undefined && { bodyBytes: r.bodyBytes }) };
        rows.push(h('tr', { class: 'detail' }, h('td', { colspan: 7 }, h('pre', {}, JSON.stringify(detail, null, 2)))));
      }
    }
    log.body.replaceChildren(...rows);
    if (focusedId !== null && focusedId !== undefined) log.body.querySelector<HTMLButtonElement>(`tr[data-id="${focusedId}"] button`)?.focus();
  };
  const refresh = async (): Promise<void> => {
    const a = address.value.trim();
    const query = new URLSearchParams({ limit: limit.value, ...(/^0x[0-9a-fA-F]{40}$/.test(a) && { address: a }) });
    try {
      const reply = await ctx.sim<{ requests: RequestRecord[]; received: number; capacity: number }>('GET', `/sim/journal?${query.toString()}`);
      records = reply.requests;
      info.textContent = `${reply.received} request(s) received; the log keeps the last ${reply.capacity}. Updated ${new Date().toLocaleTimeString()}.`;
      paint();
    } catch (error) {
      info.textContent = `The request log is not available: ${describe(error)}`;
    }
  };
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    void refresh();
  });
  address.addEventListener('change', () => void refresh());
  statusSelect.addEventListener('change', paint);
  limit.addEventListener('change', () => void refresh());
  scope.every(1000, refresh);
};
