/**
 * The account services around the engine: the affiliate program, notifications, preferences,
 * the leaderboard and portfolio history. `attachServices(state)` creates their stores on the
 * gateway state (when a restore has not already put them there) and wires them to the exchange
 * once per state:
 * - the engine's fee hook (`onFee`, called with every fee charged) accrues referral rewards;
 * - an exchange listener turns events into notifications (resting fills, liquidations, TP/SL
 *   triggers, deposits, withdrawals), leaderboard totals (fills, funding) and portfolio
 *   samples.
 * Hooks read `state.<store>` on every call, never a captured object, so a restore may replace a
 * store wholesale.
 */
import { accountView, activeMarkets, findAccount, marginPrice, type Account, type EngineEvent, type FillEvent } from '../engine/index.ts';
import { accountKeyOf } from './exchange.ts';
import { formatOrder, usd } from './format.ts';
import { createLeaderboardState, recordFill, recordFunding, type LeaderboardState } from './leaderboard.ts';
import { createNotificationState, pushNotification, type NotificationState, type PayloadValue } from './notifications.ts';
import type { GatewayState } from './operation.ts';
import { fillRecord } from './operations/fills.ts';
import { createPortfolioState, realizedOf, recordRealized, sampleDue, takeSamples, type PortfolioState, type Sample } from './portfolio.ts';
import { createPreferencesState, type PreferencesState } from './preferences.ts';
import { accrueFee, createReferralState, type ReferralState } from './referral.ts';

export const referralOf = (state: GatewayState): ReferralState => (state.referral ??= createReferralState());
export const notificationsOf = (state: GatewayState): NotificationState => (state.notifications ??= createNotificationState());
export const preferencesStoreOf = (state: GatewayState): PreferencesState => (state.preferences ??= createPreferencesState());
export const leaderboardOf = (state: GatewayState): LeaderboardState => (state.leaderboard ??= createLeaderboardState());
export const portfolioOf = (state: GatewayState): PortfolioState => (state.portfolio ??= createPortfolioState());

const attached = new WeakSet<GatewayState>();

export function attachServices(state: GatewayState): void {
  referralOf(state);
  notificationsOf(state);
  preferencesStoreOf(state);
  leaderboardOf(state);
  portfolioOf(state);
  if (attached.has(state)) return;
  attached.add(state);
  const exchange = state.exchange;
  exchange.engine.wiring.onFee = (account, fee, time) => accrueFee(referralOf(state), account.address, fee, time);
  exchange.listeners.add((events) => {
    for (const e of events) follow(state, e);
    const now = exchange.engine.time;
    const portfolio = portfolioOf(state);
    if (sampleDue(portfolio, now)) sample(state, now);
  });
}

function notify(state: GatewayState, address: string, item: Parameters<typeof pushNotification>[3]): void {
  // The engine's time, not the clock's: a replay of the journal stamps the same nanoseconds.
  pushNotification(notificationsOf(state), address, BigInt(state.exchange.engine.time) * 1000n, item, state.exchange.history.notifications);
}

function fillNotification(state: GatewayState, e: FillEvent): void {
  // A resting order's fill (the maker side) is news; a taker saw its own order execute.
  if (e.role !== 'MAKER' || e.liquidation !== undefined) return;
  const record = fillRecord(state.exchange, e) as unknown as Record<string, PayloadValue>;
  notify(state, e.address, { type: 'FILL', accountIndex: e.accountIndex, marketId: e.marketId, payload: record });
}

function follow(state: GatewayState, e: EngineEvent): void {
  const exchange = state.exchange;
  switch (e.type) {
    case 'fill': {
      const spec = exchange.engine.markets.get(e.marketId)!.spec;
      recordFill(leaderboardOf(state), e.address, e.time, BigInt(e.price) * BigInt(e.size) * spec.valueMul, e.fee, e.closedPnl);
      recordRealized(portfolioOf(state), accountKeyOf(e.address, e.accountIndex), e.closedPnl);
      fillNotification(state, e);
      break;
    }
    case 'funding':
      recordFunding(leaderboardOf(state), e.address, e.time, e.payment);
      recordRealized(portfolioOf(state), accountKeyOf(e.address, e.accountIndex), e.payment);
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
    perpPnl: realizedOf(portfolioOf(state), account.key) + unrealized + view.accruedFunding,
  };
}

function sample(state: GatewayState, now: number): void {
  const accounts = state.exchange.engine.accounts.all.filter((a) => a.activated).map((a) => ({ key: a.key, measure: () => measure(state, a) }));
  takeSamples(portfolioOf(state), now, accounts, state.exchange.history.portfolio);
}

/** The current values of one account (the portfolio's "now" point); undefined before its first deposit. */
export function measureAccount(state: GatewayState, address: string, accountIndex: number): Omit<Sample, 'time'> | undefined {
  const account = findAccount(state.exchange.engine.accounts, address, accountIndex);
  return account === undefined || !account.activated ? undefined : measure(state, account);
}
