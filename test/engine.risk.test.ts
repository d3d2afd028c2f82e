/**
 * Scenario tests of issue 3, perpetual risk: money in and out, positions and PnL, fees, margin
 * and leverage, margin cancels, funding, interest, liquidation and ADL. One `describe` per rule;
 * test names quote the rule.
 *
 * Units (testMarket()): price 1000 ticks = 100.0 USD, size 1000 quantums = 1 unit, and a fill's
 * value in quote quantums (1e9 = 1 USD) is price · size · 100_000 (`value` below). Most tests
 * use `harness({ fund: false })` so that each account holds only what the test deposits.
 *
 * Engine bugs found while writing these are kept at the bottom as regressions.
 */
import { quoteOf } from '../engine/account.ts';
import { marketOf } from '../engine/account.ts';
import { describe, expect, it } from 'vitest';
import { lifetimeFeesPaid, lifetimeVolume } from '../engine/account.ts';
import type { Engine } from '../engine/engine.ts';
import { crossRisk, isolatedRisk } from '../engine/margin.ts';
import type { EngineEvent, FeeTier, FillEvent, OrderEvent } from '../engine/types.ts';
import { ALICE, BOB, CAROL, DAVE, DAY_US, harness, idOf, testMarket, type Harness } from './support/engine-fixture.ts';

const USD = 1_000_000_000n;
const VALUE_MUL = 100_000n;
const HOUR_US = 3_600_000_000;
const IOC = 2;
const TWO = testMarket({ id: 2, displayName: 'TWO-USD', baseAsset: 'TWO' });

type Ev<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

function ofType<T extends EngineEvent['type']>(events: EngineEvent[], type: T): Ev<T>[] {
  return events.filter((e): e is Ev<T> => e.type === type);
}

function account(h: Harness, address: string, index = 0): NonNullable<ReturnType<Engine['accounts']['get']>> {
  const a = h.engine.accounts.get(address + '/' + index);
  if (a === undefined) throw new Error(`no account ${address}/${index}`);
  return a;
}

function position(h: Harness, address: string, marketId = 1, index = 0): { size: number; cost: bigint; isolatedMargin: bigint } {
  const slot = h.engine.markets.get(marketId)!.slot;
  const am = marketOf(account(h, address, index), slot);
  return { size: am?.size ?? 0, cost: am?.cost ?? 0n, isolatedMargin: am?.isolatedMargin ?? 0n };
}

function deposit(h: Harness, address: string, usd: bigint, accountIndex = 0): void {
  h.run({ type: 'deposit', address, accountIndex, amount: usd * USD });
}

/** A fill's value in quote quantums. */
function value(price: number, size: number): bigint {
  return BigInt(price) * BigInt(size) * VALUE_MUL;
}

/** A charged fee: ppm of value, rounded up. */
function feeUp(v: bigint, ppm: bigint): bigint {
  return (v * ppm + 999_999n) / 1_000_000n;
}

/** `maker` rests an ask; `taker` lifts it with an IOC buy. Returns the events of the buy. */
function buyFrom(h: Harness, taker: string, maker: string, price: number, size: number, marketId = 1): EngineEvent[] {
  h.place({ address: maker, side: 1, price, size, marketId });
  h.take();
  h.place({ address: taker, side: 0, price, size, tif: IOC, marketId });
  return h.take();
}

/** `maker` rests a bid; `taker` hits it with an IOC sell. Returns the events of the sell. */
function sellTo(h: Harness, taker: string, maker: string, price: number, size: number, marketId = 1): EngineEvent[] {
  h.place({ address: maker, side: 0, price, size, marketId });
  h.take();
  h.place({ address: taker, side: 1, price, size, tif: IOC, marketId });
  return h.take();
}

function fillOf(events: EngineEvent[], address: string): FillEvent {
  const f = ofType(events, 'fill').filter((e) => e.address === address);
  expect(f).toHaveLength(1);
  return f[0]!;
}

// ---------------------------------------------------------------------------------------------

describe('deposits: a deposit credits netQuoteBalance and emits a COMPLETED transfer event; an account that never had a deposit is not activated', () => {
  it('emits transfer {kind: deposit, amount, netQuoteBalance, operationId} and raises quote, netDeposits and engine.deposited', () => {
    const h = harness({ fund: false });
    const r1 = h.run({ type: 'deposit', address: ALICE, accountIndex: 0, amount: 25n * USD });
    const r2 = h.run({ type: 'deposit', address: ALICE, accountIndex: 0, amount: 5n * USD });
    expect(r1).toMatchObject({ kind: 'transfer', transferStatus: 'COMPLETED' });
    expect(r2).toMatchObject({ kind: 'transfer', transferStatus: 'COMPLETED' });
    const transfers = ofType(h.take(), 'transfer');
    expect(transfers.map((t) => ({ kind: t.kind, amount: t.amount, netQuoteBalance: t.netQuoteBalance, status: t.status, operationId: t.operationId }))).toEqual([
      { kind: 'deposit', amount: 25n * USD, netQuoteBalance: 25n * USD, status: 'COMPLETED', operationId: (r1 as { operationId: number }).operationId },
      { kind: 'deposit', amount: 5n * USD, netQuoteBalance: 30n * USD, status: 'COMPLETED', operationId: (r2 as { operationId: number }).operationId },
    ]);
    expect(transfers[1]!.operationId).toBeGreaterThan(transfers[0]!.operationId);
    const a = account(h, ALICE);
    expect(quoteOf(a)).toBe(30n * USD);
    expect(a.netDeposits).toBe(30n * USD);
    expect(a.activated).toBe(true);
    expect(h.engine.deposited).toBe(30n * USD);
  });

  it('an account that never had a deposit is not activated (even after it placed orders)', () => {
    const h = harness({ fund: false });
    expect(h.engine.accounts.get(BOB + '/0')?.activated ?? false).toBe(false);
    h.place({ address: BOB, side: 0, price: 990, size: 100 });
    expect(h.engine.accounts.get(BOB + '/0')?.activated).toBe(false);
  });

  it('a zero or negative amount is invalid and changes nothing', () => {
    const h = harness({ fund: false });
    expect(h.run({ type: 'deposit', address: ALICE, accountIndex: 0, amount: 0n })).toMatchObject({ kind: 'invalid', field: 'amount' });
    expect(h.run({ type: 'deposit', address: ALICE, accountIndex: 0, amount: -1n })).toMatchObject({ kind: 'invalid', field: 'amount' });
    expect(h.take()).toEqual([]);
    expect(h.engine.deposited).toBe(0n);
  });
});

