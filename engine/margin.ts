/**
 * Margin: what an account's positions and orders require, and what it has.
 *
 * Definitions (all quote quantums, bigint; docs/decisions.md):
 * - margin price of a market: its mark price, else its oracle price, else nothing (a position in
 *   a market with neither counts at its cost basis and requires nothing new);
 * - notional = |size| · price · valueMul; unrealized PnL = size · price · valueMul − cost;
 * - effective IMF = max(market IMF — or its off-hours IMF outside regular hours —, 1/leverage);
 * - initial margin of a market counts resting orders: IMF · price · max(|size + open buys|,
 *   |size − open sells|) (the worst position the orders could leave); maintenance margin is
 *   MMF · notional of the position alone;
 * - cross equity = quote + Σ unrealized PnL of cross positions; free collateral = cross equity
 *   − Σ cross initial margin; an isolated position stands alone with equity = its pool +
 *   its unrealized PnL;
 * - account equity (the account record's `equity`) = cross equity + Σ isolated equity.
 * Requirements round up, so margin is never understated.
 */
import { marketOf, quoteOf, type Account } from './account.ts';
import type { MarketSpec } from './market.ts';
import { AccountMarket, createAccountMarket } from './position.ts';
import {
  AW, CACHE_EPOCH, COST_F, EQ_F, findRow, IM_F, ISOLATED, LEVERAGE, LISTED, MM_F, OPEN_BUY, OPEN_ORDERS, OPEN_SELL, QUOTE_BASE_F, QUOTE_BASE_R, QUOTE_F, QUOTE_PENDING, QUOTE_PENDING_B, SIZE, SLOT,
  SUM_CHANGES, SUM_EPOCH, SUM_EQ, SUM_IM, SUM_MM, W,
} from './risk-table.ts';

/** What margin needs to know of a market (MarketState satisfies it). */
export interface PricedMarket {
  spec: MarketSpec;
  markPrice: number;
  oraclePrice: number;
  outsideRth: boolean;
  /** Bumped whenever the margin price or the off-hours state changes (float caches). */
  markEpoch: number;
}

const PPM = 1_000_000n;

export function marginPrice(m: PricedMarket): number {
  return m.markPrice > 0 ? m.markPrice : m.oraclePrice;
}

export function effectiveImfPpm(m: PricedMarket, am: AccountMarket): bigint {
  const base = m.outsideRth ? m.spec.offHoursImfPpm : m.spec.imfPpm;
  if (am.leverage <= 0) return base;
  const byLeverage = (PPM + BigInt(am.leverage) - 1n) / BigInt(am.leverage);
  return byLeverage > base ? byLeverage : base;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return a <= 0n ? 0n : (a + b - 1n) / b;
}

export function notional(size: number, price: number, valueMul: bigint): bigint {
  const s = BigInt(size < 0 ? -size : size);
  return s * BigInt(price) * valueMul;
}

export function unrealized(am: AccountMarket, price: number, valueMul: bigint): bigint {
  if (am.size === 0 || price <= 0) return 0n;
  return BigInt(am.size) * BigInt(price) * valueMul - am.cost;
}

/** Initial margin of one market with `extraBuy` / `extraSell` more quantums of orders. */
export function initialMargin(m: PricedMarket, am: AccountMarket, extraBuy: number, extraSell: number, fallbackPrice: number): bigint {
  const price = marginPrice(m) || fallbackPrice;
  if (price <= 0) return 0n;
  const long = Math.abs(am.size + am.openBuy + extraBuy);
  const short = Math.abs(am.size - am.openSell - extraSell);
  return ceilDiv(notional(long > short ? long : short, price, m.spec.valueMul) * effectiveImfPpm(m, am), PPM);
}

/** Initial margin of the position alone (what an isolated pool must hold). */
export function positionInitialMargin(m: PricedMarket, am: AccountMarket): bigint {
  const price = marginPrice(m);
  if (price <= 0 || am.size === 0) return 0n;
  return ceilDiv(notional(am.size, price, m.spec.valueMul) * effectiveImfPpm(m, am), PPM);
}

