/**
 * The risk stages around matching, and the account operations that move money.
 *
 * Contract (exchange-core's RiskEngine split):
 * - `preTrade` decides, before an order meets the book, whether it may: reduce-only direction
 *   (REDUCE_ONLY_WOULD_INCREASE), the fixed maximum position notional
 *   (POSITION_SIZE_CAP_EXCEEDED) and initial margin counting resting orders
 *   (UNDERCOLLATERALIZED). It reads state and changes nothing.
 * - `settleFill` applies one fill to one account after the book has matched it: position and
 *   cost basis (position.ts), fee by fee tier (fees.ts), volume, the isolated pool, open interest.
 * - deposits, withdrawals, transfers, leverage and isolated margin are commands of their own.
 * - `refreshTriggers` gives an account fresh liquidation triggers (liquidation-index.ts) and says
 *   whether it is below maintenance now.
 * The book and matching never import this module.
 */
import { accountMarket, addFeePaid, addVolume, feeTier, positionOf, refreshActive, type Account } from './account.ts';
import { emitLeverage, emitPosition, emitTransfer } from './emit.ts';
import { fee as feeOf, feeExact } from './fees.ts';
import { addTrigger, triggerPrice } from './liquidation-index.ts';
import { withinPositionCap } from './market.ts';
import { beginChange, clearlyAbove, crossRisk, crossRiskF, endChange, isolatedRisk, marginPrice, maintenanceMargin, positionInitialMargin, unrealized, type CrossRisk } from './margin.ts';
import type { Order } from './order.ts';
import { mulExact } from './money.ts';
import { applyFill, type AccountMarket, type FillOutcome } from './position.ts';
import { LIMITS } from './spec.ts';
import type { RejectionReason } from './spec.ts';
import { getAccount, invalid, type Engine, type MarketState } from './state.ts';
import type {
  AdjustIsolatedMarginCommand,
  CommandResult,
  CreditCommissionCommand,
  DepositCommand,
  SetLeverageCommand,
  SideCode,
  TransferCommand,
  WithdrawCommand,
} from './types.ts';

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
  const am = accountMarket(account, ms.slot, ms.spec.id);
  beginChange(account, am, engine.markEpoch);
  if (side === 0) am.openBuy += qty;
  else am.openSell += qty;
  am.openOrders += orders;
  refreshActive(account, am);
  endChange(account, am, engine.bySlot, engine.markEpoch);
}

/** Marks an account for the end-of-command re-check (liquidation, MARGIN_CANCELED). */
export function queueRisk(engine: Engine, account: Account): void {
  if (account.riskQueued) return;
  account.riskQueued = true;
  engine.riskQueue.push(account);
}

// ---------------------------------------------------------------------------------------------
// Settlement of a fill

export interface Settled extends FillOutcome {
  fee: bigint;
  /** Realized PnL minus the fee: what the fill adds to the balance (the fill's closedPnl). */
  closedPnl: bigint;
}

export function createSettled(): Settled {
  return { effect: 'OPEN_LONG', realized: 0n, realizedF: 0, closedQty: 0, fee: 0n, closedPnl: 0n };
}

/**
 * Settles one side of a fill into `out` (callers reuse a record per side: the fill path is hot
 * enough that a fresh result per call showed up as garbage). Value and fee are computed as exact
 * doubles when they fit (money.ts), with one bigint conversion each, else in bigint.
 */
