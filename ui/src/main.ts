/**
 * The web console's entry: one Console (SDK client) for the page, a hash router over the views
 * (#/markets, #/market/<name>, #/account/<address>, #/log, #/control), and the connection and
 * simulated-clock indicators in the header.
 */
import { Console } from './context.ts';
import { fill, h } from './dom.ts';
import { timeUs } from './format.ts';
import { accountView } from './views/account.ts';
import { controlView } from './views/control.ts';
import { logView } from './views/log.ts';
import { marketView } from './views/market.ts';
import { marketsView } from './views/markets.ts';
import { Scope, type View } from './view.ts';

const VIEWS: Record<string, { view: View; nav: string; title: string }> = {
  markets: { view: marketsView, nav: 'markets', title: 'Markets' },
  market: { view: marketView, nav: 'markets', title: 'Market' },
  account: { view: accountView, nav: 'account', title: 'Account' },
  log: { view: logView, nav: 'log', title: 'Request log' },
  control: { view: controlView, nav: 'control', title: 'Control' },
};

function start(): void {
  const ctx = new Console(location.origin);
  const main = document.getElementById('view')!;
  const conn = document.getElementById('conn')!;
  const clock = document.getElementById('clock')!;
  let scope: Scope | undefined;

  const setConn = (text: string, cls: string): void => {
    conn.textContent = text;
    conn.className = `conn ${cls}`;
  };
  ctx.client.ws.on((event) => {
    if (event.type === 'open') setConn('live', 'ok');
    else if (event.type === 'close') setConn(`disconnected (${event.code ?? ''}), reconnecting…`, 'bad');
    else if (event.type === 'degraded') setConn('degraded: slow consumer', 'warn');
  });
  ctx.client.ws.connect().catch(() => setConn('cannot connect', 'bad'));

  const route = (): void => {
    scope?.dispose();
    const [name = 'markets', ...rest] = location.hash.replace(/^#\/?/, '').split('/');
    const entry = VIEWS[name] ?? VIEWS.markets!;
    const param = rest.length === 0 || rest.join('/') === '' ? undefined : decodeURIComponent(rest.join('/'));
    for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a[data-view]')) {
      if (link.dataset.view === entry.nav) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    document.title = `${param ?? entry.title} · perpsim console`;
    const errors = h('div', { class: 'errors', role: 'alert' });
    const root = h('div', { class: 'view-root' });
    fill(main, errors, root);
    const current = new Scope(ctx, (message) => {
      errors.textContent = message;
    });
    scope = current;
    Promise.resolve(entry.view(current, root, param)).catch((error: unknown) => {
      if (!current.disposed) errors.textContent = error instanceof Error ? error.message : String(error);
    });
    main.focus({ preventScroll: true });
  };
  window.addEventListener('hashchange', route);
  route();

  const tick = (): void => {
    const now = ctx.nowUs();
    clock.textContent = now === 0 ? '' : `${timeUs(now, true).slice(0, 19)} UTC`;
  };
  const sync = (): void => void ctx.syncTime().then(tick, () => undefined);
  sync();
  window.setInterval(sync, 10_000);
  window.setInterval(tick, 1000);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