describe('withdrawals: at least 1 USD, nonce single-use per wallet, no more than free collateral (and the quote balance)', () => {
  it('a withdrawal below 1 USD is invalid; exactly 1 USD completes', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    h.take();
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: USD - 1n, nonce: 'w0' })).toMatchObject({ kind: 'invalid', field: 'amount' });
    expect(h.take()).toEqual([]);
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: USD, nonce: 'w1' })).toMatchObject({ kind: 'transfer', transferStatus: 'COMPLETED' });
  });

  it('a successful withdrawal lowers quote and netDeposits and emits a COMPLETED withdrawal event', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    h.take();
    const r = h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: 4n * USD, nonce: 'w1' });
    expect(r).toMatchObject({ kind: 'transfer', transferStatus: 'COMPLETED' });
    const [t] = ofType(h.take(), 'transfer');
    expect(t).toMatchObject({ kind: 'withdrawal', amount: 4n * USD, netQuoteBalance: 6n * USD, status: 'COMPLETED', operationId: (r as { operationId: number }).operationId });
    const a = account(h, ALICE);
    expect(quoteOf(a)).toBe(6n * USD);
    expect(a.netDeposits).toBe(6n * USD);
    expect(h.engine.withdrawn).toBe(4n * USD);
  });

  it('a nonce is single-use per wallet: its second use is a conflict, whatever the subaccount or operation; another wallet may use it', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, ALICE, 10n, 1);
    deposit(h, BOB, 10n);
    h.take();
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: USD, nonce: 'n1' })).toMatchObject({ transferStatus: 'COMPLETED' });
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: USD, nonce: 'n1' })).toMatchObject({ kind: 'conflict' });
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 1, amount: USD, nonce: 'n1' })).toMatchObject({ kind: 'conflict' });
    expect(h.run({ type: 'transfer', address: ALICE, fromAccountIndex: 0, toAccountIndex: 1, amount: USD, nonce: 'n1' })).toMatchObject({ kind: 'conflict' });
    expect(ofType(h.take(), 'transfer')).toHaveLength(1);
    expect(h.run({ type: 'withdraw', address: BOB, accountIndex: 0, amount: USD, nonce: 'n1' })).toMatchObject({ transferStatus: 'COMPLETED' });
  });

  it('a nonce spent on a REJECTED withdrawal stays spent', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 2n);
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: 5n * USD, nonce: 'n' })).toMatchObject({ transferStatus: 'REJECTED' });
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: USD, nonce: 'n' })).toMatchObject({ kind: 'conflict' });
  });

  it('insufficient free collateral: a REJECTED withdrawal event (INSUFFICIENT_FREE_COLLATERAL), result transferStatus REJECTED, nothing moves', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, BOB, 1000n);
    buyFrom(h, ALICE, BOB, 1000, 1000); // long 1 @ 100: initial margin 5, fee 0.045
    const before = quoteOf(account(h, ALICE));
    expect(before).toBe(10n * USD - 45_000_000n);
    // Free collateral = 9.955 - 5 = 4.955 USD.
    const r = h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: 5n * USD, nonce: 'w' });
    expect(r).toMatchObject({ kind: 'transfer', transferStatus: 'REJECTED', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL' });
    const [t] = ofType(h.take(), 'transfer');
    expect(t).toMatchObject({ kind: 'withdrawal', status: 'REJECTED', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL', amount: 5n * USD, netQuoteBalance: before });
    expect(quoteOf(account(h, ALICE))).toBe(before);
    expect(h.engine.withdrawn).toBe(0n);
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: 4n * USD, nonce: 'w2' })).toMatchObject({ transferStatus: 'COMPLETED' });
  });

  it('unrealized profit is not withdrawable: a withdrawal comes out of the quote balance', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, BOB, 1000n);
    buyFrom(h, ALICE, BOB, 1000, 1000);
    h.run({ type: 'setOraclePrice', marketId: 1, price: 2000 }); // +100 USD unrealized
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: 20n * USD, nonce: 'w' })).toMatchObject({ transferStatus: 'REJECTED' });
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: 9n * USD, nonce: 'w2' })).toMatchObject({ transferStatus: 'COMPLETED' });
  });

  it('an account that never had a deposit cannot withdraw (REJECTED)', () => {
    const h = harness({ fund: false });
    expect(h.run({ type: 'withdraw', address: CAROL, accountIndex: 0, amount: USD, nonce: 'w' })).toMatchObject({ transferStatus: 'REJECTED' });
    expect(ofType(h.take(), 'transfer')).toMatchObject([{ kind: 'withdrawal', status: 'REJECTED' }]);
  });
});

describe('internal transfers: between two different subaccounts of one wallet, a transferOut and a transferIn event', () => {
  it('moves quote from one subaccount to the other: transferOut and transferIn share the operationId and name each other', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    h.take();
    const r = h.run({ type: 'transfer', address: ALICE, fromAccountIndex: 0, toAccountIndex: 3, amount: 4n * USD, nonce: 't1' });
    expect(r).toMatchObject({ kind: 'transfer', transferStatus: 'COMPLETED' });
    const ts = ofType(h.take(), 'transfer');
    expect(ts.map((t) => ({ accountIndex: t.accountIndex, kind: t.kind, amount: t.amount, netQuoteBalance: t.netQuoteBalance, counterpartyIndex: t.counterpartyIndex, status: t.status }))).toEqual([
      { accountIndex: 0, kind: 'transferOut', amount: 4n * USD, netQuoteBalance: 6n * USD, counterpartyIndex: 3, status: 'COMPLETED' },
      { accountIndex: 3, kind: 'transferIn', amount: 4n * USD, netQuoteBalance: 4n * USD, counterpartyIndex: 0, status: 'COMPLETED' },
    ]);
    expect(ts[0]!.operationId).toBe(ts[1]!.operationId);
    expect(account(h, ALICE, 3).activated).toBe(true);
    expect(account(h, ALICE, 0).netDeposits).toBe(6n * USD);
    expect(account(h, ALICE, 3).netDeposits).toBe(4n * USD);
    // Money stays inside the exchange.
    expect(h.engine.deposited).toBe(10n * USD);
    expect(h.engine.withdrawn).toBe(0n);
  });

  it('the same subaccount on both sides is invalid', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    h.take();
    expect(h.run({ type: 'transfer', address: ALICE, fromAccountIndex: 1, toAccountIndex: 1, amount: USD, nonce: 't' })).toMatchObject({ kind: 'invalid' });
    expect(h.run({ type: 'transfer', address: ALICE, fromAccountIndex: 0, toAccountIndex: 10, amount: USD, nonce: 't' })).toMatchObject({ kind: 'invalid' });
    expect(h.run({ type: 'transfer', address: ALICE, fromAccountIndex: 0, toAccountIndex: 1, amount: 0n, nonce: 't' })).toMatchObject({ kind: 'invalid', field: 'amount' });
    expect(h.take()).toEqual([]);
  });

  it('more than free collateral: a REJECTED transferOut only', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    h.take();
    expect(h.run({ type: 'transfer', address: ALICE, fromAccountIndex: 0, toAccountIndex: 1, amount: 11n * USD, nonce: 't' })).toMatchObject({ transferStatus: 'REJECTED' });
    expect(ofType(h.take(), 'transfer')).toMatchObject([{ kind: 'transferOut', status: 'REJECTED', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL', accountIndex: 0 }]);
    expect(quoteOf(account(h, ALICE))).toBe(10n * USD);
  });
});