export function settleFill(engine: Engine, account: Account, ms: MarketState, side: SideCode, qty: number, price: number, role: 'MAKER' | 'TAKER' | 'ADL', out: Settled): void {
  const am = accountMarket(account, ms.slot, ms.spec.id);
  noteTriggerChange(account, am);
  beginChange(account, am, engine.markEpoch);
  const valueF = mulExact(mulExact(price, qty), ms.spec.valueMulF);
  const value = valueF === valueF ? BigInt(valueF) : BigInt(price) * BigInt(qty) * ms.spec.valueMul;
  const before = am.size;
  applyFill(am, side, qty, value, valueF, out);
  const tier = feeTier(engine.risk.feeTiers, account, engine.time);
  // ADL is a forced transfer of positions, not a trade anyone chose: no fee.
  const ppm = role === 'ADL' ? 0 : role === 'MAKER' ? tier.makerFeePpm : tier.takerFeePpm;
  const feeF = feeExact(valueF, ppm);
  const fee = feeF === feeF ? (feeF === 0 ? 0n : BigInt(feeF)) : feeOf(value, ppm);
  const closedPnl = feeF === feeF && out.realizedF === out.realizedF ? BigInt(out.realizedF - feeF) : out.realized - fee;
  out.fee = fee;
  out.closedPnl = closedPnl;
  // The sign of the exact double when there is one: the bigint itself is fresh, no need to read it.
  const sign = feeF === feeF ? feeF : fee > 0n ? 1 : fee < 0n ? -1 : 0;
  if (sign !== 0) {
    engine.feesCollected += fee;
    if (sign > 0) addFeePaid(account, fee, feeF);
    if (engine.onFee !== undefined) engine.onFee(account, fee, engine.time);
  }
  addVolume(account, value, valueF, engine.time);
  if (am.isolated) {
    am.isolatedMargin += closedPnl;
    settleIsolatedPool(engine, account, ms, am.size, before);
  } else {
    account.quote += closedPnl;
  }
  if (before === 0 && am.size !== 0) ms.holders.add(account);
  else if (before !== 0 && am.size === 0) ms.holders.delete(account);
  ms.openInterest += (am.size > 0 ? am.size : 0) - (before > 0 ? before : 0);
  if (am.size === 0 || (before !== 0 && (before > 0) !== (am.size > 0))) dropTrigger(am);
  refreshActive(account, am);
  endChange(account, am, engine.bySlot, engine.markEpoch);
}

/**
 * An isolated pool follows its position: an increase draws the new initial margin from cross
 * collateral, a decrease releases its share of the pool, a close releases all of it.
 */
