/**
 * Liquidation and auto-deleveraging.
 *
 * When an account's cross side (or one isolated position) is below maintenance margin:
 * 1. a LIQUIDATION event; its open orders in scope are canceled (MARGIN_CANCELED);
 * 2. each position in scope, largest notional first, is closed through the book by a
 *    liquidation order: IOC, reduce-only, limited to the price at which the account's equity
 *    plus the insurance fund would be used up (so a deficit never exceeds what the fund holds);
 *    its fills carry liquidation {method: MARKET, liquidatedUser} and it ends LIQUIDATED;
 * 3. what the book cannot absorb is closed by ADL against the most profitable opposite
 *    positions (ranked by unrealized PnL over cost basis, then account id), at the bankruptcy
 *    price — the price that leaves the account's equity at zero — or, for an account already
 *    under water at the mark, at the mark with the fund covering the deficit (at the price where
 *    the fund runs out if it cannot); both sides' orders end ADL, counterparties get an ADL
 *    event and are re-checked before the command ends;
 * 4. what is left: a surplus pays the insurance fund a penalty (`liquidationPenaltyPpm` of the
 *    closed notional, at most the surplus) and the rest stays with the account; a deficit is
 *    covered by the fund.
 * Isolated positions liquidate alone, against their own pool.
 */
import { accountMarket, activeMarkets, quoteOf, rollingVolume, type Account } from './account.ts';
import { emitAdl, emitFill, emitLiquidation, emitOrder, emitPosition } from './emit.ts';
import { tierFor } from './fees.ts';
import { crossedTriggers, compactTriggers } from './liquidation-index.ts';
import { crossRisk, isolatedRisk, marginPrice, notional, unrealized, type CrossRisk } from './margin.ts';
import type { Order } from './order.ts';
import { AccountMarket } from './position.ts';
import { findRow, TRIGGER_VERSION, W } from './risk-table.ts';
import { createSettled, dropTrigger, queueRisk, refreshTriggers, settleFill } from './risk.ts';
import type { Engine, MarketState } from './state.ts';
import { cancelScopeWith, newInternalOrder, runLiquidationOrder } from './lifecycle.ts';

/** After a mark moved: re-evaluates the accounts whose triggers it crossed. */
export function checkLiquidations(engine: Engine, ms: MarketState): void {
  const t = engine.accounts.table;
  const isCurrent = (id: number, version: number): boolean => {
    const row = findRow(t, id, ms.slot);
    return row >= 0 && t.rows[row * W + TRIGGER_VERSION] === version;
  };
  const ids = crossedTriggers(ms.triggers, ms.markPrice, isCurrent);
  for (const id of ids) {
    const account = engine.accounts.all[id]!;
    dropTrigger(t, findRow(t, id, ms.slot));
    if (refreshTriggers(engine, account)) liquidate(engine, account);
  }
  compactTriggers(ms.triggers, ms.holders.size, isCurrent);
}

/** Liquidates whatever of the account is below maintenance now. */
export function liquidate(engine: Engine, account: Account): void {
  const cross = crossRisk(account, engine.bySlot);
  const crossPositions = activeMarkets(account).filter((am) => !am.isolated && am.size !== 0);
  if (crossPositions.length > 0 && cross.equity < cross.maintenance) liquidateScope(engine, account, undefined, cross);
  for (const am of activeMarkets(account)) {
    if (!am.isolated || am.size === 0) continue;
    const iso = isolatedRisk(engine.bySlot[am.slot]!, am);
    if (iso.equity < iso.maintenance) liquidateScope(engine, account, am, iso);
  }
  refreshTriggers(engine, account);
}

/** Liquidates every scope of the account that holds a position, healthy or not. */
export function forceLiquidate(engine: Engine, account: Account): void {
  if (activeMarkets(account).some((am) => !am.isolated && am.size !== 0)) liquidateScope(engine, account, undefined, crossRisk(account, engine.bySlot));
  for (const am of activeMarkets(account)) {
    if (am.isolated && am.size !== 0) liquidateScope(engine, account, am, isolatedRisk(engine.bySlot[am.slot]!, am));
  }
  refreshTriggers(engine, account);
}

function scopeRisk(engine: Engine, account: Account, isolated: AccountMarket | undefined): CrossRisk {
  return isolated === undefined ? crossRisk(account, engine.bySlot) : isolatedRisk(engine.bySlot[isolated.slot]!, isolated);
}

function liquidateScope(engine: Engine, account: Account, isolated: AccountMarket | undefined, risk: CrossRisk): void {
  emitLiquidation(engine, account, isolated?.marketId, risk.equity, risk.maintenance);
  cancelScopeWith(engine, account, isolated?.marketId, 'MARGIN_CANCELED');
  const positions = isolated !== undefined ? [isolated] : activeMarkets(account).filter((am) => !am.isolated && am.size !== 0);
  const byNotional = positions
    .map((am) => ({ am, value: notional(am.size, marginPrice(engine.bySlot[am.slot]!), engine.bySlot[am.slot]!.spec.valueMul) }))
    .sort((a, b) => (a.value > b.value ? -1 : a.value < b.value ? 1 : a.am.slot - b.am.slot));
  let closedNotional = 0n;
  const quoteBefore = quoteOf(account);
  for (const { am, value } of byNotional) {
    if (am.size === 0) continue;
    closePosition(engine, account, engine.bySlot[am.slot]!, am, isolated);
    closedNotional += value;
  }
  // What is left of the scope: the whole cross balance, or what the isolated pool released.
  const left = isolated === undefined ? quoteOf(account) : quoteOf(account) - quoteBefore;
  if (left > 0n) {
    // A surplus pays the fund its penalty; the rest stays with the account.
    const cap = (closedNotional * engine.risk.liquidationPenaltyPpm) / 1_000_000n;
    const penalty = left < cap ? left : cap;
    account.quote -= penalty;
    engine.insuranceFund += penalty;
  } else if (left < 0n) {
    // A deficit is covered by the fund, as far as it goes.
    const cover = -left < engine.insuranceFund ? -left : engine.insuranceFund;
    account.quote += cover;
    engine.insuranceFund -= cover;
  }
}

