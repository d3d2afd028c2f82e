/**
 * The control panel: a form per /sim action (README "Control routes"). Every call goes through
 * Console.sim with the control token when one was given: without it, a server started with
 * --control-token answers 401 and the panel says so and asks for the token.
 */
import { ApiKey } from '../../../client/index.ts';
import { Console, describe, SimError } from '../context.ts';
import { field, fill, h, section } from '../dom.ts';
import { fixed, timeUs } from '../format.ts';
import type { View } from '../view.ts';

type Body = Record<string, unknown>;

export const controlView: View = async (scope, root) => {
  const { ctx } = scope;
  const markets = await ctx.markets();
  const marketSelect = (id: string): HTMLSelectElement =>
    h('select', { id, name: 'market' }, ...markets.map((m) => h('option', { value: m.marketDisplayName }, `${m.marketDisplayName}${m.status === 'ONLINE' ? '' : ' (offline)'}`)));
  const input = (id: string, attrs: Record<string, string | number | boolean> = {}): HTMLInputElement => h('input', { id, name: id.replace(/^[a-z]+-/, ''), autocomplete: 'off', spellcheck: 'false', ...attrs });
  const addressInput = (id: string): HTMLInputElement => input(id, { placeholder: '0x…', size: 44, pattern: '0x[0-9a-fA-F]{40}', required: true, list: 'control-addresses' });
  const indexInput = (id: string): HTMLInputElement => input(id, { type: 'number', min: 0, max: 9, value: 0, required: true });

  // The token -------------------------------------------------------------------------------
  const tokenInput = h('input', { id: 'control-token', name: 'token', type: 'password', autocomplete: 'off', size: 30 });
  const tokenState = h('span', { class: 'muted', role: 'status' });
  const config = await ctx.config;
  const showToken = (): void => {
    const given = ctx.token !== undefined;
    tokenState.textContent = config.controlToken
      ? given
        ? 'Token given for this tab.'
        : 'This perpsim runs with --control-token: enter it to act.'
      : config.loopback
        ? 'No token needed: perpsim runs without --control-token and this page is on loopback.'
        : 'perpsim runs without --control-token: its control API answers loopback callers only.';
    tokenInput.classList.toggle('wanted', config.controlToken && !given);
  };
  showToken();
  const forget = h('button', { type: 'button' }, 'Forget');
  forget.addEventListener('click', () => {
    ctx.token = undefined;
    tokenInput.value = '';
    showToken();
  });
  const tokenForm = h('form', { class: 'inline', 'aria-label': 'Control token' }, field('Control token', tokenInput), h('button', { type: 'submit' }, 'Use token'), forget, tokenState);
  tokenForm.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.token = tokenInput.value.trim();
    showToken();
  });

  /** A form that runs `act` on submit and shows its reply or refusal. */
  const action = (title: string, controls: HTMLElement[], act: (submitter: HTMLElement | null) => Promise<unknown>, submit = 'Apply'): HTMLElement => {
    const output = h('output', { class: 'reply', 'aria-live': 'polite' });
    const form = h('form', { class: 'action', 'aria-label': title }, ...controls, ...(submit === '' ? [] : [h('button', { type: 'submit' }, submit)]), output);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const submitter = (event as SubmitEvent).submitter;
      output.className = 'reply pending';
      output.textContent = '…';
      act(submitter).then(
        (reply) => {
          output.className = 'reply ok';
          output.textContent = JSON.stringify(reply);
        },
        (error: unknown) => {
          output.className = 'reply error';
          output.textContent = describe(error);
          if (error instanceof SimError && error.status === 401) {
            tokenInput.classList.add('wanted');
            tokenInput.focus();
          }
        },
      );
    });
    return section(title, form);
  };
  const post = (path: string, body: Body): Promise<unknown> => ctx.sim('POST', path, body);
  const intOf = (el: HTMLInputElement): number => Number.parseInt(el.value, 10);

  // Deposit ---------------------------------------------------------------------------------
  const depAddress = addressInput('deposit-address');
  const depIndex = indexInput('deposit-index');
  const depAmount = input('deposit-amount', { placeholder: '10000', required: true, inputmode: 'decimal' });
  const deposit = action('Deposit', [field('Address', depAddress), field('Subaccount', depIndex), field('Amount (USD)', depAmount)], () =>
    post('/sim/deposit', { address: depAddress.value.trim(), accountIndex: intOf(depIndex), amount: depAmount.value.trim() }),
  );

  // Register a key --------------------------------------------------------------------------
  const keyAddress = addressInput('key-address');
  const keyPublic = input('key-public', { placeholder: '64 hex', size: 66, required: true, pattern: '[0-9a-fA-F]{64}' });
  const keySecret = input('key-secret', { readonly: true, size: 66, placeholder: 'generated secret key appears here' });
  const keyIndex = h('select', { id: 'key-index', name: 'accountIndex' }, h('option', { value: '255' }, 'every subaccount'), ...Array.from({ length: 10 }, (_, i) => h('option', { value: i }, String(i))));
  const keyWithdraw = input('key-withdraw', { type: 'checkbox' });
  const generate = h('button', { type: 'button' }, 'Generate a key pair');
  generate.addEventListener('click', () => {
    void ApiKey.generate().then((key) => {
      keyPublic.value = key.publicKey;
      keySecret.value = key.secretHex;
    });
  });
  const registerKey = action(
    'Register an API key',
    [field('Address', keyAddress), field('Public key', keyPublic), generate, field('Secret key (keep it; not sent)', keySecret), field('Subaccount', keyIndex), field('Withdraw permission', keyWithdraw)],
    () => post('/sim/apiKeys', { address: keyAddress.value.trim(), publicKey: keyPublic.value.trim(), accountIndex: Number(keyIndex.value), permissions: keyWithdraw.checked ? ['trade', 'withdraw'] : ['trade'] }),
  );

  // Oracle price, with the market's live prices beside it -------------------------------------
  const oracleMarket = marketSelect('oracle-market');
  const oraclePrice = input('oracle-price', { required: true, inputmode: 'decimal' });
  const livePrices = h('p', { class: 'muted', id: 'oracle-live', 'aria-live': 'off' }, 'Oracle — · Mark —');
  const latest = new Map<string, { price: string; markPrice: string }>();
  const showLive = (): void => {
    const p = latest.get(oracleMarket.value);
    const d = Console.decimals(markets.find((m) => m.marketDisplayName === oracleMarket.value)).price;
    livePrices.replaceChildren('Now: oracle ', h('span', { 'data-field': 'oracle' }, p === undefined ? '—' : fixed(p.price, d)), ' · mark ', h('span', { 'data-field': 'mark' }, p === undefined || p.markPrice === '0' ? '—' : fixed(p.markPrice, d)));
  };
  oracleMarket.addEventListener('change', showLive);
  void ctx.prices().then((now) => {
    for (const [name, p] of now) if (!latest.has(name)) latest.set(name, p);
    showLive();
  });
  void scope.subscribe({ channel: 'oraclePrices' }, (frame) => {
    for (const p of frame.contents.prices ?? []) latest.set(p.marketDisplayName, p);
    showLive();
  });
  const oracle = action('Oracle price', [field('Market', oracleMarket), field('Price', oraclePrice), livePrices], () => post('/sim/oracle', { market: oracleMarket.value, price: oraclePrice.value.trim() }));

  // Funding ---------------------------------------------------------------------------------
  const fundingMarket = marketSelect('funding-market');
  const fundingRate = input('funding-rate', { required: true, placeholder: '0.0001', inputmode: 'decimal' });
  const funding = action('Funding rate', [field('Market', fundingMarket), field('Rate per hour (fraction)', fundingRate)], () => post('/sim/funding', { market: fundingMarket.value, rate1h: fundingRate.value.trim() }));

  // Halt / resume ---------------------------------------------------------------------------
  const haltMarket = marketSelect('halt-market');
  const halt = action(
    'Halt or resume',
    [field('Market', haltMarket), h('button', { type: 'submit', value: 'halt' }, 'Halt'), h('button', { type: 'submit', value: 'resume' }, 'Resume')],
    (submitter) => post('/sim/halt', { market: haltMarket.value, halted: (submitter as HTMLButtonElement | null)?.value !== 'resume' }),
    '',
  );

  // Force a liquidation ---------------------------------------------------------------------
  const liqAddress = addressInput('liquidate-address');
  const liqIndex = indexInput('liquidate-index');
  const liquidate = action('Force a liquidation', [field('Address', liqAddress), field('Subaccount', liqIndex)], () => post('/sim/liquidate', { address: liqAddress.value.trim(), accountIndex: intOf(liqIndex) }), 'Liquidate');

  // Clock -----------------------------------------------------------------------------------
  const clockState = h('p', { class: 'muted', role: 'status', id: 'clock-state' }, 'Clock: —');
  const advanceMs = input('clock-advance', { type: 'number', min: 0, value: 60000 });
  const mode = h('select', { id: 'clock-mode', name: 'mode' }, ...['realtime', 'accelerated', 'virtual'].map((m) => h('option', { value: m }, m)));
  const speed = input('clock-speed', { type: 'number', min: 0.001, step: 'any', value: 1 });
  const clock = action(
    'Clock',
    [clockState, field('Advance (ms, virtual clock)', advanceMs), h('button', { type: 'submit', value: 'advance' }, 'Advance'), field('Mode', mode), field('Speed', speed), h('button', { type: 'submit', value: 'mode' }, 'Set mode')],
    async (submitter) => {
      const moved = await ((submitter as HTMLButtonElement | null)?.value === 'mode'
        ? post('/sim/clock', { mode: mode.value, ...(mode.value === 'accelerated' && { speed: Number(speed.value) }) })
        : post('/sim/clock', { advanceMs: intOf(advanceMs) }));
      // The status line shows the new time at once, not at the next 2 s refresh.
      void refreshClock();
      return moved;
    },
    '',
  );
  const refreshClock = async (): Promise<void> => {
    try {
      const c = await ctx.sim<{ timeUs: number; mode: string; speed: number }>('GET', '/sim/clock');
      clockState.textContent = `Clock: ${timeUs(c.timeUs, true)} UTC, ${c.mode}${c.mode === 'accelerated' ? ` ×${c.speed}` : ''}`;
    } catch (error) {
      clockState.textContent = `Clock: ${describe(error)}`;
    }
  };
  scope.every(2000, refreshClock);
  tokenForm.addEventListener('submit', () => void refreshClock());

  // Faults ----------------------------------------------------------------------------------
  const faultsText = h('textarea', { id: 'faults-json', name: 'faults', rows: 6, cols: 60, spellcheck: 'false', placeholder: '{"routes": {"placeOrder": {"latencyMs": 250}}}' });
  const faults = action(
    'Faults',
    [field('Faults (JSON, replaces those in force)', faultsText), h('button', { type: 'submit', value: 'load' }, 'Show current'), h('button', { type: 'submit', value: 'apply' }, 'Apply'), h('button', { type: 'submit', value: 'clear' }, 'Clear all')],
    async (submitter) => {
      const which = (submitter as HTMLButtonElement | null)?.value;
      if (which === 'clear') return ctx.sim('DELETE', '/sim/faults');
      if (which === 'load') {
        const current = await ctx.sim<{ faults: unknown }>('GET', '/sim/faults');
        faultsText.value = current.faults === null ? '' : JSON.stringify(current.faults, null, 2);
        return current;
      }
      let body: unknown;
      try {
        body = JSON.parse(faultsText.value);
      } catch (error) {
        throw new Error(`not JSON: ${(error as Error).message}`);
      }
      return ctx.sim('POST', '/sim/faults', body);
    },
    '',
  );

  // State: snapshot, restore, reset ---------------------------------------------------------
  const stateName = input('state-name', { placeholder: 'name', pattern: '[A-Za-z0-9_.\\-]{1,64}' });
  const resetConfirm = input('state-reset-confirm', { type: 'checkbox' });
  const state = action(
    'State',
    [field('Name', stateName), h('button', { type: 'submit', value: 'snapshot' }, 'Snapshot'), h('button', { type: 'submit', value: 'restore' }, 'Restore'), field('Yes, reset everything', resetConfirm), h('button', { type: 'submit', value: 'reset' }, 'Reset')],
    async (submitter) => {
      const which = (submitter as HTMLButtonElement | null)?.value;
      if (which === 'reset') {
        if (!resetConfirm.checked) throw new Error('tick "Yes, reset everything" first');
        resetConfirm.checked = false;
        return ctx.sim('POST', '/sim/reset');
      }
      if (stateName.value.trim() === '') throw new Error('give a name');
      return post(`/sim/${which === 'restore' ? 'restore' : 'snapshot'}`, { name: stateName.value.trim() });
    },
    '',
  );

  const addresses = h('datalist', { id: 'control-addresses' });
  void ctx.sim<{ requests: { address?: string }[] }>('GET', '/sim/journal?limit=1000').then(
    (reply) => addresses.replaceChildren(...[...new Set(reply.requests.map((r) => r.address).filter((a) => a !== undefined))].map((a) => h('option', { value: a }))),
    () => undefined,
  );
  fill(root, section('Control token', tokenForm), addresses, h('div', { class: 'controls' }, oracle, halt, funding, deposit, registerKey, liquidate, clock, faults, state));
};