function settleIsolatedPool(engine: Engine, account: Account, ms: MarketState, after: number, before: number): void {
  const am = account.markets[ms.slot]!;
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
  for (const am of account.active) {
    if (am.isolated) continue;
    crossMarkets++;
    if (am.size !== 0) crossPositions++;
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
  for (const am of account.active) {
    if (am.size !== 0 && setTrigger(engine, account, am, budget)) below = true;
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
  const am = account.markets[slot]!;
  const cross = !am.isolated && am.size !== 0;
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
  if (am.size !== 0 && setTrigger(engine, account, am, budget)) {
    account.triggersAt = -1;
    return true;
  }
  return false;
}

/**
 * Notes, before a fill changes `am`, which of the account's markets changed since its triggers
 * were computed (-1 none, a slot, or -2 for several).
 */
export function noteTriggerChange(account: Account, am: AccountMarket): void {
  if (account.triggerSlot === -1) {
    account.triggerSlot = am.slot;
    account.triggerSlotCross = !am.isolated && am.size !== 0;
  } else if (account.triggerSlot !== am.slot) {
    account.triggerSlot = -2;
  }
}

/**
 * Gives one open position a trigger from `crossBudget` (an isolated one from its own pool);
 * returns true when an isolated position is below maintenance.
 */
function setTrigger(engine: Engine, account: Account, am: AccountMarket, crossBudget: number): boolean {
  const ms = engine.bySlot[am.slot]!;
  const price = marginPrice(ms);
  if (price <= 0) return false;
  let below = false;
  let budget = crossBudget;
  if (am.isolated) {
    const iso = isolatedRisk(ms, am);
    if (iso.equity < iso.maintenance) below = true;
    budget = Number(iso.equity - iso.maintenance) - 1e9;
  }
  const long = am.size > 0;
  const abs = long ? am.size : -am.size;
  const perTick = abs * ms.spec.valueMulF * (long ? 1 - ms.spec.mmfF : 1 + ms.spec.mmfF);
  const trigger = triggerPrice(long, price, budget < 0 ? 0 : budget, perTick);
  // Keep the trigger in force when the new one would fire later: the old one is safe.
  if (long ? trigger <= am.trigger : trigger >= am.trigger) return below;
  am.trigger = trigger;
  am.triggerVersion++;
  addTrigger(ms.triggers, long, trigger, account.id, am.triggerVersion);
  return below;
}

/** Forgets a position's trigger (it fired, or the position closed) so the next one is pushed. */
export function dropTrigger(am: AccountMarket): void {
  am.trigger = NaN;
  am.triggerVersion++;
}

function exactSlack(engine: Engine, account: Account): bigint {
  const cross = crossRisk(account, engine.bySlot);
  return cross.equity - cross.maintenance;
}

// ---------------------------------------------------------------------------------------------
// Deposits, withdrawals, transfers

function validAmount(amount: unknown): amount is bigint {
  return typeof amount === 'bigint' && amount > 0n;
}

const NONCE = /^.{1,64}$/s;

export function deposit(engine: Engine, c: DepositCommand): CommandResult {
  if (!validAmount(c.amount)) return invalid('InvalidRequest', 'amount must be a positive number of quote quantums', 'amount');
  const account = getAccount(engine, c.address, c.accountIndex);
  account.quote += c.amount;
  account.netDeposits += c.amount;
  account.activated = true;
  engine.deposited += c.amount;
  const operationId = engine.nextOperationId++;
  emitTransfer(engine, account, operationId, 'deposit', c.amount, 'COMPLETED', undefined, undefined);
  refreshTriggers(engine, account);
  return { kind: 'done', operationId, transferStatus: 'COMPLETED' };
}

/** Referral rewards paid from the fees collected; not a deposit, so netDeposits stays. */
export function creditCommission(engine: Engine, c: CreditCommissionCommand): CommandResult {
  if (!validAmount(c.amount)) return invalid('InvalidRequest', 'amount must be a positive number of quote quantums', 'amount');
  const account = getAccount(engine, c.address, c.accountIndex);
  const operationId = engine.nextOperationId++;
  if (engine.feesCollected < c.amount) {
    emitTransfer(engine, account, operationId, 'referralClaim', c.amount, 'REJECTED', 'INSUFFICIENT_FEE_POOL', undefined);
    return { kind: 'done', operationId, transferStatus: 'REJECTED', rejectReason: 'INSUFFICIENT_FEE_POOL' };
  }
  engine.feesCollected -= c.amount;
  account.quote += c.amount;
  account.activated = true;
  emitTransfer(engine, account, operationId, 'referralClaim', c.amount, 'COMPLETED', undefined, undefined);
  refreshTriggers(engine, account);
  return { kind: 'done', operationId, transferStatus: 'COMPLETED' };
}

/** What an account may move out: its quote balance, and no more than its free collateral. */
export function withdrawable(engine: Engine, account: Account): bigint {
  const cross = crossRisk(account, engine.bySlot);
  const free = cross.equity - cross.initial;
  const cap = account.quote < free ? account.quote : free;
  return cap > 0n ? cap : 0n;
}

function checkNonce(engine: Engine, address: string, nonce: unknown): CommandResult | undefined {
  if (typeof nonce !== 'string' || !NONCE.test(nonce)) return invalid('InvalidRequest', 'nonce must be 1-64 characters', 'nonce');
  if (engine.nonces.has(address + '|' + nonce)) return { kind: 'conflict', error: 'nonce already used' };
  return undefined;
}

export function withdraw(engine: Engine, c: WithdrawCommand): CommandResult {
  if (!validAmount(c.amount) || c.amount < LIMITS.minWithdrawalQuantums) {
    return invalid('InvalidRequest', 'withdrawal below the 1 USD minimum', 'amount');
  }
  const nonceError = checkNonce(engine, c.address, c.nonce);
  if (nonceError !== undefined) return nonceError;
  engine.nonces.add(c.address + '|' + c.nonce);
  const account = getAccount(engine, c.address, c.accountIndex);
  const operationId = engine.nextOperationId++;
  if (!account.activated || withdrawable(engine, account) < c.amount) {
    emitTransfer(engine, account, operationId, 'withdrawal', c.amount, 'REJECTED', 'INSUFFICIENT_FREE_COLLATERAL', undefined);
    return { kind: 'done', operationId, transferStatus: 'REJECTED', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL' };
  }
  account.quote -= c.amount;
  account.netDeposits -= c.amount;
  engine.withdrawn += c.amount;
  emitTransfer(engine, account, operationId, 'withdrawal', c.amount, 'COMPLETED', undefined, undefined);
  refreshTriggers(engine, account);
  return { kind: 'done', operationId, transferStatus: 'COMPLETED' };
}

export function transfer(engine: Engine, c: TransferCommand): CommandResult {
  const indexOk = (i: unknown): boolean => Number.isInteger(i) && (i as number) >= 0 && (i as number) <= LIMITS.subaccountMax;
  if (!indexOk(c.fromAccountIndex) || !indexOk(c.toAccountIndex) || c.fromAccountIndex === c.toAccountIndex) {
    return invalid('InvalidRequest', 'fromAccountIndex and toAccountIndex must be different subaccounts 0-9', 'toAccountIndex');
  }
  if (!validAmount(c.amount)) return invalid('InvalidRequest', 'amount must be positive', 'amount');
  const nonceError = checkNonce(engine, c.address, c.nonce);
  if (nonceError !== undefined) return nonceError;
  engine.nonces.add(c.address + '|' + c.nonce);
  const from = getAccount(engine, c.address, c.fromAccountIndex);
  const operationId = engine.nextOperationId++;
  if (!from.activated || withdrawable(engine, from) < c.amount) {
    emitTransfer(engine, from, operationId, 'transferOut', c.amount, 'REJECTED', 'INSUFFICIENT_FREE_COLLATERAL', c.toAccountIndex);
    return { kind: 'done', operationId, transferStatus: 'REJECTED', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL' };
  }
  const to = getAccount(engine, c.address, c.toAccountIndex);
  from.quote -= c.amount;
  from.netDeposits -= c.amount;
  to.quote += c.amount;
  to.netDeposits += c.amount;
  to.activated = true;
  emitTransfer(engine, from, operationId, 'transferOut', c.amount, 'COMPLETED', undefined, c.toAccountIndex);
  emitTransfer(engine, to, operationId, 'transferIn', c.amount, 'COMPLETED', undefined, c.fromAccountIndex);
  refreshTriggers(engine, from);
  refreshTriggers(engine, to);
  return { kind: 'done', operationId, transferStatus: 'COMPLETED' };
}

// ---------------------------------------------------------------------------------------------
// Leverage and isolated margin

export function setLeverage(engine: Engine, c: SetLeverageCommand): CommandResult {
  const ms = engine.markets.get(c.marketId);
  if (ms === undefined || ms.spec.status !== 'ONLINE') return invalid('InvalidRequest', 'unknown market', 'marketId');
  const account = getAccount(engine, c.address, c.accountIndex);
  const am = accountMarket(account, ms.slot, ms.spec.id);
  const isolated = c.isolated ?? am.isolated;
  const current = am.leverage > 0 ? am.leverage : ms.spec.maxLeverage;
  const reject = (reason: 'INVALID_LEVERAGE' | 'UNDERCOLLATERALIZED' | 'HAS_OPEN_POSITION'): CommandResult => {
    emitLeverage(engine, account, ms.spec.id, current, am.isolated, reason, c.requestId);
    return { kind: 'done', leverageStatus: 'REJECTED', rejectReason: reason, leverage: current };
  };
  if (!Number.isInteger(c.leverage) || c.leverage < 1 || c.leverage > ms.spec.maxLeverage) return reject('INVALID_LEVERAGE');
  if (isolated !== am.isolated && am.size !== 0) return reject('HAS_OPEN_POSITION');
  const previous = { leverage: am.leverage, isolated: am.isolated };
  const prior = crossRisk(account, engine.bySlot);
  beginChange(account, am, engine.markEpoch);
  am.leverage = c.leverage;
  am.isolated = isolated;
  // Leaving isolated mode (no position, checked above) returns the pool to cross collateral.
  const returned = !isolated && previous.isolated ? am.isolatedMargin : 0n;
  if (returned !== 0n) {
    account.quote += returned;
    am.isolatedMargin = 0n;
    refreshActive(account, am);
  }
  endChange(account, am, engine.bySlot, engine.markEpoch);
  // A higher requirement must still be covered; a lower one is always fine.
  const cross = crossRisk(account, engine.bySlot);
  const iso = am.isolated && am.size !== 0 ? isolatedRisk(ms, am) : undefined;
  if ((cross.initial > cross.equity && cross.initial > prior.initial) || (iso !== undefined && iso.initial > iso.equity)) {
    beginChange(account, am, engine.markEpoch);
    am.leverage = previous.leverage;
    am.isolated = previous.isolated;
    if (returned !== 0n) {
      account.quote -= returned;
      am.isolatedMargin = returned;
      refreshActive(account, am);
    }
    endChange(account, am, engine.bySlot, engine.markEpoch);
    return reject('UNDERCOLLATERALIZED');
  }
  emitLeverage(engine, account, ms.spec.id, c.leverage, isolated, undefined, c.requestId);
  refreshTriggers(engine, account);
  return { kind: 'done', leverageStatus: 'APPLIED', leverage: c.leverage };
}

export function adjustIsolatedMargin(engine: Engine, c: AdjustIsolatedMarginCommand): CommandResult {
  if (typeof c.amount !== 'bigint' || c.amount === 0n) return invalid('InvalidRequest', 'amount must not be zero', 'amount');
  const ms = engine.markets.get(c.marketId);
  if (ms === undefined) return invalid('InvalidRequest', 'unknown market', 'marketId');
  const account = getAccount(engine, c.address, c.accountIndex);
  const am = account.markets[ms.slot];
  if (am === undefined || !am.isolated) return invalid('InvalidRequest', 'market is not in isolated mode for this account', 'marketId');
  if (c.amount > 0n) {
    if (withdrawable(engine, account) < c.amount) return { kind: 'done', rejectReason: 'UNDERCOLLATERALIZED' };
    account.quote -= c.amount;
    am.isolatedMargin += c.amount;
  } else {
    const take = -c.amount;
    // What stays must cover the position's initial margin after its unrealized PnL.
    const equityAfter = am.isolatedMargin - take + unrealized(am, marginPrice(ms), ms.spec.valueMul);
    if (am.isolatedMargin - take < 0n || equityAfter < (am.size === 0 ? 0n : positionInitialMargin(ms, am))) return { kind: 'done', rejectReason: 'UNDERCOLLATERALIZED' };
    am.isolatedMargin -= take;
    account.quote += take;
  }
  beginChange(account, am, engine.markEpoch);
  refreshActive(account, am);
  endChange(account, am, engine.bySlot, engine.markEpoch);
  emitPosition(engine, account, am, c.requestId);
  refreshTriggers(engine, account);
  return { kind: 'done' };
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
  for (const am of account.active) {
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
    netQuoteBalance: account.quote,
    equity: equity + accrued,
    freeCollateral: cross.equity + accrued - cross.initial > 0n ? cross.equity + accrued - cross.initial : 0n,
    netDeposits: account.netDeposits,
    initialMargin: cross.initial,
    maintenanceMargin: maintenance,
    accruedFunding: accrued,
  };
}

export { maintenanceMargin, unrealized };