describe('positions and PnL: positionEffect per fill; closedPnl = realized − fee (opening fills: −fee); average entry = |cost| / |size|', () => {
  it('OPEN_LONG, ADD_LONG, CLOSE_LONG, FLIP_LONG_TO_SHORT, ADD_SHORT, CLOSE_SHORT, FLIP_SHORT_TO_LONG with their closedPnl and cost', () => {
    const h = harness(); // funded: margin is not the subject
    const taker = 450n;
    const steps: { events: EngineEvent[]; effect: string; closedPnl: bigint; size: number; cost: bigint }[] = [];
    const step = (events: EngineEvent[], effect: string, closedPnl: bigint, size: number, cost: bigint): void => {
      steps.push({ events, effect, closedPnl, size, cost });
    };
    // Long 1 @ 100.
    step(buyFrom(h, ALICE, BOB, 1000, 1000), 'OPEN_LONG', -feeUp(value(1000, 1000), taker), 1000, value(1000, 1000));
    // +1 @ 110: cost 210 USD for 2 units, average entry 105.
    step(buyFrom(h, ALICE, BOB, 1100, 1000), 'ADD_LONG', -feeUp(value(1100, 1000), taker), 2000, 210n * USD);
    // Sell 1 @ 120: releases half the basis (105), realizes 120 - 105 = 15 USD.
    step(sellTo(h, ALICE, CAROL, 1200, 1000), 'CLOSE_LONG', 15n * USD - feeUp(value(1200, 1000), taker), 1000, 105n * USD);
    // Sell 2 @ 120: closes the last unit (+15) and opens short 1 @ 120.
    step(sellTo(h, ALICE, CAROL, 1200, 2000), 'FLIP_LONG_TO_SHORT', 15n * USD - feeUp(value(1200, 2000), taker), -1000, -120n * USD);
    // Short 1 more @ 100: cost -220 for -2 units, average entry 110.
    step(sellTo(h, ALICE, CAROL, 1000, 1000), 'ADD_SHORT', -feeUp(value(1000, 1000), taker), -2000, -220n * USD);
    // Buy 1 back @ 90: releases 110 of basis, realizes 110 - 90 = 20.
    step(buyFrom(h, ALICE, BOB, 900, 1000), 'CLOSE_SHORT', 20n * USD - feeUp(value(900, 1000), taker), -1000, -110n * USD);
    // Buy 3 @ 95: closes the short (+15), opens long 2 @ 95.
    step(buyFrom(h, ALICE, BOB, 950, 3000), 'FLIP_SHORT_TO_LONG', 15n * USD - feeUp(value(950, 3000), taker), 2000, 190n * USD);
    for (const s of steps) {
      const f = fillOf(s.events, ALICE);
      expect({ effect: f.positionEffect, closedPnl: f.closedPnl, fee: f.fee }).toEqual({ effect: s.effect, closedPnl: s.closedPnl, fee: feeUp(value(f.price, f.size), taker) });
      const p = ofType(s.events, 'position').filter((e) => e.address === ALICE);
      expect(p).toHaveLength(1);
      expect({ size: p[0]!.size, cost: p[0]!.cost }).toEqual({ size: s.size, cost: s.cost });
    }
    // Average entry = |cost| / |size|: 190 USD / 2 units = 95 USD = 950 ticks.
    const { size, cost } = position(h, ALICE);
    expect(cost / (BigInt(size) * VALUE_MUL)).toBe(950n);
  });

  it('the maker side gets its own positionEffect and a maker fee', () => {
    const h = harness();
    const events = buyFrom(h, ALICE, BOB, 1000, 1000);
    const f = fillOf(events, BOB);
    expect(f).toMatchObject({ role: 'MAKER', positionEffect: 'OPEN_SHORT', fee: feeUp(value(1000, 1000), 150n), closedPnl: -feeUp(value(1000, 1000), 150n) });
  });

  it('realized PnL of a round trip equals the price difference × size (fees aside)', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    deposit(h, BOB, 1000n);
    deposit(h, CAROL, 1000n);
    const open = fillOf(buyFrom(h, ALICE, BOB, 1000, 1234), ALICE);
    const close = fillOf(sellTo(h, ALICE, CAROL, 1037, 1234), ALICE);
    const realized = 37n * 1234n * VALUE_MUL; // 3.7 USD per unit × 1.234 units
    expect(close.closedPnl + close.fee).toBe(realized);
    expect(close.positionEffect).toBe('CLOSE_LONG');
    expect(position(h, ALICE)).toEqual({ size: 0, cost: 0n, isolatedMargin: 0n });
    expect(quoteOf(account(h, ALICE))).toBe(100n * USD + realized - open.fee - close.fee);
  });

  it('a round trip whose fee is beyond the exact doubles (notional · fee ppm ≥ 2^53) still closes realized − fee', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 20_000n);
    deposit(h, BOB, 20_000n);
    deposit(h, CAROL, 20_000n);
    // 1,000 units at 100 USD: 1e14 quote quantums, times a fee in ppm is past 2^53.
    const open = fillOf(buyFrom(h, ALICE, BOB, 1000, 1_000_000), ALICE);
    const close = fillOf(sellTo(h, ALICE, CAROL, 1037, 1_000_000), ALICE);
    expect(close.fee * 1_000_000n).toBeGreaterThan(2n ** 53n);
    const realized = 37n * 1_000_000n * VALUE_MUL;
    expect(close.closedPnl + close.fee).toBe(realized);
    expect(quoteOf(account(h, ALICE))).toBe(20_000n * USD + realized - open.fee - close.fee);
  });

  it('a partial close releases basis pro rata and keeps the average entry of what is left', () => {
    const h = harness();
    buyFrom(h, ALICE, BOB, 1000, 3000);
    buyFrom(h, ALICE, BOB, 1030, 3000); // 6 units, cost 609 USD: entry 101.5
    const f = fillOf(sellTo(h, ALICE, CAROL, 1100, 2000), ALICE);
    expect(f.closedPnl + f.fee).toBe(value(1100, 2000) - 203n * USD); // released 609 · 2/6 = 203
    const { size, cost } = position(h, ALICE);
    expect(size).toBe(4000);
    expect(cost).toBe(406n * USD);
  });
});

describe('fees: maker/taker ppm of notional by fee tier (rounded up, rebates rounded toward zero); the tier follows 30-day rolling volume', () => {
  const tiers: FeeTier[] = [
    { name: 'T1', minVolume: 0n, makerFeePpm: 150, takerFeePpm: 450 },
    { name: 'T2', minVolume: 150n * USD, makerFeePpm: -33, takerFeePpm: 333 },
  ];

  it('default tier 1: maker 150 ppm, taker 450 ppm', () => {
    const h = harness();
    const events = buyFrom(h, ALICE, BOB, 1000, 1000);
    expect(fillOf(events, ALICE).fee).toBe(45_000_000n);
    expect(fillOf(events, BOB).fee).toBe(15_000_000n);
  });

  it('the tier changes once rolling volume crosses a threshold; engine.feesCollected, lifetimeVolume and lifetimeFeesPaid add up', () => {
    const h = harness({ risk: { feeTiers: tiers } });
    const fees: bigint[] = [];
    // Two fills of 100 USD at tier 1 (the second starts at 100 USD of volume, below 150).
    for (let i = 0; i < 2; i++) {
      const events = buyFrom(h, ALICE, BOB, 1000, 1000);
      expect(fillOf(events, ALICE).fee).toBe(45_000_000n);
      expect(fillOf(events, BOB).fee).toBe(15_000_000n);
      fees.push(45_000_000n, 15_000_000n);
    }
    // 200 USD of volume: tier 2. 1.001 units @ 100.3: value 100,400,300,000.
    const events = buyFrom(h, ALICE, BOB, 1003, 1001);
    const v = value(1003, 1001);
    expect(fillOf(events, ALICE).fee).toBe(feeUp(v, 333n)); // 33,433,299.9 → 33,433,300
    expect(fillOf(events, ALICE).fee).toBe(33_433_300n);
    expect(fillOf(events, BOB).fee).toBe(-3_313_209n); // rebate −3,313,209.9 → −3,313,209
    fees.push(33_433_300n, -3_313_209n);
    expect(h.engine.feesCollected).toBe(fees.reduce((a, b) => a + b, 0n));
    const alice = account(h, ALICE);
    const bob = account(h, BOB);
    expect(lifetimeVolume(alice)).toBe(200n * USD + v);
    expect(lifetimeVolume(bob)).toBe(200n * USD + v);
    expect(lifetimeFeesPaid(alice)).toBe(90_000_000n + 33_433_300n);
    // A rebate is not a fee paid.
    expect(lifetimeFeesPaid(bob)).toBe(30_000_000n);
  });

  it('volume older than 30 days leaves the window: the account falls back to tier 1', () => {
    const h = harness({ risk: { feeTiers: tiers } });
    buyFrom(h, ALICE, BOB, 1000, 1000);
    buyFrom(h, ALICE, BOB, 1000, 1000);
    expect(fillOf(buyFrom(h, ALICE, BOB, 1000, 1000), ALICE).fee).toBe(33_300_000n);
    h.advance(31 * DAY_US);
    h.take();
    expect(fillOf(buyFrom(h, ALICE, BOB, 1000, 1000), ALICE).fee).toBe(45_000_000n);
  });
});

