import { describe, expect, it } from 'vitest';
import { ALICE, DAY_US, harness, idOf, orderUpdates, T0, testMarket } from './support/engine-fixture.ts';
import type { SwitchEvent } from '../engine/index.ts';

const S = 1_000_000;

function arm(h: ReturnType<typeof harness>, aheadUs: number, extra: { marketId?: number; accountIndex?: number; address?: string } = {}) {
  const time = h.time + 1;
  return h.run({ type: 'scheduleCancel', address: ALICE, accountIndex: 0, time, deadline: time + aheadUs, ...extra });
}

describe('dead man\'s switch: scheduleCancel with `time` 5 s to 5 min ahead arms it', () => {
  it('arms within the window and refuses outside it (400)', () => {
    const h = harness();
    expect(arm(h, 4 * S)).toMatchObject({ kind: 'invalid', errorType: 'InvalidRequest', field: 'time' });
    expect(arm(h, 301 * S)).toMatchObject({ kind: 'invalid' });
    expect(arm(h, -10 * S)).toMatchObject({ kind: 'invalid' });
    expect(arm(h, 5 * S)).toEqual({ kind: 'scheduleCancel', switchState: 'scheduled' });
    expect(h.take().filter((e): e is SwitchEvent => e.type === 'switch').map((e) => e.action)).toEqual(['armed']);
  });
});

describe('deadline elapses with no refresh: cancelAllOrders for its scope', () => {
  it('cancels every order of the account at the deadline, not before', () => {
    const h = harness({ markets: [testMarket(), testMarket({ id: 2, displayName: 'TWO-USD' })] });
    const a = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    const b = idOf(h.place({ marketId: 2, side: 0, price: 1000, size: 1000 }));
    arm(h, 10 * S);
    const deadline = h.time + 10 * S;
    h.take();
    h.run({ type: 'advanceTime', time: deadline - 1 });
    expect(orderUpdates(h.take())).toEqual([]);
    h.run({ type: 'advanceTime', time: deadline });
    const events = h.take();
    expect(events.find((e) => e.type === 'switch')).toMatchObject({ action: 'fired', deadline });
    expect(orderUpdates(events).map((u) => [u.orderId, u.status])).toEqual([[a, 'CANCELED'], [b, 'CANCELED']]);
  });

  it('a market switch cancels only that market', () => {
    const h = harness({ markets: [testMarket(), testMarket({ id: 2, displayName: 'TWO-USD' })] });
    const a = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    const b = idOf(h.place({ marketId: 2, side: 0, price: 1000, size: 1000 }));
    arm(h, 10 * S, { marketId: 2 });
    h.take();
    h.advance(11 * S);
    expect(orderUpdates(h.take()).map((u) => u.orderId)).toEqual([b]);
    expect(h.engine.orders.has(a)).toBe(true);
  });
});

describe('armed switch refreshed with a later time: armed with the new deadline', () => {
  it('moves the deadline', () => {
    const h = harness();
    h.place({ side: 0, price: 1000, size: 1000 });
    arm(h, 10 * S);
    h.advance(8 * S);
    arm(h, 10 * S);
    h.take();
    h.advance(5 * S);
    expect(orderUpdates(h.take())).toEqual([]);
    h.advance(6 * S);
    expect(orderUpdates(h.take()).map((u) => u.status)).toEqual(['CANCELED']);
  });
});

describe('scheduleCancel without `time` (or null) disarms', () => {
  it('never fires after disarming', () => {
    const h = harness();
    h.place({ side: 0, price: 1000, size: 1000 });
    arm(h, 10 * S);
    expect(h.run({ type: 'scheduleCancel', address: ALICE, accountIndex: 0, deadline: null })).toEqual({ kind: 'scheduleCancel', switchState: 'disarmed' });
    h.take();
    h.advance(60 * S);
    expect(orderUpdates(h.take())).toEqual([]);
  });
});

describe('10 auto-fires per UTC day per subaccount; 50 armed switches per wallet', () => {
  it('refuses arming after ten fires in one UTC day (429), and allows it the next day', () => {
    // Start at a UTC midnight so ten fires fit in the day.
    const h = harness();
    h.time = Math.ceil(T0 / DAY_US) * DAY_US;
    for (let i = 0; i < 10; i++) {
      expect(arm(h, 5 * S)).toMatchObject({ switchState: 'scheduled' });
      h.advance(6 * S);
    }
    expect(h.take().filter((e) => e.type === 'switch' && e.action === 'fired')).toHaveLength(10);
    expect(arm(h, 5 * S)).toMatchObject({ kind: 'limited' });
    h.time = Math.ceil(h.time / DAY_US) * DAY_US;
    expect(arm(h, 5 * S)).toMatchObject({ switchState: 'scheduled' });
  });

  it('refuses the 51st armed switch of a wallet, but refreshing stays allowed', () => {
    const markets = Array.from({ length: 6 }, (_, i) => testMarket({ id: i + 1, displayName: `M${i + 1}-USD` }));
    const h = harness({ markets });
    let armed = 0;
    for (let index = 0; index < 10; index++) {
      for (const marketId of [undefined, 1, 2, 3, 4]) {
        expect(arm(h, 60 * S, { accountIndex: index, ...(marketId === undefined ? {} : { marketId }) })).toMatchObject({ switchState: 'scheduled' });
        armed++;
      }
    }
    expect(armed).toBe(50);
    expect(arm(h, 60 * S, { marketId: 5 })).toMatchObject({ kind: 'limited' });
    expect(arm(h, 90 * S, { marketId: 1 })).toMatchObject({ switchState: 'scheduled' });
    h.run({ type: 'scheduleCancel', address: ALICE, accountIndex: 0, deadline: null });
    expect(arm(h, 60 * S, { marketId: 5 })).toMatchObject({ switchState: 'scheduled' });
  });
});