export function maintenanceMargin(m: PricedMarket, am: AccountMarket): bigint {
  const price = marginPrice(m);
  if (price <= 0 || am.size === 0) return 0n;
  return ceilDiv(notional(am.size, price, m.spec.valueMul) * m.spec.mmfPpm, PPM);
}

export interface CrossRisk {
  equity: bigint;
  initial: bigint;
  maintenance: bigint;
}

/**
 * The cross side of an account; `extra` adds hypothetical orders in one market (the
 * pre-trade check) without touching state.
 */
export function crossRisk(account: Account, markets: readonly PricedMarket[], extra?: { slot: number; buy: number; sell: number; price: number }): CrossRisk {
  let equity = quoteOf(account);
  let initial = 0n;
  let maintenance = 0n;
  let extraDone = extra === undefined;
  const active = account.active;
  for (let i = 0; i < active.length; i++) {
    const am = new AccountMarket(account.table, active[i]!);
    const m = markets[am.slot]!;
    if (am.isolated) {
      // The pool holds the position's margin; its orders reserve cross collateral.
      const extraHere = extra !== undefined && extra.slot === am.slot;
      if (am.openOrders > 0 || extraHere) {
        initial += initialMargin(m, am, extraHere ? extra.buy : 0, extraHere ? extra.sell : 0, extraHere ? extra.price : 0) - positionInitialMargin(m, am);
      }
      if (extraHere) extraDone = true;
      continue;
    }
    equity += unrealized(am, marginPrice(m), m.spec.valueMul);
    if (extra !== undefined && extra.slot === am.slot) {
      initial += initialMargin(m, am, extra.buy, extra.sell, extra.price);
      extraDone = true;
    } else {
      initial += initialMargin(m, am, 0, 0, 0);
    }
    maintenance += maintenanceMargin(m, am);
  }
  if (!extraDone) {
    const am = marketOf(account, extra!.slot) ?? EMPTY;
    initial += initialMargin(markets[extra!.slot]!, am, extra!.buy, extra!.sell, extra!.price);
  }
  return { equity, initial, maintenance };
}

/** An isolated position's own equity and requirements. */
export function isolatedRisk(m: PricedMarket, am: AccountMarket): CrossRisk {
  return {
    equity: am.isolatedMargin + unrealized(am, marginPrice(m), m.spec.valueMul),
    initial: initialMargin(m, am, 0, 0, 0),
    maintenance: maintenanceMargin(m, am),
  };
}

/** Account equity as the account record reports it (cross + isolated). */
export function accountEquity(account: Account, markets: readonly PricedMarket[]): bigint {
  let equity = crossRisk(account, markets).equity;
  for (const row of account.active) {
    const am = new AccountMarket(account.table, row);
    if (am.isolated) equity += isolatedRisk(markets[am.slot]!, am).equity;
  }
  return equity;
}

// ---------------------------------------------------------------------------------------------
// The same sums in floating point, for the hot path: callers decide with them only when the
// answer is far from the threshold (`clearly`), and fall back to the exact bigint sums otherwise.

export interface CrossRiskF {
  equity: number;
  initial: number;
  maintenance: number;
}

/** initialMargin in floats, of row `o` (an offset into `r`; -1: a market never touched). */
function initialMarginF(m: PricedMarket, r: Float64Array, o: number, extraBuy: number, extraSell: number, fallbackPrice: number): number {
  const price = marginPrice(m) || fallbackPrice;
  if (price <= 0) return 0;
  const size = o < 0 ? 0 : r[o + SIZE]!;
  const long = Math.abs(size + (o < 0 ? 0 : r[o + OPEN_BUY]!) + extraBuy);
  const short = Math.abs(size - (o < 0 ? 0 : r[o + OPEN_SELL]!) - extraSell);
  return (long > short ? long : short) * price * m.spec.valueMulF * effectiveImfF(m, o < 0 ? 0 : r[o + LEVERAGE]!);
}

function effectiveImfF(m: PricedMarket, leverage: number): number {
  const base = (m.outsideRth ? m.spec.offHoursImfF : m.spec.imfF);
  if (leverage <= 0) return base;
  const byLeverage = 1 / leverage;
  return byLeverage > base ? byLeverage : base;
}

