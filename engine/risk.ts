/**
 * The risk stages around matching.
 *
 * Contract (exchange-core's RiskEngine split):
 * - `preTrade` decides, before an order meets the book, whether it may: reduce-only direction
 *   (REDUCE_ONLY_WOULD_INCREASE), the fixed maximum position notional
 *   (POSITION_SIZE_CAP_EXCEEDED) and initial margin counting resting orders
 *   (UNDERCOLLATERALIZED). It reads state and changes nothing.
 * - `settleFill` applies one fill to one account after the book has matched it: position and
 *   cost basis (position.ts), fee by fee tier (fees.ts), volume, the isolated pool, open interest.
 * - deposits, withdrawals, transfers, leverage and isolated margin are commands of their own
 *   (commands/risk.ts); `withdrawable` is the free collateral they may move.
 * - `refreshTriggers` gives an account fresh liquidation triggers (liquidation-index.ts) and says
 *   whether it is below maintenance now.
 * The book and matching never import this module.
 */
import { addFeePaid, addQuoteExact, addVolume, feeTier, marketRow, positionOf, quoteOf, refreshActive, type Account } from './account.ts';
import { fee as feeOf, feeExact } from './fees.ts';
import { addTrigger, triggerPrice } from './liquidation-index.ts';
import { withinPositionCap } from './market.ts';
import { beginChange, clearlyAbove, crossRisk, crossRiskF, endChange, isolatedRisk, marginPrice, maintenanceMargin, positionInitialMargin, unrealized, type CrossRisk } from './margin.ts';
import type { Order } from './order.ts';
import { mulExact } from './money.ts';
import { AccountMarket, applyFill, closedPnlOf, settledFee, type Settled } from './position.ts';
import { AW, findRow, ISOLATED, OPEN_BUY, OPEN_ORDERS, OPEN_SELL, QUOTE_PENDING, SIZE, SLOT, TRIGGER, TRIGGER_VERSION, W, type RiskTable } from './risk-table.ts';

/** Bound of the pending balance (account.ts `addQuoteExact`). */
const PENDING_MAX = 2 ** 52;

export type { Settled } from './position.ts';
import type { RejectionReason } from './spec.ts';
import type { Engine, MarketState } from './state.ts';
import type { SideCode } from './types.ts';
import { plainRecord } from './plain-record.ts';

// ---------------------------------------------------------------------------------------------
// Pre-trade

export function preTrade(engine: Engine, account: Account, ms: MarketState, side: SideCode, price: number, size: number, reduceOnly: boolean): RejectionReason | undefined {
  const position = positionOf(account, ms.slot);
  if (reduceOnly) {
    // Reducing risk needs no margin.
    return (side === 0 ? position >= 0 : position <= 0) ? 'REDUCE_ONLY_WOULD_INCREASE' : undefined;
  }
  const after = side === 0 ? position + size : position - size;
  if (Math.abs(after) > Math.abs(position) && !withinPositionCap(ms.spec, price, Math.abs(after))) {
    return 'POSITION_SIZE_CAP_EXCEEDED';
  }
  return marginAllows(engine, account, ms, side, price, size) ? undefined : 'UNDERCOLLATERALIZED';
}

/**
 * True when `size` more of `side` orders at `price` still fit the account's initial margin, or
 * do not raise the requirement (an order that can only reduce exposure is always allowed).
 */
export function marginAllows(engine: Engine, account: Account, ms: MarketState, side: SideCode, price: number, size: number): boolean {
  const buy = side === 0 ? size : 0;
  const sell = side === 1 ? size : 0;
  const fast = crossRiskF(account, engine.bySlot, engine.markEpoch, ms.slot, buy, sell, price);
  if (clearlyAbove(fast.equity, fast.initial)) return true;
  const after = crossRisk(account, engine.bySlot, { slot: ms.slot, buy, sell, price });
  if (after.initial <= after.equity) return true;
  return after.initial <= crossRisk(account, engine.bySlot).initial;
}