describe('margin: an order beyond free collateral is REJECTED UNDERCOLLATERALIZED; resting orders count; reduce-only orders are not margin-checked', () => {
  // 100 USD at IMF 5 % carries 2,000 USD of exposure: 20 units at the mark of 100.
  function funded(): Harness {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    deposit(h, BOB, 100_000n);
    h.take();
    return h;
  }

  it('an order whose initial margin exactly uses the collateral is accepted; one quantum more is REJECTED UNDERCOLLATERALIZED', () => {
    const h = funded();
    expect(h.place({ side: 0, price: 990, size: 20_001 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'UNDERCOLLATERALIZED' });
    expect(h.place({ side: 0, price: 990, size: 20_000 })).toMatchObject({ status: 'OPEN' });
  });

  it('resting orders count: two orders that each fit alone but not together — the second is rejected', () => {
    const h = funded();
    expect(h.place({ side: 0, price: 990, size: 12_000 })).toMatchObject({ status: 'OPEN' });
    expect(h.place({ side: 0, price: 980, size: 12_000 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'UNDERCOLLATERALIZED' });
    const rejected = ofType(h.take(), 'order').filter((o) => o.status === 'REJECTED');
    expect(rejected).toMatchObject([{ rejectionReason: 'UNDERCOLLATERALIZED' }]);
  });

  it('orders on both sides count the worse side, not the sum', () => {
    const h = funded();
    expect(h.place({ side: 0, price: 990, size: 15_000 })).toMatchObject({ status: 'OPEN' });
    expect(h.place({ side: 1, price: 1010, size: 15_000 })).toMatchObject({ status: 'OPEN' });
  });

  it('reduce-only orders are not margin-checked: a reduce-only sell larger than the position is accepted where a plain one is not', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, BOB, 1000n);
    buyFrom(h, ALICE, BOB, 1000, 1000);
    expect(h.place({ side: 1, price: 1100, size: 5000 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'UNDERCOLLATERALIZED' });
    expect(h.place({ side: 1, price: 1100, size: 5000, reduceOnly: true })).toMatchObject({ status: 'OPEN' });
  });

  it('with equity below initial margin (but above maintenance), an order that only reduces is accepted and one that adds is not', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, BOB, 1000n);
    buyFrom(h, ALICE, BOB, 1000, 1000);
    h.run({ type: 'setOraclePrice', marketId: 1, price: 945 }); // equity 4.455: initial 4.725, maintenance 3.150
    expect(ofType(h.take(), 'liquidation')).toEqual([]);
    expect(h.place({ side: 0, price: 900, size: 100 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'UNDERCOLLATERALIZED' });
    expect(h.place({ side: 1, price: 1100, size: 1000 })).toMatchObject({ status: 'OPEN' });
  });
});

describe('leverage: setLeverage sets IMF = max(market IMF, 1/leverage); outside 1..max → INVALID_LEVERAGE; a mode switch with an open position → HAS_OPEN_POSITION', () => {
  it('lower leverage lowers maximum exposure: 100 USD at 5× carries 5 units, not 6', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    h.take();
    const r = h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 5, requestId: 'r1' });
    expect(r).toMatchObject({ kind: 'leverage', leverageStatus: 'APPLIED', leverage: 5 });
    expect(ofType(h.take(), 'leverage')).toMatchObject([{ marketId: 1, leverage: 5, isolated: false, status: 'APPLIED', requestId: 'r1' }]);
    expect(h.place({ side: 0, price: 990, size: 5001 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'UNDERCOLLATERALIZED' });
    expect(h.place({ side: 0, price: 990, size: 5000 })).toMatchObject({ status: 'OPEN' });
  });

  it('leverage above the market maximum never lowers IMF below the market\'s: 20× is the default', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    expect(h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 20 })).toMatchObject({ leverageStatus: 'APPLIED' });
    expect(h.place({ side: 0, price: 990, size: 20_001 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'UNDERCOLLATERALIZED' });
  });

  it.each([0, 21, -1, 2.5])('leverage %s is outside 1..max: leverage event REJECTED INVALID_LEVERAGE, leverage unchanged', (leverage) => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    h.take();
    const r = h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage });
    expect(r).toMatchObject({ kind: 'leverage', leverageStatus: 'REJECTED', rejectReason: 'INVALID_LEVERAGE', leverage: 20 });
    expect(ofType(h.take(), 'leverage')).toMatchObject([{ status: 'REJECTED', rejectReason: 'INVALID_LEVERAGE', leverage: 20 }]);
  });

  it('cross → isolated with an open position is rejected HAS_OPEN_POSITION; without one it applies', () => {
    const h = harness();
    buyFrom(h, ALICE, BOB, 1000, 1000);
    const r = h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 10, isolated: true });
    expect(r).toMatchObject({ leverageStatus: 'REJECTED', rejectReason: 'HAS_OPEN_POSITION' });
    expect(ofType(h.take(), 'leverage')).toMatchObject([{ status: 'REJECTED', rejectReason: 'HAS_OPEN_POSITION', isolated: false }]);
    expect(h.run({ type: 'setLeverage', address: CAROL, accountIndex: 0, marketId: 1, leverage: 10, isolated: true })).toMatchObject({ leverageStatus: 'APPLIED' });
    // Changing only the leverage of an open cross position is allowed.
    expect(h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 10 })).toMatchObject({ leverageStatus: 'APPLIED' });
  });

  it('a leverage whose higher requirement the account cannot cover is rejected UNDERCOLLATERALIZED', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, BOB, 1000n);
    buyFrom(h, ALICE, BOB, 1000, 1000); // initial 5 of 9.955
    h.take();
    expect(h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 5 })).toMatchObject({ leverageStatus: 'REJECTED', rejectReason: 'UNDERCOLLATERALIZED', leverage: 20 });
    expect(h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 11 })).toMatchObject({ leverageStatus: 'APPLIED' });
  });

  it('unknown market is invalid', () => {
    const h = harness();
    expect(h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 9, leverage: 5 })).toMatchObject({ kind: 'invalid', field: 'marketId' });
  });
});

