import { describe, expect, it } from 'vitest';
import { compileMarket, type OrderEvent } from '../engine/index.ts';
import { averagePrice, formatOrder, orderIdString, parseOrderId, size, usd } from '../gateway/contract/format.ts';
import { defaultMarkets } from '../sim/markets.ts';

const btc = compileMarket(defaultMarkets().find((m) => m.displayName === 'BTC-USD')!);

function orderEvent(patch: Partial<OrderEvent> = {}): OrderEvent {
  return {
    type: 'order',
    globalSeq: 1,
    accountSeq: 7,
    time: 1_700_000_000_000_001,
    orderId: 255,
    address: '0x' + 'ab'.repeat(20),
    accountIndex: 0,
    marketId: 1,
    clientId: undefined,
    side: 0,
    orderType: 0,
    tif: 0,
    reduceOnly: false,
    price: 970_001,
    size: 150_000,
    remaining: 150_000,
    filled: 0,
    filledValue: 0,
    goodTilTime: 1_703_456_000_000_000,
    createdAt: 1_700_000_000_000_000,
    status: 'OPEN',
    rejectionReason: undefined,
    cancelReason: undefined,
    origin: undefined,
    tpslType: undefined,
    triggerPrice: undefined,
    isPositionTpsl: false,
    parentOrderId: undefined,
    ...patch,
  };
}

describe('order record fields (supplement §7)', () => {
  it('prints prices with the tick\'s decimals and sizes trimmed', () => {
    const r = formatOrder(orderEvent(), btc);
    expect(r).toMatchObject({ orderId: 'ff', marketDisplayName: 'BTC-USD', side: 'BUY', price: '97000.1', originalSize: '0.0015', remainingSize: '0.0015', filledSize: '0.0', state: 'OPEN' });
  });

  it('omits accountIndex when 0, reduceOnly unless true, and reads resting GTT back as "GTC"', () => {
    const r = formatOrder(orderEvent(), btc);
    expect('accountIndex' in r).toBe(false);
    expect('reduceOnly' in r).toBe(false);
    expect(r.timeInForce).toBe('GTC');
    expect(formatOrder(orderEvent({ accountIndex: 3, reduceOnly: true, tif: 2 }), btc)).toMatchObject({ accountIndex: 3, reduceOnly: true, timeInForce: 'IOC' });
  });

  it('carries avgFillPrice on an order with any filled quantity, CANCELED included', () => {
    const r = formatOrder(orderEvent({ status: 'CANCELED', filled: 100_000, remaining: 50_000, filledValue: 970_001 * 100_000 }), btc);
    expect(r.avgFillPrice).toBe('97000.1');
  });

  it('prints liquidation legs as liq:<id> and drops type on LIQUIDATED / ADL', () => {
    const r = formatOrder(orderEvent({ status: 'LIQUIDATED', origin: 'LIQUIDATION' }), btc);
    expect(r.orderId).toBe('liq:ff');
    expect('type' in r).toBe(false);
  });
});

describe('orderIds are hex strings', () => {
  it('round-trips', () => {
    expect(orderIdString(4096)).toBe('1000');
    expect(parseOrderId('1000')).toBe(4096);
    expect(parseOrderId('0x1000')).toBe(4096);
    expect(parseOrderId('liq:ff')).toBe(255);
    expect(parseOrderId('zz')).toBeNull();
    expect(parseOrderId(12)).toBeNull();
  });
});

describe('decimal amounts are strings', () => {
  it('formats USD from quote quantums and sizes', () => {
    expect(usd(1_500_000_000n)).toBe('1.5');
    expect(usd(-2_000_000_000n)).toBe('-2.0');
    expect(usd(1n)).toBe('0.000000001');
    expect(size(btc, 0)).toBe('0.0');
    expect(averagePrice(btc, 0, 0)).toBe('0');
  });
});