/** How much more a reduce-only order may fill: the opposite position's size, or 0. */
export function reduceAllowance(order: Order): number {
  const position = positionOf(order.account, order.slot);
  if (order.side === 0) return position < 0 ? -position : 0;
  return position > 0 ? position : 0;
}

/** Keeps the account's open-order exposure in step with its live orders. */
export function addExposure(engine: Engine, account: Account, ms: MarketState, side: SideCode, qty: number, orders: number): void {
  const row = marketRow(account, ms.slot);
  beginChange(account, row, engine.markEpoch);
  const r = account.table.rows;
  const o = row * W;
  if (side === 0) r[o + OPEN_BUY] = r[o + OPEN_BUY]! + qty;
  else r[o + OPEN_SELL] = r[o + OPEN_SELL]! + qty;
  r[o + OPEN_ORDERS] = r[o + OPEN_ORDERS]! + orders;
  refreshActive(account, row);
  endChange(account, row, engine.bySlot, engine.markEpoch);
}

/** Marks an account for the end-of-command re-check (liquidation, MARGIN_CANCELED). */
export function queueRisk(engine: Engine, account: Account): void {
  if (account.riskQueued) return;
  account.riskQueued = true;
  const scratch = engine.scratch;
  scratch.riskQueue[scratch.riskQueueCount++] = account;
}

// ---------------------------------------------------------------------------------------------
// Settlement of a fill

const buildSettled = plainRecord<Settled>();

export function createSettled(): Settled {
  return buildSettled({ effect: 'OPEN_LONG', realized: 0n, realizedF: 0, closedQty: 0, feeF: 0, fee: 0n, closedPnlF: 0, closedPnl: 0n });
}

/**
 * Settles one side of a fill into `out` (callers reuse a record per side: the fill path is hot
 * enough that a fresh result per call showed up as garbage). Value and fee are computed as exact
 * doubles when they fit (money.ts), with one bigint conversion each, else in bigint.
 */
export function settleFill(engine: Engine, account: Account, ms: MarketState, side: SideCode, qty: number, price: number, role: 'MAKER' | 'TAKER' | 'ADL', out: Settled): void {
  const row = marketRow(account, ms.slot);
  const t = account.table;
  noteTriggerChange(account, row);
  beginChange(account, row, engine.markEpoch);
  const valueF = mulExact(mulExact(price, qty), ms.spec.valueMulF);
  // The bigint value only where no exact double stands for it (money.ts); the slow paths below make it on demand.
  const value = valueF === valueF ? undefined : BigInt(price) * BigInt(qty) * ms.spec.valueMul;
  const o = row * W;
  const before = t.rows[o + SIZE]!;
  applyFill(t, row, side, qty, value, valueF, out);
  const after = t.rows[o + SIZE]!;
  const tier = feeTier(engine.risk.feeTiers, account, engine.time);
  // ADL is a forced transfer of positions, not a trade anyone chose: no fee.
  const ppm = role === 'ADL' ? 0 : role === 'MAKER' ? tier.makerFeePpm : tier.takerFeePpm;
  // Fee and closed PnL as exact doubles when they are (the common case: no bigint made); the
  // bigints only otherwise (`feeOf`, `closedPnlOf` make them for whoever needs one).
  const feeF = feeExact(valueF, ppm);
  const fee = feeF === feeF ? 0n : feeOf(value ?? BigInt(valueF), ppm);
  const closedF = feeF === feeF && out.realizedF === out.realizedF ? out.realizedF - feeF : NaN;
  out.feeF = feeF;
  out.fee = fee;
  out.closedPnlF = closedF;
  if (closedF !== closedF) out.closedPnl = (out.realizedF === out.realizedF ? BigInt(out.realizedF) : out.realized) - (feeF === feeF ? BigInt(feeF) : fee);
  const sign = feeF === feeF ? feeF : fee > 0n ? 1 : fee < 0n ? -1 : 0;
  if (sign !== 0) {
    if (feeF === feeF) {
      // Into the command's pending fee sum (engine.ts folds it into feesCollected at the end of
      // the command); feesCollected itself when the sum would leave the exact range.
      const scratch = engine.scratch;
      const sum = scratch.feesPending + feeF;
      if (sum < PENDING_MAX && sum > -PENDING_MAX) scratch.feesPending = sum;
      else engine.feesCollected += BigInt(feeF);
    } else {
      engine.feesCollected += fee;
    }
    if (sign > 0) addFeePaid(account, fee, feeF);
    const onFee = engine.wiring.onFee;
    if (onFee !== undefined) onFee(account, settledFee(out), engine.time);
  }
  addVolume(account, value ?? 0n, valueF, engine.time);
  if (t.rows[o + ISOLATED] === 1) {
    t.isolatedMargin[row] = t.isolatedMargin[row]! + closedPnlOf(out);
    settleIsolatedPool(engine, account, ms, after, before);
  } else if (closedF === closedF) {
    // addQuoteExact, inline: a double passed to a call V8 does not inline is a heap number.
    const sums = t.accountSums;
    const at = account.id * AW + QUOTE_PENDING;
    const sum = sums[at]! + closedF;
    if (sum < PENDING_MAX && sum > -PENDING_MAX) sums[at] = sum;
    else addQuoteExact(account, closedF);
  } else {
    account.quote += out.closedPnl;
  }
  if (before === 0 && after !== 0) ms.holders.add(account);
  else if (before !== 0 && after === 0) ms.holders.delete(account);
  ms.openInterest += (after > 0 ? after : 0) - (before > 0 ? before : 0);
  if (after === 0 || (before !== 0 && (before > 0) !== (after > 0))) dropTrigger(t, row);
  refreshActive(account, row);
  endChange(account, row, engine.bySlot, engine.markEpoch);
}