describe('isolated margin: an isolated position draws its initial margin into its pool; adjustIsolatedMargin moves collateral in (positive) and out (negative); zero is invalid', () => {
  function isolatedLong(): Harness {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    deposit(h, BOB, 1000n);
    h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 10, isolated: true });
    buyFrom(h, ALICE, BOB, 1000, 1000); // pool = IM at 10× = 10 USD
    return h;
  }

  it('opening an isolated position moves its initial margin from cross quote into the pool', () => {
    const h = isolatedLong();
    expect(position(h, ALICE).isolatedMargin).toBe(10n * USD);
    expect(quoteOf(account(h, ALICE))).toBe(90n * USD - 45_000_000n);
  });

  it('positive moves cross collateral into the pool, negative moves it back (position events carry the pool)', () => {
    const h = isolatedLong();
    h.take();
    expect(h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: 5n * USD, requestId: 'a' })).toEqual({ kind: 'margin' });
    expect(ofType(h.take(), 'position')).toMatchObject([{ isolated: true, isolatedMargin: 15n * USD, requestId: 'a' }]);
    expect(h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: -5n * USD })).toEqual({ kind: 'margin' });
    expect(position(h, ALICE).isolatedMargin).toBe(10n * USD);
    expect(quoteOf(account(h, ALICE))).toBe(90n * USD - 45_000_000n);
  });

  it('zero is invalid; a market in cross mode is invalid', () => {
    const h = isolatedLong();
    expect(h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: 0n })).toMatchObject({ kind: 'invalid', field: 'amount' });
    expect(h.run({ type: 'adjustIsolatedMargin', address: BOB, accountIndex: 0, marketId: 1, amount: USD })).toMatchObject({ kind: 'invalid', field: 'marketId' });
  });

  it('taking the pool below the position\'s initial margin, or adding more than free collateral, is refused UNDERCOLLATERALIZED', () => {
    const h = isolatedLong();
    expect(h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: -1n })).toEqual({ kind: 'rejected', rejectionReason: 'UNDERCOLLATERALIZED' });
    expect(h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: 90n * USD })).toEqual({ kind: 'rejected', rejectionReason: 'UNDERCOLLATERALIZED' });
    expect(position(h, ALICE).isolatedMargin).toBe(10n * USD);
  });

  it('closing an isolated position returns its whole pool to cross quote', () => {
    const h = isolatedLong();
    deposit(h, CAROL, 1000n);
    const f = fillOf(sellTo(h, ALICE, CAROL, 1010, 1000), ALICE);
    expect(position(h, ALICE).isolatedMargin).toBe(0n);
    expect(quoteOf(account(h, ALICE))).toBe(100n * USD - 45_000_000n + USD - f.fee);
  });
});

describe('MARGIN_CANCELED: after a fill leaves initial margin above equity, resting orders are canceled newest first until the rest fits', () => {
  it('a loss-making fill cancels the newest resting bid; the older one fits and stays', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    deposit(h, BOB, 1000n);
    const older = idOf(h.place({ side: 0, price: 900, size: 8000 }));
    const newer = idOf(h.place({ side: 0, price: 890, size: 7000 })); // 15 units of bids: IM 75
    h.place({ address: BOB, side: 1, price: 1100, size: 3000 });
    h.take();
    // Buy 3 @ 110 with the mark at 100: −30 unrealized. Equity ≈ 69.85 < IM of 18 units (90).
    h.place({ side: 0, price: 1100, size: 3000, tif: IOC });
    const events = h.take();
    const canceled = ofType(events, 'order').filter((o) => o.status === 'MARGIN_CANCELED');
    expect(canceled.map((o) => o.orderId)).toEqual([newer]);
    expect(h.engine.orders.has(older)).toBe(true);
    expect(h.engine.orders.has(newer)).toBe(false);
    expect(ofType(events, 'liquidation')).toEqual([]);
  });

  it('reduce-only orders are never margin-canceled', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    deposit(h, BOB, 1000n);
    buyFrom(h, ALICE, BOB, 1000, 1000);
    const ro = idOf(h.place({ side: 1, price: 1200, size: 1000, reduceOnly: true }));
    const bid = idOf(h.place({ side: 0, price: 900, size: 14_000 }));
    h.place({ address: BOB, side: 1, price: 1100, size: 3000 });
    h.take();
    h.place({ side: 0, price: 1100, size: 3000, tif: IOC });
    const canceled = ofType(h.take(), 'order').filter((o) => o.status === 'MARGIN_CANCELED').map((o) => o.orderId);
    expect(canceled).toEqual([bid]);
    expect(h.engine.orders.has(ro)).toBe(true);
  });
});

describe('funding: predictedFunding on oracle updates; at each whole hour a fundingRate event and a funding payment per position (longs pay a positive rate); payments plus the insurance fund change sum to zero', () => {
  /** Alice long, Bob short, 51 quantums at 100.3, book empty again. */
  function positions(): Harness {
    const h = harness();
    buyFrom(h, ALICE, BOB, 1003, 51);
    h.take();
    return h;
  }

  it('an oracle update (a premium sample, ≥ 1 s after the last) emits predictedFunding; with mark = oracle the rate is the interest component', () => {
    const h = positions();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1003, time: h.time + 2_000_000 });
    expect(ofType(h.take(), 'predictedFunding')).toMatchObject([{ marketId: 1, rate: 12_500_000n }]);
    // Within a second of that sample: no new sample, no predictedFunding.
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1004 });
    expect(ofType(h.take(), 'predictedFunding')).toEqual([]);
  });

  it('at the hour: fundingRate, then payments −size · oracle · rate (payers round up, receivers down) and the remainder to the insurance fund', () => {
    const h = positions();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1003, time: h.time + 2_000_000 });
    h.take();
    const fund = h.engine.insuranceFund;
    const aliceBefore = quoteOf(account(h, ALICE));
    h.advance(HOUR_US);
    const events = h.take();
    expect(ofType(events, 'fundingRate')).toMatchObject([{ marketId: 1, rate: 12_500_000n }]);
    const payments = ofType(events, 'funding');
    // 51 · 1003 · 1e5 · 12.5e6 / 1e12 = 63,941.25 quote quantums.
    const rows = payments.map((p) => ({ address: p.address, size: p.size, payment: p.payment, rate: p.rate }));
    expect(rows.sort((a, b) => a.address.localeCompare(b.address))).toEqual([
      { address: ALICE, size: 51, payment: -63_942n, rate: 12_500_000n },
      { address: BOB, size: -51, payment: 63_941n, rate: 12_500_000n },
    ]);
    const sum = payments.reduce((s, p) => s + p.payment, 0n);
    expect(h.engine.insuranceFund - fund).toBe(-sum);
    expect(h.engine.insuranceFund - fund).toBe(1n);
    expect(quoteOf(account(h, ALICE))).toBe(aliceBefore - 63_942n);
    // Settlements are stamped with the whole hour.
    expect(payments[0]!.time % HOUR_US).toBe(0);
    const pos = ofType(events, 'position').find((p) => p.address === ALICE)!;
    expect(pos).toMatchObject({ fundingAllTime: -63_942n, fundingSinceOpen: -63_942n });
  });

  it('a negative rate (mark below oracle) makes shorts pay longs', () => {
    const h = positions();
    // A two-sided book whose mid (92.5) is below the oracle pulls the mark down.
    h.place({ address: CAROL, side: 0, price: 900, size: 100 });
    h.place({ address: DAVE, side: 1, price: 950, size: 100 });
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1000, time: h.time + 2_000_000 });
    const [predicted] = ofType(h.take(), 'predictedFunding');
    expect(predicted!.rate).toBeLessThan(0n);
    h.advance(HOUR_US);
    const payments = ofType(h.take(), 'funding');
    expect(payments.find((p) => p.address === ALICE)!.payment).toBeGreaterThan(0n);
    expect(payments.find((p) => p.address === BOB)!.payment).toBeLessThan(0n);
  });

  it('an hour with no premium sample settles a zero rate: a fundingRate event and no payments', () => {
    const h = positions();
    h.advance(HOUR_US);
    h.take();
    h.advance(HOUR_US); // nothing sampled in this hour
    const events = h.take();
    expect(ofType(events, 'fundingRate')).toMatchObject([{ rate: 0n }]);
    expect(ofType(events, 'funding')).toEqual([]);
  });
});

