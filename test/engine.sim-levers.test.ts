import { describe, expect, it } from 'vitest';
import { positionOf } from '../engine/account.ts';
import { accountView } from '../engine/risk.ts';
import { ALICE, BOB, harness, idOf, orderUpdates } from './support/engine-fixture.ts';

describe('ORDER_WILL_TAKE_LIQUIDITY_DURING_MARKET_HALT: order would take liquidity during a halt', () => {
  it('refuses crossing orders while halted, keeps resting ones and cancels, and trades again after', async () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 1000 });
    h.run({ type: 'setHalt', marketId: 1, halted: true });
    h.take();
    expect(h.place({ side: 0, price: 1000, size: 500, tif: 2 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'ORDER_WILL_TAKE_LIQUIDITY_DURING_MARKET_HALT' });
    const resting = idOf(h.place({ side: 0, price: 990, size: 500 }));
    expect(h.cancel({ orderId: resting })).toMatchObject({ status: 'CANCELED' });
    h.run({ type: 'setHalt', marketId: 1, halted: false });
    expect(h.place({ side: 0, price: 1000, size: 500, tif: 2 })).toMatchObject({ status: 'FILLED' });
  });
});

describe('setFundingRate fixes the current hour\'s rate until it settles', () => {
  it('pays the fixed rate at the hour and ignores premium samples meanwhile', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 1000 });
    h.place({ address: ALICE, side: 0, price: 1000, size: 1000 });
    h.run({ type: 'setFundingRate', marketId: 1, rate: 100_000_000n }); // 0.01 % per hour
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1010 });
    h.take();
    h.advance(3_600_000_000);
    const payments = h.take().flatMap((e) => (e.type === 'funding' ? [[e.address, e.rate, e.payment]] : []));
    // 1 unit at 101.0 USD × 0.01 % = 0.0101 USD = 10,100,000 quote quantums; the long pays.
    expect(payments).toEqual([
      [BOB, 100_000_000n, 10_100_000n],
      [ALICE, 100_000_000n, -10_100_000n],
    ]);
  });

  it('accrues the hour so far before the first settlement, never more than the hour pays', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 1000 });
    h.place({ address: ALICE, side: 0, price: 1000, size: 1000 });
    h.run({ type: 'setFundingRate', marketId: 1, rate: 100_000_000n });
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1010 });
    const alice = h.engine.accounts.get(ALICE + '/0')!;
    const accrued = accountView(h.engine, alice).accruedFunding;
    // The long pays: at most the whole hour's 10,100,000 quote quantums, pro rata to the time into the hour.
    expect(accrued <= 0n && accrued >= -10_100_000n).toBe(true);
    const hour = 3_600_000_000;
    const intoHour = h.engine.time % hour;
    expect(accrued).toBe((-10_100_000n * BigInt(intoHour)) / BigInt(hour));
  });

  it('refuses a rate beyond the cap', () => {
    const h = harness();
    expect(h.run({ type: 'setFundingRate', marketId: 1, rate: 10n ** 15n })).toMatchObject({ kind: 'invalid' });
  });
});

describe('forceLiquidation liquidates an account whatever its margin', () => {
  it('closes the position through the book with liquidation orders', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 1000 });
    h.place({ address: ALICE, side: 0, price: 1000, size: 1000 });
    h.place({ address: BOB, side: 0, price: 990, size: 2000 });
    h.take();
    h.run({ type: 'forceLiquidation', address: ALICE, accountIndex: 0 });
    const events = h.take();
    expect(events.some((e) => e.type === 'liquidation' && e.address === ALICE)).toBe(true);
    expect(orderUpdates(events).some((u) => u.status === 'LIQUIDATED')).toBe(true);
    expect(positionOf(h.engine.accounts.get(ALICE + '/0')!, 0)).toBe(0);
    expect(h.run({ type: 'forceLiquidation', address: ALICE, accountIndex: 0 })).toMatchObject({ kind: 'invalid' });
  });
});