/**
 * An isolated pool follows its position: an increase draws the new initial margin from cross
 * collateral, a decrease releases its share of the pool, a close releases all of it.
 */
function settleIsolatedPool(engine: Engine, account: Account, ms: MarketState, after: number, before: number): void {
  const am = new AccountMarket(account.table, findRow(account.table, account.id, ms.slot));
  const absBefore = Math.abs(before);
  const absAfter = Math.abs(after);
  if (after === 0) {
    account.quote += am.isolatedMargin;
    am.isolatedMargin = 0n;
    return;
  }
  if (absAfter < absBefore && (before > 0) === (after > 0)) {
    const release = (am.isolatedMargin * BigInt(absBefore - absAfter)) / BigInt(absBefore);
    if (release > 0n) {
      am.isolatedMargin -= release;
      account.quote += release;
    }
    return;
  }
  const need = positionInitialMargin(engine.bySlot[ms.slot]!, am);
  if (am.isolatedMargin < need) {
    account.quote -= need - am.isolatedMargin;
    am.isolatedMargin = need;
  }
}

// ---------------------------------------------------------------------------------------------
// Liquidation triggers

/**
 * Share of the slack the triggers hand out. The rest is held back so that fills, whose fees and
 * added maintenance erode the slack a little each time, can go on without recomputing every
 * position's trigger (`refreshAfterFills`); a trigger a little nearer only asks for an earlier
 * re-check.
 */
const TRIGGER_SHARE = 0.75;

/**
 * Recomputes an account's liquidation triggers; returns true when its cross side or an isolated
 * position is below maintenance now (the caller liquidates).
 *
 * It also records what `refreshAfterFills` needs to skip the untouched positions next time: the
 * mark epoch, the number of cross positions and the per-position budget their triggers used
 * (none while there is no cross position: the first fill sets it from the slack then).
 */