describe('interest: an account with a negative quote balance pays borrow interest hourly to the lending vault', () => {
  it('an isolated position drawn from unrealized cross profit leaves quote negative; at the hour it pays ⌈−quote · rate · 1h / 1y⌉ to engine.lendingVault', () => {
    // No funding, so that only interest moves quote at the hour.
    const h = harness({ fund: false, markets: [testMarket(), TWO], risk: { fundingInterestE12: 0n } });
    deposit(h, ALICE, 100n);
    deposit(h, BOB, 1_000_000n);
    buyFrom(h, ALICE, BOB, 1000, 1000, 1); // cross long 1 @ 100 in market 1
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1500 }); // +50 USD unrealized
    h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 2, leverage: 1, isolated: true });
    buyFrom(h, ALICE, BOB, 1000, 1400, 2); // isolated at 1×: the pool takes 140 USD
    const quote = quoteOf(account(h, ALICE));
    expect(quote).toBe(100n * USD - 45_000_000n - 140n * USD - 63_000_000n); // −40.108 USD
    h.take();
    h.advance(HOUR_US);
    const events = h.take();
    const interest = ofType(events, 'interest');
    const expected = (-quote * 100_000n * 3_600_000_000n + 31_536_000_000_000n * 1_000_000n - 1n) / (31_536_000_000_000n * 1_000_000n);
    expect(expected).toBe(457_854n);
    expect(interest).toMatchObject([{ address: ALICE, accountIndex: 0, payment: expected }]);
    expect(h.engine.lendingVault).toBe(expected);
    expect(quoteOf(account(h, ALICE))).toBe(quote - expected);
    expect(ofType(events, 'funding')).toEqual([]);
    // Bob's balance is positive: he pays nothing.
    expect(interest.filter((i) => i.address === BOB)).toEqual([]);
  });
});

describe('liquidation: an account pushed below maintenance by the oracle is liquidated — liquidation event, orders MARGIN_CANCELED, position closed through the book by a LIQUIDATION order that ends LIQUIDATED', () => {
  function longAt100(): Harness {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, BOB, 1_000_000n);
    deposit(h, CAROL, 1_000_000n);
    deposit(h, DAVE, 1_000_000n);
    buyFrom(h, ALICE, BOB, 1000, 1000); // long 1 @ 100, quote 9.955
    return h;
  }

  it('oracle 93: equity 2.955 < maintenance 3.100062 — liquidation event, MARGIN_CANCELED bid, IOC reduce-only LIQUIDATION order filled by the book', () => {
    const h = longAt100();
    const bid = idOf(h.place({ side: 0, price: 800, size: 70 }));
    h.place({ address: CAROL, side: 0, price: 930, size: 1000 });
    h.take();
    const fund = h.engine.insuranceFund;
    h.run({ type: 'setOraclePrice', marketId: 1, price: 930 });
    const events = h.take();
    expect(ofType(events, 'liquidation')).toMatchObject([{ address: ALICE, marketId: undefined, equity: 2_955_000_000n, maintenance: 3_100_062_000n }]);
    const orders = ofType(events, 'order').filter((o) => o.address === ALICE);
    expect(orders.find((o) => o.orderId === bid)).toMatchObject({ status: 'MARGIN_CANCELED' });
    const liq = orders.find((o) => o.origin === 'LIQUIDATION') as OrderEvent;
    expect(liq).toMatchObject({ status: 'LIQUIDATED', side: 1, size: 1000, filled: 1000, reduceOnly: true, tif: IOC });
    const fills = ofType(events, 'fill');
    expect(fills.map((f) => ({ address: f.address, role: f.role, price: f.price, size: f.size, liquidation: f.liquidation }))).toEqual([
      { address: CAROL, role: 'MAKER', price: 930, size: 1000, liquidation: { method: 'MARKET', liquidatedUser: ALICE } },
      { address: ALICE, role: 'TAKER', price: 930, size: 1000, liquidation: { method: 'MARKET', liquidatedUser: ALICE } },
    ]);
    const mine = fills[1]!;
    expect(mine).toMatchObject({ orderId: liq.orderId, positionEffect: 'CLOSE_LONG', fee: 41_850_000n, closedPnl: -7n * USD - 41_850_000n });
    expect(position(h, ALICE).size).toBe(0);
    // What is left (2.91315) pays the penalty: 1.5 % of the 93 USD closed, capped by what is left.
    const penalty = 1_395_000_000n;
    expect(h.engine.insuranceFund - fund).toBe(penalty);
    expect(quoteOf(account(h, ALICE))).toBe(10n * USD - 45_000_000n - 7n * USD - 41_850_000n - penalty);
    expect(h.engine.orders.size).toBe(0);
  });

  it('just above maintenance nothing happens', () => {
    const h = longAt100();
    h.place({ address: CAROL, side: 0, price: 930, size: 1000 });
    h.take();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 940 }); // equity 3.955 ≥ 3.133
    expect(ofType(h.take(), 'liquidation')).toEqual([]);
    expect(position(h, ALICE).size).toBe(1000);
  });

  it('when the book cannot absorb, ADL closes against the most profitable opposite position at the bankruptcy price (adl event, orders ADL, fills method ADL, no fee)', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    for (const who of [BOB, CAROL, DAVE]) deposit(h, who, 1_000_000n);
    buyFrom(h, ALICE, CAROL, 1020, 1000); // Alice long @ 102 against Carol short @ 102
    buyFrom(h, DAVE, BOB, 1000, 1000); // Dave long @ 100 against Bob short @ 100
    h.take();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 950 }); // empty book
    const events = h.take();
    expect(ofType(events, 'liquidation')).toMatchObject([{ address: ALICE }]);
    const liq = ofType(events, 'order').find((o) => o.origin === 'LIQUIDATION')!;
    expect(liq).toMatchObject({ status: 'LIQUIDATED', filled: 0 });
    // Carol's short (entry 102) is more profitable at 95 than Bob's (entry 100).
    expect(ofType(events, 'adl')).toMatchObject([{ address: CAROL, marketId: 1, size: 1000, liquidatedUser: ALICE }]);
    const price = ofType(events, 'adl')[0]!.price;
    // Bankruptcy price: equity 2.9541 over 1 unit is 29.54 ticks below 950 (fee-adjusted, rounded up): 921.
    expect(price).toBe(921);
    const adlOrders = ofType(events, 'order').filter((o) => o.origin === 'ADL');
    expect(adlOrders.map((o) => ({ address: o.address, status: o.status, filled: o.filled }))).toEqual([
      { address: CAROL, status: 'ADL', filled: 1000 },
      { address: ALICE, status: 'ADL', filled: 1000 },
    ]);
    const fills = ofType(events, 'fill');
    expect(fills.map((f) => ({ address: f.address, price: f.price, fee: f.fee, effect: f.positionEffect, liquidation: f.liquidation }))).toEqual([
      { address: CAROL, price: 921, fee: 0n, effect: 'CLOSE_SHORT', liquidation: { method: 'ADL', liquidatedUser: ALICE } },
      { address: ALICE, price: 921, fee: 0n, effect: 'CLOSE_LONG', liquidation: { method: 'ADL', liquidatedUser: ALICE } },
    ]);
    expect(position(h, ALICE).size).toBe(0);
    expect(position(h, CAROL).size).toBe(0);
    expect(position(h, BOB).size).toBe(-1000); // untouched
    expect(position(h, DAVE).size).toBe(1000);
    // ADL at the bankruptcy price leaves no deficit.
    expect(quoteOf(account(h, ALICE))).toBeGreaterThanOrEqual(0n);
  });

  it('ADL takes the next-ranked opposite position when the first is too small', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 20n);
    for (const who of [BOB, CAROL, DAVE]) deposit(h, who, 1_000_000n);
    buyFrom(h, ALICE, CAROL, 1020, 1000);
    buyFrom(h, ALICE, BOB, 1000, 1000); // Alice long 2: Carol short 1 @ 102, Bob short 1 @ 100
    h.take();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 930 });
    const adl = ofType(h.take(), 'adl');
    expect(adl.map((a) => [a.address, a.size])).toEqual([
      [CAROL, 1000],
      [BOB, 1000],
    ]);
    expect(position(h, ALICE).size).toBe(0);
  });

  it('a deficit beyond the account\'s equity is covered by the insurance fund', () => {
    const h = longAt100();
    h.place({ address: CAROL, side: 0, price: 800, size: 1000 }); // the only bid is far below
    h.take();
    const fund = h.engine.insuranceFund;
    h.run({ type: 'setOraclePrice', marketId: 1, price: 930 });
    const fills = ofType(h.take(), 'fill').filter((f) => f.address === ALICE);
    expect(fills).toMatchObject([{ price: 800, liquidation: { method: 'MARKET' } }]);
    // 9.955 − 20 − fee 0.036: −10.081 USD, paid by the fund; the account ends at zero.
    expect(quoteOf(account(h, ALICE))).toBe(0n);
    expect(h.engine.insuranceFund - fund).toBe(-(20n * USD + 36_000_000n - 9_955_000_000n));
  });

  it('a maker filled by a liquidation order is re-checked in the same command (cascade)', () => {
    const h = longAt100();
    deposit(h, ALICE, 10n, 1); // a second thin account bids far above the oracle-to-be
    h.place({ address: ALICE, accountIndex: 1, side: 0, price: 990, size: 1000 });
    h.take();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 900 });
    const events = h.take();
    const liquidated = ofType(events, 'liquidation').map((l) => l.accountIndex);
    expect(liquidated).toEqual([0, 1]);
    expect(position(h, ALICE, 1, 0).size).toBe(0);
    expect(position(h, ALICE, 1, 1).size).toBe(0);
  });
});