/**
 * The cross side in floats. An account keeps the sums of its markets' cached contributions
 * (SUM_EQ, SUM_IM, SUM_MM in the risk table), valid while no mark has moved anywhere since
 * (SUM_EPOCH, the engine's global mark epoch): then this is O(1) however many markets the
 * account trades; otherwise it walks the active rows once and refreshes the sums. Callers that
 * change a row bracket the change with `beginChange` / `endChange` so the sums stay true.
 * `extraSlot` ≥ 0 adds hypothetical orders in one market, as crossRisk's `extra` does. The
 * result is a shared scratch object, valid until the next call.
 */
export function crossRiskF(account: Account, markets: readonly PricedMarket[], epoch: number, extraSlot = -1, extraBuy = 0, extraSell = 0, extraPrice = 0): CrossRiskF {
  const t = account.table;
  const r = t.rows;
  const sums = t.accountSums;
  const a = account.id * AW;
  if (sums[a + SUM_EPOCH] !== epoch) {
    let eq = 0;
    let im = 0;
    let mm = 0;
    const active = account.active;
    for (let i = 0; i < active.length; i++) {
      const o = active[i]! * W;
      const m = markets[r[o + SLOT]!]!;
      if (r[o + CACHE_EPOCH] !== m.markEpoch) cacheContribution(m, r, o);
      eq += r[o + EQ_F]!;
      im += r[o + IM_F]!;
      mm += r[o + MM_F]!;
    }
    sums[a + SUM_EQ] = eq;
    sums[a + SUM_IM] = im;
    sums[a + SUM_MM] = mm;
    sums[a + SUM_EPOCH] = epoch;
  }
  let initial = sums[a + SUM_IM]!;
  if (extraSlot >= 0) {
    const m = markets[extraSlot]!;
    const row = findRow(t, account.id, extraSlot);
    const o = row < 0 ? -1 : row * W;
    const withExtra = initialMarginF(m, r, o, extraBuy, extraSell, extraPrice);
    const isolated = o >= 0 && r[o + ISOLATED] === 1;
    const ordersOnly = isolated ? withExtra - Math.abs(r[o + SIZE]!) * marginPrice(m) * m.spec.valueMulF * effectiveImfF(m, r[o + LEVERAGE]!) : withExtra;
    initial += ordersOnly - (o >= 0 && r[o + LISTED] === 1 ? r[o + IM_F]! : 0);
  }
  // Comparing the bigint with the one last converted is a pointer check while the balance has
  // not changed, which spares reading the bigint itself (a cache miss on a cold account).
  // Fills change only the pending double: then the total is the converted bigint plus it,
  // without a bigint operation while both stay exact.
  if (account.quoteB !== account.quote) {
    account.quoteB = account.quote;
    convertBase(sums, a, account.quote);
  }
  if (sums[a + QUOTE_PENDING_B] !== sums[a + QUOTE_PENDING]) convertBalance(sums, a, account.quote);
  const out = SCRATCH_F;
  out.equity = sums[a + QUOTE_F]! + sums[a + SUM_EQ]!;
  out.initial = initial;
  out.maintenance = sums[a + SUM_MM]!;
  return out;
}

/**
 * After `quote` changed: its nearest double and the residual (risk-table.ts QUOTE_BASE_R), and
 * QUOTE_PENDING_B cleared so that QUOTE_F is converted again.
 */
function convertBase(sums: Float64Array, a: number, quote: bigint): void {
  const base = Number(quote);
  sums[a + QUOTE_BASE_F] = base;
  let residual = NaN;
  if (base < Infinity && base > -Infinity) {
    residual = Number(quote - BigInt(base));
    if (!(residual <= RESIDUAL_MAX && residual >= -RESIDUAL_MAX)) residual = NaN;
  }
  sums[a + QUOTE_BASE_R] = residual;
  sums[a + QUOTE_PENDING_B] = NaN;
}

const RESIDUAL_MAX = 2 ** 51;

/**
 * Sets QUOTE_F to `Number(quote + BigInt(pending))`, the balance as the nearest double: the base
 * double plus the exact sum of residual and pending (|residual| ≤ 2^51, |pending| < 2^52: exact),
 * one correctly rounded addition, as `Number` rounds; the bigint sum only when the residual is
 * not exact. It writes the sums rather than returning the double: a double returned by a call V8
 * does not inline is a heap number per call.
 */