export function refreshTriggers(engine: Engine, account: Account): boolean {
  account.triggerSlot = -1;
  account.triggersAt = -1;
  account.triggerCount = 0;
  account.triggerBudget = -Infinity;
  if (account.active.length === 0) {
    account.triggersAt = engine.markEpoch;
    return false;
  }
  let below = false;
  let clear = true;
  let crossPositions = 0;
  // Cross markets with a position or resting orders: the slack is shared over all of them, so
  // that an order filling into a new position leaves the others' budgets in force.
  let crossMarkets = 0;
  const t = account.table;
  const r = t.rows;
  for (const row of account.active) {
    if (r[row * W + ISOLATED] === 1) continue;
    crossMarkets++;
    if (r[row * W + SIZE] !== 0) crossPositions++;
  }
  // "Below maintenance" is decided exactly when the slack is near zero; far from it the float
  // sums are plenty, and triggers are approximate by design (they only ask for a re-check).
  let crossSlack = 0;
  if (crossPositions > 0) {
    const fast = crossRiskF(account, engine.bySlot, engine.markEpoch);
    if (clearlyAbove(fast.equity, fast.maintenance)) {
      crossSlack = (fast.equity - fast.maintenance) * (1 - 1e-9) - 1e9;
    } else {
      clear = false;
      const exact = exactSlack(engine, account);
      if (exact < 0n) below = true;
      crossSlack = Number(exact) - 1e9;
    }
  }
  const budget = (crossSlack / crossMarkets) * TRIGGER_SHARE;
  for (const row of account.active) {
    if (t.rows[row * W + SIZE] !== 0 && setTrigger(engine, account, row, budget)) below = true;
  }
  if (clear && !below) {
    account.triggersAt = engine.markEpoch;
    account.triggerCount = crossPositions;
    if (crossPositions > 0) account.triggerBudget = budget;
  }
  return below;
}

/**
 * `refreshTriggers` after fills, touching only what the fills changed. Valid when no mark has
 * moved since the last full refresh and the fills were in one market: every other position is
 * as it was, at the same prices, and its trigger uses at most the recorded per-position budget.
 * While the cross positions times that budget still fit in the slack, the triggers together
 * stay safe, and the changed position gets a trigger from the same budget. Anything else, or a
 * cross side near maintenance, takes the full refresh.
 */
export function refreshAfterFills(engine: Engine, account: Account): boolean {
  const slot = account.triggerSlot;
  if (slot < 0 || account.triggersAt !== engine.markEpoch) return refreshTriggers(engine, account);
  const t = account.table;
  const row = findRow(t, account.id, slot);
  const o = row * W;
  const size = t.rows[o + SIZE]!;
  const cross = t.rows[o + ISOLATED] !== 1 && size !== 0;
  const count = account.triggerCount - (account.triggerSlotCross ? 1 : 0) + (cross ? 1 : 0);
  let budget = account.triggerBudget;
  if (count > 0) {
    const fast = crossRiskF(account, engine.bySlot, engine.markEpoch);
    if (!clearlyAbove(fast.equity, fast.maintenance)) return refreshTriggers(engine, account);
    const slack = (fast.equity - fast.maintenance) * (1 - 1e-9) - 1e9;
    // With no cross trigger in force yet, the first one sets the budget.
    if (budget === -Infinity) budget = (slack / count) * TRIGGER_SHARE;
    else if (budget * count > slack) return refreshTriggers(engine, account);
  }
  account.triggerSlot = -1;
  account.triggerCount = count;
  account.triggerBudget = budget;
  if (size !== 0 && setTrigger(engine, account, row, budget)) {
    account.triggersAt = -1;
    return true;
  }
  return false;
}

/**
 * Notes, before a fill changes `am`, which of the account's markets changed since its triggers
 * were computed (-1 none, a slot, or -2 for several).
 */
export function noteTriggerChange(account: Account, row: number): void {
  const r = account.table.rows;
  const o = row * W;
  const slot = r[o + SLOT]!;
  if (account.triggerSlot === -1) {
    account.triggerSlot = slot;
    account.triggerSlotCross = r[o + ISOLATED] !== 1 && r[o + SIZE] !== 0;
  } else if (account.triggerSlot !== slot) {
    account.triggerSlot = -2;
  }
}

/**
 * Gives one open position a trigger from `crossBudget` (an isolated one from its own pool);
 * returns true when an isolated position is below maintenance.
 */