describe('isolated positions liquidate alone: only the isolated position and its market\'s orders are touched; its deficit is the fund\'s and its penalty comes from its pool only', () => {
  it('an isolated long below maintenance is liquidated (liquidation event with its marketId); the cross position and cross orders elsewhere stay', () => {
    const h = harness({ fund: false, markets: [testMarket(), TWO] });
    deposit(h, ALICE, 1000n);
    for (const who of [BOB, CAROL]) deposit(h, who, 1_000_000n);
    buyFrom(h, ALICE, BOB, 1000, 1000, 2); // cross long in market 2
    const crossBid = idOf(h.place({ side: 0, price: 900, size: 1000, marketId: 2 }));
    h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 20, isolated: true });
    const isoBid = idOf(h.place({ side: 0, price: 800, size: 100, marketId: 1 }));
    buyFrom(h, ALICE, BOB, 1000, 1000, 1); // isolated long, pool 5 USD
    expect(position(h, ALICE, 1).isolatedMargin).toBe(5n * USD);
    h.place({ address: CAROL, side: 0, price: 960, size: 1000, marketId: 1 });
    h.take();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 965 }); // pool equity 1.5 < 3.2167
    const events = h.take();
    expect(ofType(events, 'liquidation')).toMatchObject([{ address: ALICE, marketId: 1, equity: 1_500_000_000n, maintenance: 3_216_731_000n }]);
    expect(ofType(events, 'order').filter((o) => o.status === 'MARGIN_CANCELED').map((o) => o.orderId)).toEqual([isoBid]);
    expect(position(h, ALICE, 1)).toEqual({ size: 0, cost: 0n, isolatedMargin: 0n });
    expect(position(h, ALICE, 2).size).toBe(1000);
    expect(h.engine.orders.has(crossBid)).toBe(true);
  });

  /** Alice isolated long 1 @ 100 at 20×: pool 5 USD, cross quote 994.955 of 1000. */
  function isolatedThin(bidPrice: number): { h: Harness; quoteBefore: bigint } {
    const h = harness({ fund: false });
    deposit(h, ALICE, 1000n);
    deposit(h, BOB, 1_000_000n);
    deposit(h, CAROL, 1_000_000n);
    h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 20, isolated: true });
    buyFrom(h, ALICE, BOB, 1000, 1000);
    h.place({ address: CAROL, side: 0, price: bidPrice, size: 1000 });
    h.take();
    return { h, quoteBefore: quoteOf(account(h, ALICE)) };
  }

  // Pinned as a bug (found by these tests) and fixed in 0a07004 ("penalty and deficit measured
  // on what the scope released"): the deficit used to be taken from the cross quote.
  it('an isolated position\'s deficit is covered by the insurance fund, not by the account\'s cross collateral', () => {
    const { h, quoteBefore } = isolatedThin(900);
    expect(quoteBefore).toBe(994_955_000_000n);
    const fund = h.engine.insuranceFund;
    h.run({ type: 'setOraclePrice', marketId: 1, price: 965 });
    expect(ofType(h.take(), 'liquidation')).toMatchObject([{ marketId: 1 }]);
    // Sold at 90: the pool ends at 5 − 10 − 0.0405 = −5.0405 USD, which the fund pays.
    expect(quoteOf(account(h, ALICE))).toBe(quoteBefore);
    expect(h.engine.insuranceFund - fund).toBe(-5_040_500_000n);
  });

  // Pinned as a bug and fixed in 0a07004: the penalty used to be capped by the whole cross quote.
  it('the penalty of an isolated liquidation is at most what the isolated pool has left', () => {
    const { h, quoteBefore } = isolatedThin(960);
    const fund = h.engine.insuranceFund;
    h.run({ type: 'setOraclePrice', marketId: 1, price: 965 });
    expect(ofType(h.take(), 'liquidation')).toMatchObject([{ marketId: 1 }]);
    // Sold at 96: the pool ends at 5 − 4 − 0.0432 = 0.9568 USD, under the 1.4475 cap (1.5 % of 96.5).
    expect(quoteOf(account(h, ALICE))).toBe(quoteBefore);
    expect(h.engine.insuranceFund - fund).toBe(956_800_000n);
  });
});