/** The price at which closing the whole position leaves scope equity at −`reserve`. */
function boundPrice(engine: Engine, account: Account, ms: MarketState, am: AccountMarket, isolated: AccountMarket | undefined, reserve: bigint): number {
  const equity = scopeRisk(engine, account, isolated).equity;
  const price = marginPrice(ms);
  const long = am.size > 0;
  const abs = Math.abs(am.size);
  const f = tierFor(engine.risk.feeTiers, rollingVolume(account, engine.time)).takerFeePpm / 1e6;
  const perTick = abs * Number(ms.spec.valueMul);
  const room = Number(equity + reserve) / perTick;
  if (long) return Math.max(1, Math.ceil((price - room) / (1 - f)));
  return Math.max(1, Math.floor((price + room) / (1 + f)));
}

function closePosition(engine: Engine, account: Account, ms: MarketState, am: AccountMarket, isolated: AccountMarket | undefined): void {
  const side = am.size > 0 ? 1 : 0;
  const limit = boundPrice(engine, account, ms, am, isolated, engine.insuranceFund);
  const order = newInternalOrder(engine, account, ms, side, limit, Math.abs(am.size), 'LIQUIDATION');
  engine.scratch.liquidating = { method: 'MARKET', liquidatedUser: account.address };
  runLiquidationOrder(engine, ms, order);
  engine.scratch.liquidating = undefined;
  if (am.size !== 0) deleverage(engine, account, ms, am, isolated);
}

/** Closes what is left of a position against the most profitable opposite positions. */
function deleverage(engine: Engine, account: Account, ms: MarketState, am: AccountMarket, isolated: AccountMarket | undefined): void {
  const long = am.size > 0;
  const mark = marginPrice(ms);
  // At the bankruptcy price when the account still has equity at the mark; past that, at the
  // mark with the fund covering the deficit, and beyond what the fund can cover, at the price
  // where the fund runs out (the counterparties take the rest).
  const bankruptcy = boundPrice(engine, account, ms, am, isolated, 0n);
  const fundLimit = boundPrice(engine, account, ms, am, isolated, engine.insuranceFund);
  const price = long
    ? bankruptcy <= mark ? bankruptcy : Math.max(fundLimit, mark)
    : bankruptcy >= mark ? bankruptcy : Math.min(fundLimit, mark);
  const ranked: { other: Account; am: AccountMarket; score: number }[] = [];
  for (const other of ms.holders) {
    const theirs = new AccountMarket(other.table, findRow(other.table, other.id, ms.slot));
    if (other === account || (theirs.size > 0) === long) continue;
    const pnl = Number(unrealized(theirs, mark, ms.spec.valueMul));
    const basis = Number(theirs.cost < 0n ? -theirs.cost : theirs.cost) || 1;
    ranked.push({ other, am: theirs, score: pnl / basis });
  }
  ranked.sort((a, b) => b.score - a.score || a.other.id - b.other.id);
  const liquidatedUser = account.address;
  engine.scratch.liquidating = { method: 'ADL', liquidatedUser };
  const mine = newInternalOrder(engine, account, ms, long ? 1 : 0, price, Math.abs(am.size), 'ADL');
  for (const { other, am: theirs } of ranked) {
    if (am.size === 0) break;
    const qty = Math.min(Math.abs(am.size), Math.abs(theirs.size));
    const counter = newInternalOrder(engine, other, ms, long ? 0 : 1, price, qty, 'ADL');
    adlFill(engine, ms, mine, counter, price, qty);
    counter.status = 'ADL';
    emitOrder(engine, counter);
    emitAdl(engine, other, ms.spec.id, qty, price, liquidatedUser);
    emitPosition(engine, other, theirs);
    // A counterparty the ADL price took below maintenance is liquidated in this command too.
    queueRisk(engine, other);
  }
  mine.status = 'ADL';
  emitOrder(engine, mine);
  engine.scratch.liquidating = undefined;
  emitPosition(engine, account, accountMarket(account, ms.slot));
}

function adlFill(engine: Engine, ms: MarketState, liquidated: Order, counter: Order, price: number, qty: number): void {
  const tradeId = engine.nextTradeId++;
  const settled = createSettled();
  for (const order of [counter, liquidated]) {
    settleFill(engine, order.account, ms, order.side, qty, price, 'ADL', settled);
    order.remaining -= qty;
    order.filled += qty;
    order.filledValue += price * qty;
    emitFill(engine, ms, order, tradeId, price, qty, order === counter ? 'MAKER' : 'TAKER', settled);
  }
}
