/**
 * The gateway's event listener of one checkout (`tree`) over fresh read models and services, for
 * the A/B harnesses that replay captured events (order-listener-ab, order-bookkeeping-ab). The
 * checkout's own modules are loaded, so each side runs its own code. The state is `base` (a
 * running server's state) with the listener's stores made new, then `extra` on top; the portfolio
 * never samples. Older checkouts without `followGateway` get read models then services.
 */
import { benchWallets, signOrders } from './gateway-orders.ts';
import { acceptAllSignatures, runOrders, startOrderServer, type Handle, type PlanClock } from './order-path-server.ts';
import { startServer } from '../sim/server.ts';
import { OPERATIONS } from '../gateway/operations/index.ts';

export type Listener = (events: readonly unknown[]) => void;
export type MakeListener = (base: object, extra?: Record<string, unknown>) => Listener;

export async function listenerFactory(tree: string): Promise<MakeListener> {
  const g = await import(tree + '/gateway/gateway.ts');
  const f = await import(tree + '/gateway/services/follow.ts');
  const c = await import(tree + '/gateway/read-models/candles.ts');
  const ms = await import(tree + '/gateway/read-models/market-stats.ts');
  const lb = await import(tree + '/gateway/services/leaderboard.ts');
  const pf = await import(tree + '/gateway/services/portfolio.ts');
  const nt = await import(tree + '/gateway/services/notifications.ts');
  const rf = await import(tree + '/gateway/services/referral.ts');
  const fr = await import(tree + '/gateway/read-models/funding-rates-store.ts');
  return (base, extra = {}) => {
    const state = Object.assign(Object.create(null), base) as Record<string, unknown> & { portfolio: { nextSampleAt: number } };
    Object.assign(state, { candles: c.createCandleStore(), marketStats: ms.createMarketStatsStore(), leaderboard: lb.createLeaderboardState(), portfolio: pf.createPortfolioState(), notifications: nt.createNotificationState(), referral: rf.createReferralState(), fundingRates: fr.createFundingRateStore() }, extra);
    state.portfolio.nextSampleAt = Number.MAX_SAFE_INTEGER;
    if (g.followGateway !== undefined) return g.followGateway(state) as Listener;
    const rm = g.followReadModels(state) as Listener;
    const sv = f.followServices(state) as Listener;
    return (events) => {
      rm(events);
      sv(events);
    };
  };
}

/**
 * The events `n` signed placeOrders make on a running server of this checkout (every signature
 * accepted), one array per command, for the harnesses to replay; `close` stops the server.
 */
export async function captureOrderEvents(n: number): Promise<{ state: { exchange: object } & Record<string, unknown>; batches: unknown[][]; close: () => Promise<void> }> {
  const wallets = benchWallets();
  const plan: PlanClock = { baseNs: 0n, goodTilTimeUs: 0 };
  const server = await startOrderServer(startServer, wallets, plan);
  const close = acceptAllSignatures(server);
  const handle = OPERATIONS.find((op) => op.name === 'placeOrder')!.handle as unknown as Handle;
  const batches: unknown[][] = [];
  server.state.exchange.listeners.add((events) => void batches.push(events as unknown[]));
  await runOrders(handle, server.state, signOrders(wallets, { first: 0, count: n, ...plan }));
  return { state: server.state as unknown as { exchange: object } & Record<string, unknown>, batches, close };
}