// ---------------------------------------------------------------------------------------------
// Engine bugs these tests found, kept as regressions (they were `it.fails` until fixed). The
// comments describe the behaviour before the fix.

describe('regressions found by these tests (issue 3)', () => {
  // Expected: switching a market with an isolated pool (and no position) back to cross either
  // returns the pool to cross collateral or is refused; account equity cannot change through a
  // mode switch. Actual: the switch is APPLIED and the 40 USD pool stays in
  // `am.isolatedMargin`, which cross margin ignores (margin.ts counts pools only for isolated
  // markets) and adjustIsolatedMargin refuses to touch (market not isolated): the account's
  // equity and free collateral drop from 100 to 60 USD and a 100 USD withdrawal is REJECTED.
  it('switching an isolated market back to cross does not strand its pool', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 10, isolated: true });
    h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: 40n * USD });
    const r = h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 10, isolated: false });
    // The fix applies the switch and returns the pool to cross collateral (risk.ts setLeverage).
    expect(r).toMatchObject({ kind: 'leverage', leverageStatus: 'APPLIED', leverage: 10 });
    expect(position(h, ALICE).isolatedMargin).toBe(0n);
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: 100n * USD, nonce: 'w' })).toMatchObject({ transferStatus: 'COMPLETED' });
  });

  // Expected: "reduce-only orders are not margin-checked" — an order that can only shrink the
  // position adds no exposure, so it does not raise initial margin. Actual: a resting reduce-only
  // sell of 5 units against a 1-unit long counts in `openSell` like any order, so initial margin
  // becomes IMF · max(|1|, |1 − 5|) = 20 USD instead of 5; free collateral goes to zero and a
  // 1 USD withdrawal (free collateral 4.955 without the order) is REJECTED. The same inflation
  // makes marginCancel cancel the account's other orders.
  it('a resting reduce-only order does not raise initial margin (it cannot flip the position)', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, BOB, 1000n);
    buyFrom(h, ALICE, BOB, 1000, 1000);
    expect(h.place({ side: 1, price: 1100, size: 5000, reduceOnly: true })).toMatchObject({ status: 'OPEN' });
    expect(h.run({ type: 'withdraw', address: ALICE, accountIndex: 0, amount: USD, nonce: 'w' })).toMatchObject({ transferStatus: 'COMPLETED' });
  });

  // Found by the maintenance property (engine.risk.property.test.ts, KNOWN_BUGS
  // adlCounterpartyNotLiquidated). Alice (10 USD) sells 1 @ 70 with the mark at 100: she is at
  // −20.03 USD equity at once and liquidated; the book is empty, so ADL closes her against Bob,
  // the only long (2 @ 100, 20 USD), at her bankruptcy price 79.9. Bob realizes −20.1 on that
  // unit and is left long 1 @ 100 with equity −0.19 USD against maintenance 3.3334.
  // Expected: no account is below maintenance when a command completes — Bob is liquidated in
  // the same command. Actual: deleverage() calls refreshTriggers() for the counterparty and
  // ignores its "below maintenance" answer, and ADL fills never enter the risk queue; Bob stays
  // below (here below zero) until the next oracle update of the market reaches his trigger.
  // Note also that the 1,000,000 USD insurance fund is untouched (it even collects Alice's
  // 0.0685 USD penalty): with an empty book, a negative-equity account's deficit goes to the ADL
  // counterparty, never to the fund.
  it('an ADL counterparty pushed below maintenance is liquidated in the same command', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 10n);
    deposit(h, BOB, 20n);
    deposit(h, CAROL, 1_000_000n);
    deposit(h, DAVE, 1_000_000n);
    buyFrom(h, BOB, CAROL, 1000, 1000);
    buyFrom(h, BOB, DAVE, 1000, 1000); // Bob long 2 @ 100; Carol and Dave short 1 each
    h.place({ address: CAROL, side: 0, price: 700, size: 1000 }); // Carol's bid to close
    h.take();
    const fundBefore = h.engine.insuranceFund;
    h.place({ side: 1, price: 700, size: 1000, tif: IOC }); // Alice short 1 @ 70, mark 100
    const events = h.take();
    expect(ofType(events, 'liquidation').map((l) => l.address)).toContain(ALICE);
    // Alice is under water at the mark: ADL at the mark, the fund covering her deficit.
    expect(ofType(events, 'adl')).toMatchObject([{ address: BOB, size: 1000, price: 1000 }]);
    expect(h.engine.insuranceFund).toBeLessThan(fundBefore);
    const bob = account(h, BOB);
    const risk = crossRisk(bob, h.engine.bySlot);
    expect(position(h, BOB).size === 0 || risk.equity >= risk.maintenance).toBe(true);
  });

  // Found by the maintenance property (KNOWN_BUGS isolatedWithdrawalIgnoresLoss). Alice's
  // isolated long 1 @ 100 at 2× holds a 50 USD pool; at an oracle of 60 it is 40 USD underwater
  // (isolated equity 10, maintenance 2, initial margin at the mark 30).
  // Expected: taking 20 USD out is refused (UNDERCOLLATERALIZED): the isolated equity after it
  // would be −10 USD, below initial margin — and below zero. Actual: adjustIsolatedMargin only
  // checks pool − amount ≥ the position's initial margin (30 ≥ 30), ignoring unrealized PnL, and
  // ignores refreshTriggers()' "below maintenance" answer: the 20 USD move to cross and the
  // isolated position is left at −10 USD equity, not liquidated.
  it('a negative isolated margin adjustment cannot take an underwater position below its initial margin', () => {
    const h = harness({ fund: false });
    deposit(h, ALICE, 100n);
    deposit(h, BOB, 1000n);
    h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 2, isolated: true });
    buyFrom(h, ALICE, BOB, 1000, 1000);
    expect(position(h, ALICE).isolatedMargin).toBe(50n * USD);
    h.run({ type: 'setOraclePrice', marketId: 1, price: 600 });
    expect(ofType(h.take(), 'liquidation')).toEqual([]);
    const r = h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: -20n * USD });
    const slot = h.engine.markets.get(1)!.slot;
    const iso = isolatedRisk(h.engine.bySlot[slot]!, marketOf(account(h, ALICE), slot)!);
    expect({ r, pool: position(h, ALICE).isolatedMargin, equityAboveMaintenance: iso.equity >= iso.maintenance }).toEqual({
      r: { kind: 'rejected', rejectionReason: 'UNDERCOLLATERALIZED' },
      pool: 50n * USD,
      equityAboveMaintenance: true,
    });
  });
});
