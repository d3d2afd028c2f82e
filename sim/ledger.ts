/**
 * GET /sim/ledger: the exchange's books, so that a test can check that money is conserved — the
 * insurance fund, fees collected, the lending vault, deposits and withdrawals, the sums over
 * accounts, and the identity they satisfy (engine/ledger.ts). Amounts are USD decimal strings,
 * exact (9 decimals at most: one quote quantum), like every amount of the interface.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ledger, quantumsToSize } from '../engine/index.ts';
import { usd } from '../gateway/contract/format.ts';
import type { GatewayState } from '../gateway/contract/operation.ts';

const AMOUNT = Type.String({ description: 'USD, exact decimal' });

export const LEDGER_REPLY = Type.Object({
  insuranceFund: AMOUNT,
  insuranceFundStart: Type.String({ description: 'the fund the exchange was configured to start with (nobody deposited it)' }),
  feesCollected: Type.String({ description: 'trading fees net of maker rebates and paid-out referral commissions' }),
  lendingVault: Type.String({ description: 'borrow interest paid by accounts with a negative quote balance' }),
  totalDeposits: AMOUNT,
  totalWithdrawals: AMOUNT,
  accounts: Type.Object({
    count: Type.Integer(),
    collateral: Type.String({ description: 'Σ netQuoteBalance' }),
    isolatedMargin: AMOUNT,
    positionCost: Type.String({ description: 'Σ signed cost basis of open positions' }),
    unrealizedPnl: Type.String({ description: 'Σ unrealized PnL at mark (oracle when there is no mark)' }),
    equity: Type.String({ description: 'collateral + isolatedMargin + unrealizedPnl' }),
  }),
  openInterest: Type.Array(Type.Object({ market: Type.String(), size: Type.String() })),
  conservation: Type.Object({
    held: Type.String({ description: 'collateral + isolatedMargin − positionCost + (insuranceFund − insuranceFundStart) + feesCollected + lendingVault' }),
    owed: Type.String({ description: 'totalDeposits − totalWithdrawals' }),
    residual: Type.String({ description: 'held − owed: "0" when money is conserved' }),
    holds: Type.Boolean(),
  }),
});

export function registerLedger(app: FastifyInstance, state: GatewayState): void {
  // Registered as a plugin so that the OpenAPI document lists it.
  void app.register(async (sim) => {
    sim.get('/sim/ledger', { schema: { response: { 200: LEDGER_REPLY } } }, async () => {
      const engine = state.exchange.engine;
      const l = ledger(engine);
      return {
        insuranceFund: usd(l.insuranceFund),
        insuranceFundStart: usd(l.insuranceFundStart),
        feesCollected: usd(l.feesCollected),
        lendingVault: usd(l.lendingVault),
        totalDeposits: usd(l.deposited),
        totalWithdrawals: usd(l.withdrawn),
        accounts: {
          count: l.accounts.count,
          collateral: usd(l.accounts.quote),
          isolatedMargin: usd(l.accounts.isolatedMargin),
          positionCost: usd(l.accounts.positionCost),
          unrealizedPnl: usd(l.accounts.unrealizedPnl),
          equity: usd(l.accounts.equity),
        },
        openInterest: [...l.openInterest].map(([id, size]) => {
          const spec = engine.markets.get(id)!.spec;
          return { market: spec.displayName, size: quantumsToSize(spec, size) };
        }),
        conservation: { held: usd(l.held), owed: usd(l.owed), residual: usd(l.residual), holds: l.residual === 0n },
      };
    });
  });
}
