/**
 * The exchange's books as one read: every money total outside accounts, the sums over accounts,
 * and the conservation identity they satisfy (docs/decisions.md, "Money").
 *
 * Contract: read-only, exact (bigint quote quantums), a walk over the accounts — for the control
 * API (`GET /sim/ledger`) and tests, never the hot path; the tallies it reads are the engine's own
 * (`insuranceFund`, `feesCollected`, `lendingVault`, `deposited`, `withdrawn`).
 *
 * The identity: Σ accounts (quote + isolated margin − position cost) + (insurance fund − its
 * configured start) + fees collected + lending vault = deposited − withdrawn. A fill moves
 * (quote − cost) by −V for the buyer and +V for the seller (position.ts), fees and penalties move
 * money from accounts to the fees or the fund, deficits from the fund to accounts, interest to
 * the vault, and funding nets to zero with its rounding remainder in the fund. Marked to market
 * instead of at cost it reads the same, since Σ size = 0 in every market: Σ unrealized PnL =
 * −Σ cost, so Σ equity (quote + isolated + unrealized) + outside = deposited − withdrawn too.
 */
import { marketOf, quoteOf } from './account.ts';
import { marginPrice, unrealized } from './margin.ts';
import type { Engine } from './state.ts';

export interface Ledger {
  /** The insurance fund now, and what it was configured to start with (nobody deposited that). */
  insuranceFund: bigint;
  insuranceFundStart: bigint;
  feesCollected: bigint;
  lendingVault: bigint;
  deposited: bigint;
  withdrawn: bigint;
  accounts: {
    count: number;
    /** Σ quote balances (netQuoteBalance). */
    quote: bigint;
    /** Σ collateral held in isolated positions. */
    isolatedMargin: bigint;
    /** Σ signed cost basis of open positions. */
    positionCost: bigint;
    /** Σ unrealized PnL at each market's margin price (mark, else oracle). */
    unrealizedPnl: bigint;
    /** Σ quote + isolated margin + unrealized PnL. */
    equity: bigint;
  };
  /** Σ long position sizes (= Σ short sizes, = open interest) per market id, quantums. */
  openInterest: Map<number, number>;
  /** Left and right side of the identity (at cost), and left − right: 0 when money is conserved. */
  held: bigint;
  owed: bigint;
  residual: bigint;
}

export function ledger(engine: Engine): Ledger {
  let count = 0;
  let quote = 0n;
  let isolatedMargin = 0n;
  let positionCost = 0n;
  let unrealizedPnl = 0n;
  for (const account of engine.accounts.values()) {
    count++;
    quote += quoteOf(account);
    for (let slot = 0; slot < engine.bySlot.length; slot++) {
      const am = marketOf(account, slot);
      if (am === undefined) continue;
      isolatedMargin += am.isolatedMargin;
      positionCost += am.cost;
      const ms = engine.bySlot[am.slot]!;
      unrealizedPnl += unrealized(am, marginPrice(ms), ms.spec.valueMul);
    }
  }
  const openInterest = new Map<number, number>();
  for (const ms of engine.bySlot) openInterest.set(ms.spec.id, ms.openInterest);
  const outside = engine.insuranceFund - engine.risk.insuranceFund + engine.feesCollected + engine.lendingVault;
  const held = quote + isolatedMargin - positionCost + outside;
  const owed = engine.deposited - engine.withdrawn;
  return {
    insuranceFund: engine.insuranceFund,
    insuranceFundStart: engine.risk.insuranceFund,
    feesCollected: engine.feesCollected,
    lendingVault: engine.lendingVault,
    deposited: engine.deposited,
    withdrawn: engine.withdrawn,
    accounts: { count, quote, isolatedMargin, positionCost, unrealizedPnl, equity: quote + isolatedMargin + unrealizedPnl },
    openInterest,
    held,
    owed,
    residual: held - owed,
  };
}
