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
import type { Account } from './account.ts';
import type { MarketSpec } from './market.ts';
import { createAccountMarket, type AccountMarket } from './position.ts';

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
  let equity = account.quote;
  let initial = 0n;
  let maintenance = 0n;
  let extraDone = extra === undefined;
  const active = account.active;
  for (let i = 0; i < active.length; i++) {
    const am = active[i]!;
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
    const am = account.markets[extra!.slot] ?? EMPTY;
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
  for (const am of account.active) if (am.isolated) equity += isolatedRisk(markets[am.slot]!, am).equity;
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

function initialMarginF(m: PricedMarket, am: AccountMarket, extraBuy: number, extraSell: number, fallbackPrice: number): number {
  const price = marginPrice(m) || fallbackPrice;
  if (price <= 0) return 0;
  const long = Math.abs(am.size + am.openBuy + extraBuy);
  const short = Math.abs(am.size - am.openSell - extraSell);
  return (long > short ? long : short) * price * m.spec.valueMulF * effectiveImfF(m, am);
}

function effectiveImfF(m: PricedMarket, am: AccountMarket): number {
  const base = (m.outsideRth ? m.spec.offHoursImfF : m.spec.imfF);
  if (am.leverage <= 0) return base;
  const byLeverage = 1 / am.leverage;
  return byLeverage > base ? byLeverage : base;
}

/**
 * The cross side in floats. An account keeps the sums of its markets' cached contributions
 * (`sumEq`, `sumIm`, `sumMm`), valid while no mark has moved anywhere since (`sumEpoch`, the engine's global mark
 * epoch): then this is O(1) however many markets the account trades; otherwise it walks the
 * active markets once and refreshes the sums. Callers that change an AccountMarket bracket the
 * change with `beginChange` / `endChange` so the sums stay true. `extraSlot` ≥ 0 adds
 * hypothetical orders in one market, as crossRisk's `extra` does. The result is a shared scratch
 * object, valid until the next call.
 */
export function crossRiskF(account: Account, markets: readonly PricedMarket[], epoch: number, extraSlot = -1, extraBuy = 0, extraSell = 0, extraPrice = 0): CrossRiskF {
  if (account.sumEpoch !== epoch) {
    let eq = 0;
    let im = 0;
    let mm = 0;
    const active = account.active;
    for (let i = 0; i < active.length; i++) {
      const am = active[i]!;
      const m = markets[am.slot]!;
      if (am.cacheEpoch !== m.markEpoch) cacheContribution(m, am);
      eq += am.eqF;
      im += am.imF;
      mm += am.mmF;
    }
    account.sumEq = eq;
    account.sumIm = im;
    account.sumMm = mm;
    account.sumEpoch = epoch;
  }
  let initial = account.sumIm;
  if (extraSlot >= 0) {
    const m = markets[extraSlot]!;
    const am = account.markets[extraSlot] ?? EMPTY;
    const withExtra = initialMarginF(m, am, extraBuy, extraSell, extraPrice);
    const ordersOnly = am.isolated ? withExtra - Math.abs(am.size) * marginPrice(m) * m.spec.valueMulF * effectiveImfF(m, am) : withExtra;
    initial += ordersOnly - (am.listed ? am.imF : 0);
  }
  // Comparing the bigint with the one last converted is a pointer check while the balance has
  // not changed, which spares reading the bigint itself (a cache miss on a cold account).
  if (account.quoteB !== account.quote) {
    account.quoteB = account.quote;
    account.quoteF = Number(account.quote);
  }
  const out = SCRATCH_F;
  out.equity = account.quoteF + account.sumEq;
  out.initial = initial;
  out.maintenance = account.sumMm;
  return out;
}

/**
 * crossRiskF's one result object, overwritten by every call: the hot path reads it at once, and
 * a fresh object per margin check was a measurable share of the engine's garbage.
 */
const SCRATCH_F: CrossRiskF = { equity: 0, initial: 0, maintenance: 0 };

/** Before changing `am`: takes its contribution out of the account's float sums. */
export function beginChange(account: Account, am: AccountMarket, epoch: number): void {
  // Running sums drift by a rounding per change; rebuild them now and then.
  if (++account.sumChanges > 1000) {
    account.sumChanges = 0;
    account.sumEpoch = -1;
  }
  if (account.sumEpoch === epoch && am.listed) {
    account.sumEq -= am.eqF;
    account.sumIm -= am.imF;
    account.sumMm -= am.mmF;
  }
}

/** After changing `am` (and refreshing `listed`): puts its new contribution back. */
export function endChange(account: Account, am: AccountMarket, markets: readonly PricedMarket[], epoch: number): void {
  am.cacheEpoch = -1;
  if (account.sumEpoch !== epoch) return;
  if (am.listed) {
    cacheContribution(markets[am.slot]!, am);
    account.sumEq += am.eqF;
    account.sumIm += am.imF;
    account.sumMm += am.mmF;
  }
}

/** Fills an AccountMarket's float cross contributions at its market's current prices. */
function cacheContribution(m: PricedMarket, am: AccountMarket): void {
  const price = marginPrice(m);
  if (am.isolated) {
    // Only the orders of an isolated market draw on cross collateral.
    am.eqF = 0;
    am.mmF = 0;
    am.imF = am.openOrders > 0 ? initialMarginF(m, am, 0, 0, 0) - Math.abs(am.size) * price * m.spec.valueMulF * effectiveImfF(m, am) : 0;
  } else {
    const live = am.size !== 0 && price > 0;
    am.eqF = live ? am.size * price * m.spec.valueMulF - am.costF : 0;
    am.mmF = live ? Math.abs(am.size) * price * m.spec.valueMulF * m.spec.mmfF : 0;
    am.imF = initialMarginF(m, am, 0, 0, 0);
  }
  am.cacheEpoch = m.markEpoch;
}

/**
 * True when `a − b` is positive beyond any rounding the float sums can carry (relative 1e-9
 * of the magnitudes involved plus one USD); false means "ask the exact sums".
 */
export function clearlyAbove(a: number, b: number): boolean {
  return a - b > (Math.abs(a) + Math.abs(b)) * 1e-9 + 1e9;
}

/** An account's record for a market it never touched: no position, no orders, defaults. */
const EMPTY: AccountMarket = createAccountMarket(-1, -1);