function setTrigger(engine: Engine, account: Account, row: number, crossBudget: number): boolean {
  const t = account.table;
  const o = row * W;
  const ms = engine.bySlot[t.rows[o + SLOT]!]!;
  const price = marginPrice(ms);
  if (price <= 0) return false;
  let below = false;
  let budget = crossBudget;
  if (t.rows[o + ISOLATED] === 1) {
    const iso = isolatedRisk(ms, new AccountMarket(t, row));
    if (iso.equity < iso.maintenance) below = true;
    budget = Number(iso.equity - iso.maintenance) - 1e9;
  }
  const r = t.rows;
  const size = r[o + SIZE]!;
  const long = size > 0;
  const abs = long ? size : -size;
  const perTick = abs * ms.spec.valueMulF * (long ? 1 - ms.spec.mmfF : 1 + ms.spec.mmfF);
  const trigger = triggerPrice(long, price, budget < 0 ? 0 : budget, perTick);
  // Keep the trigger in force when the new one would fire later: the old one is safe.
  const current = r[o + TRIGGER]!;
  if (long ? trigger <= current : trigger >= current) return below;
  r[o + TRIGGER] = trigger;
  const version = r[o + TRIGGER_VERSION]! + 1;
  r[o + TRIGGER_VERSION] = version;
  addTrigger(ms.triggers, long, trigger, account.id, version);
  return below;
}

/** Forgets a position's trigger (it fired, or the position closed) so the next one is pushed. */
export function dropTrigger(t: RiskTable, row: number): void {
  const o = row * W;
  t.rows[o + TRIGGER] = NaN;
  t.rows[o + TRIGGER_VERSION] = t.rows[o + TRIGGER_VERSION]! + 1;
}

function exactSlack(engine: Engine, account: Account): bigint {
  const cross = crossRisk(account, engine.bySlot);
  return cross.equity - cross.maintenance;
}

// ---------------------------------------------------------------------------------------------
// Free collateral

/** What an account may move out: its quote balance, and no more than its free collateral. */
export function withdrawable(engine: Engine, account: Account): bigint {
  const cross = crossRisk(account, engine.bySlot);
  const free = cross.equity - cross.initial;
  const quote = quoteOf(account);
  const cap = quote < free ? quote : free;
  return cap > 0n ? cap : 0n;
}

// ---------------------------------------------------------------------------------------------
// Views (the account record, supplement §7)

export interface AccountView {
  netQuoteBalance: bigint;
  equity: bigint;
  freeCollateral: bigint;
  netDeposits: bigint;
  initialMargin: bigint;
  maintenanceMargin: bigint;
  /** Funding accrued this hour and not yet settled (positive = to receive). */
  accruedFunding: bigint;
}

export function accountView(engine: Engine, account: Account): AccountView {
  const cross: CrossRisk = crossRisk(account, engine.bySlot);
  let equity = cross.equity;
  let maintenance = cross.maintenance;
  let accrued = 0n;
  // Funding accrues from the start of the current hour; before the first settlement of a market
  // its `nextAt` is not set yet, so the hour is the engine clock's.
  const HOUR = 3_600_000_000;
  for (const row of account.active) {
    const am = new AccountMarket(account.table, row);
    const ms = engine.bySlot[am.slot]!;
    if (am.isolated) {
      const iso = isolatedRisk(ms, am);
      equity += iso.equity;
      maintenance += iso.maintenance;
    }
    if (am.size !== 0 && ms.oraclePrice > 0) {
      // The hour's rate so far, pro rata to the time elapsed in the hour.
      const hourStart = ms.funding.nextAt > 0 ? ms.funding.nextAt - HOUR : engine.time - (engine.time % HOUR);
      const elapsed = BigInt(Math.min(HOUR, Math.max(0, engine.time - hourStart)));
      const full = -BigInt(am.size) * BigInt(ms.oraclePrice) * ms.spec.valueMul * ms.funding.rate;
      accrued += (full * elapsed) / (3_600_000_000n * 1_000_000_000_000n);
    }
  }
  return {
    netQuoteBalance: quoteOf(account),
    equity: equity + accrued,
    freeCollateral: cross.equity + accrued - cross.initial > 0n ? cross.equity + accrued - cross.initial : 0n,
    netDeposits: account.netDeposits,
    initialMargin: cross.initial,
    maintenanceMargin: maintenance,
    accruedFunding: accrued,
  };
}

export { maintenanceMargin, unrealized };