function convertBalance(sums: Float64Array, a: number, quote: bigint): void {
  const pending = sums[a + QUOTE_PENDING]!;
  sums[a + QUOTE_PENDING_B] = pending;
  const residual = sums[a + QUOTE_BASE_R]!;
  if (residual === residual) sums[a + QUOTE_F] = sums[a + QUOTE_BASE_F]! + (residual + pending);
  else sums[a + QUOTE_F] = Number(quote + BigInt(pending));
}


/**
 * crossRiskF's one result object, overwritten by every call: the hot path reads it at once, and
 * a fresh object per margin check was a measurable share of the engine's garbage.
 */
const SCRATCH_F: CrossRiskF = { equity: 0, initial: 0, maintenance: 0 };

/** Before changing row `row`: takes its contribution out of the account's float sums. */
export function beginChange(account: Account, row: number, epoch: number): void {
  const t = account.table;
  const sums = t.accountSums;
  const a = account.id * AW;
  // Running sums drift by a rounding per change; rebuild them now and then.
  if (++sums[a + SUM_CHANGES]! > 1000) {
    sums[a + SUM_CHANGES] = 0;
    sums[a + SUM_EPOCH] = -1;
  }
  const r = t.rows;
  const o = row * W;
  if (sums[a + SUM_EPOCH] === epoch && r[o + LISTED] === 1) {
    sums[a + SUM_EQ] = sums[a + SUM_EQ]! - r[o + EQ_F]!;
    sums[a + SUM_IM] = sums[a + SUM_IM]! - r[o + IM_F]!;
    sums[a + SUM_MM] = sums[a + SUM_MM]! - r[o + MM_F]!;
  }
}

/** After changing row `row` (and refreshing its `listed` flag): puts its new contribution back. */
export function endChange(account: Account, row: number, markets: readonly PricedMarket[], epoch: number): void {
  const t = account.table;
  const r = t.rows;
  const o = row * W;
  r[o + CACHE_EPOCH] = -1;
  const sums = t.accountSums;
  const a = account.id * AW;
  if (sums[a + SUM_EPOCH] !== epoch) return;
  if (r[o + LISTED] === 1) {
    cacheContribution(markets[r[o + SLOT]!]!, r, o);
    sums[a + SUM_EQ] = sums[a + SUM_EQ]! + r[o + EQ_F]!;
    sums[a + SUM_IM] = sums[a + SUM_IM]! + r[o + IM_F]!;
    sums[a + SUM_MM] = sums[a + SUM_MM]! + r[o + MM_F]!;
  }
}

/** Fills a row's float cross contributions at its market's current prices. */
function cacheContribution(m: PricedMarket, r: Float64Array, o: number): void {
  const price = marginPrice(m);
  const size = r[o + SIZE]!;
  if (r[o + ISOLATED] === 1) {
    // Only the orders of an isolated market draw on cross collateral.
    r[o + EQ_F] = 0;
    r[o + MM_F] = 0;
    r[o + IM_F] = r[o + OPEN_ORDERS]! > 0 ? initialMarginF(m, r, o, 0, 0, 0) - Math.abs(size) * price * m.spec.valueMulF * effectiveImfF(m, r[o + LEVERAGE]!) : 0;
  } else {
    const live = size !== 0 && price > 0;
    r[o + EQ_F] = live ? size * price * m.spec.valueMulF - r[o + COST_F]! : 0;
    r[o + MM_F] = live ? Math.abs(size) * price * m.spec.valueMulF * m.spec.mmfF : 0;
    r[o + IM_F] = initialMarginF(m, r, o, 0, 0, 0);
  }
  r[o + CACHE_EPOCH] = m.markEpoch;
}

/**
 * True when `a − b` is positive beyond any rounding the float sums can carry (relative 1e-9
 * of the magnitudes involved plus one USD); false means "ask the exact sums".
 */
export function clearlyAbove(a: number, b: number): boolean {
  return a - b > (Math.abs(a) + Math.abs(b)) * 1e-9 + 1e9;
}

/** An account's record for a market it never touched: no position, no orders, defaults. */
const EMPTY: AccountMarket = createAccountMarket(0, -1);
