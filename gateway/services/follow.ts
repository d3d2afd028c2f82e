/**
 * The account services around the engine: the affiliate program, notifications, preferences,
 * the leaderboard and portfolio history. `createGateway` (gateway.ts) builds their stores as
 * fields of the gateway state, and its one listener (`followGateway`, built once) wires them to
 * the exchange:
 * - `wireServices` sets the engine's fee hook (`onFee`, called with every fee charged), which
 *   accrues referral rewards;
 * - `followEvent` turns an event into notifications (resting fills, liquidations, TP/SL
 *   triggers, deposits, withdrawals) and leaderboard totals (fills, funding), and `sampleIfDue`
 *   takes the portfolio samples after a command's events.
 * `followServices` is the three as one listener body, for benches that measure the services
 * alone (bench/order-split.ts, bench/order-listener-ab.ts, also against older checkouts).
 */
import { accountView, activeMarkets, findAccount, marginPrice, type Account, type EngineEvent, type FillEvent } from '../../engine/index.ts';
import { accountKeyFrom } from '../shared/account-key.ts';
import { tradeNotional } from '../shared/trade-notional.ts';
import { formatOrder, usd } from '../contract/format.ts';
import { recordFill, recordFunding } from './leaderboard.ts';
import { pushNotification, type PayloadValue } from './notifications.ts';
import type { GatewayState } from '../contract/operation.ts';
import { fillRecord } from '../operations/account-reads/fills.ts';
import { realizedOf, recordRealized, sampleDue, takeSamples, type Sample } from './portfolio.ts';
import { accrueFee } from './referral.ts';

/**
 * Wires the services to the engine (its fee hook) and returns what they do with each command's
 * events. Hooks read `state.<store>` on every call, never a captured object: a restore replaces
 * the stores wholesale.
 */
export function followServices(state: GatewayState): (events: readonly EngineEvent[]) => void {
  wireServices(state);
  return (events) => {
    for (const e of events) followEvent(state, e);
    sampleIfDue(state);
  };
}

/** The engine's fee hook: referral rewards accrue with every fee charged. */
export function wireServices(state: GatewayState): void {
  state.exchange.engine.wiring.onFee = (account, fee, time) => accrueFee(state.referral, account.address, fee, time);
}

/** Portfolio samples, once a command's events are taken, when the engine's time reached the next sample time. */
export function sampleIfDue(state: GatewayState): void {
  const now = state.exchange.engine.time;
  if (sampleDue(state.portfolio, now)) sample(state, now);
}

function notify(state: GatewayState, address: string, item: Parameters<typeof pushNotification>[3]): void {
  // The engine's time, not the clock's: a replay of the journal stamps the same nanoseconds.
  pushNotification(state.notifications, address, BigInt(state.exchange.engine.time) * 1000n, item, state.exchange.history.notifications);
}

function fillNotification(state: GatewayState, e: FillEvent): void {
  // A resting order's fill (the maker side) is news; a taker saw its own order execute.
  if (e.role !== 'MAKER' || e.liquidation !== undefined) return;
  // Only a wallet with an inbox keeps notifications (pushNotification drops the rest): no record to format for others.
  if (!state.notifications.inboxes.has(e.address)) return;
  const record = fillRecord(state.exchange, e) as unknown as Record<string, PayloadValue>;
  notify(state, e.address, { type: 'FILL', accountIndex: e.accountIndex, marketId: e.marketId, payload: record });
}

/** What the services take from one event: fills, funding payments, liquidations, TPSL triggers, deposits and withdrawals. */
export function followEvent(state: GatewayState, e: EngineEvent): void {
  const exchange = state.exchange;
  switch (e.type) {
    case 'fill': {
      const spec = exchange.engine.markets.get(e.marketId)!.spec;
      recordFill(state.leaderboard, e.address, e.time, tradeNotional(e.price, e.size, spec.valueMul), e.fee, e.closedPnl);
      recordRealized(state.portfolio, accountKeyFrom(exchange.accountKeys, e.address, e.accountIndex), e.closedPnl);
      fillNotification(state, e);
      break;
    }
    case 'funding':
      recordFunding(state.leaderboard, e.address, e.time, e.payment);
      recordRealized(state.portfolio, accountKeyFrom(exchange.accountKeys, e.address, e.accountIndex), e.payment);
      break;
    case 'liquidation':
      notify(state, e.address, {
        type: 'LIQUIDATION',
        accountIndex: e.accountIndex,
        marketId: e.marketId ?? 0,
        payload: { equity: usd(e.equity), maintenanceMargin: usd(e.maintenance), isolated: e.marketId !== undefined },
      });
      break;
    case 'order':
      if (e.status === 'TPSL_TRIGGERED') {
        const spec = exchange.engine.markets.get(e.marketId)!.spec;
        const record = formatOrder(e, spec) as unknown as Record<string, PayloadValue>;
        notify(state, e.address, { type: 'TPSL_TRIGGERED', accountIndex: e.accountIndex, marketId: e.marketId, payload: record });
      }
      break;
    case 'transfer':
      if (e.kind === 'deposit' || e.kind === 'withdrawal') {
        notify(state, e.address, {
          type: e.kind === 'deposit' ? 'DEPOSIT' : 'WITHDRAWAL',
          accountIndex: e.accountIndex,
          marketId: 0,
          payload: { subaccountIdx: e.accountIndex, amount: usd(e.amount), netQuoteBalance: usd(e.netQuoteBalance), operationId: e.operationId, status: e.status },
        });
      }
      break;
    default:
      break;
  }
}

/** An account's current values, as a portfolio sample records them. */
function measure(state: GatewayState, account: Account): Omit<Sample, 'time'> {
  const engine = state.exchange.engine;
  const view = accountView(engine, account);
  let unrealized = 0n;
  for (const am of activeMarkets(account)) {
    const ms = engine.bySlot[am.slot]!;
    const price = marginPrice(ms);
    if (am.size !== 0 && price > 0) unrealized += BigInt(am.size) * BigInt(price) * ms.spec.valueMul - am.cost;
  }
  return {
    equity: view.equity,
    pnl: view.equity - view.netDeposits,
    perpEquity: view.equity - view.netQuoteBalance,
    perpPnl: realizedOf(state.portfolio, account.key) + unrealized + view.accruedFunding,
  };
}

function sample(state: GatewayState, now: number): void {
  const accounts = state.exchange.engine.accounts.all.filter((a) => a.activated).map((a) => ({ key: a.key, measure: () => measure(state, a) }));
  // Nothing to sample yet (the start-up's oracle prices): the first deposit is sampled at once.
  if (accounts.length === 0) return;
  takeSamples(state.portfolio, now, accounts, state.exchange.history.portfolio);
}

/** The current values of one account (the portfolio's "now" point); undefined before its first deposit. */
export function measureAccount(state: GatewayState, address: string, accountIndex: number): Omit<Sample, 'time'> | undefined {
  const account = findAccount(state.exchange.engine.accounts, address, accountIndex);
  return account === undefined || !account.activated ? undefined : measure(state, account);
}
