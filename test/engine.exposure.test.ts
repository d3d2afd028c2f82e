/**
 * `changeExposure` (margin.ts) is the one-pass form of beginChange → exposure change →
 * refreshActive → endChange that the place, cancel and fill paths use. The float margin sums are
 * compared bit for bit with the reference engine's, so the fused form must leave every double
 * of the row and of the account's sums exactly as the bracketed form does, whatever the row held.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apply, createEngine, type Engine } from '../engine/index.ts';
import { getOrCreateAccount, refreshActive, type Account } from '../engine/account.ts';
import { beginChange, changeExposure, crossRiskF, endChange } from '../engine/margin.ts';
import { AW, COST_F, ensureRow, ISOLATED, LEVERAGE, OPEN_BUY, OPEN_ORDERS, OPEN_SELL, SIZE, SUM_CHANGES, W } from '../engine/risk-table.ts';
import { ALICE, T0, testMarket } from './support/engine-fixture.ts';

interface RowState {
  size: number;
  openBuy: number;
  openSell: number;
  openOrders: number;
  cost: number;
  leverage: number;
  isolated: boolean;
  /** Whether the sums are current when the change starts (crossRiskF ran at this epoch). */
  sumsValid: boolean;
  changes: number;
}

/** A position in the other market, so that the sums hold more than the changed row's terms. */
interface Other {
  size: number;
  cost: number;
  price: number;
}

function setUp(state: RowState, markPrice: number, other: Other): { engine: Engine; account: Account; row: number } {
  const engine = createEngine({ markets: [testMarket({ id: 2, stepSize: '0.0001' }), testMarket()] });
  apply(engine, { type: 'setOraclePrice', time: T0, marketId: 2, price: other.price });
  apply(engine, { type: 'setOraclePrice', time: T0, marketId: 1, price: markPrice });
  const account = getOrCreateAccount(engine.accounts, ALICE, 0);
  const t = account.table;
  const otherRow = ensureRow(t, account.id, 0);
  t.rows[otherRow * W + SIZE] = other.size;
  t.rows[otherRow * W + COST_F] = other.cost;
  refreshActive(account, otherRow);
  const row = ensureRow(t, account.id, 1);
  const r = t.rows;
  const o = row * W;
  r[o + SIZE] = state.size;
  r[o + OPEN_BUY] = state.openBuy;
  r[o + OPEN_SELL] = state.openSell;
  r[o + OPEN_ORDERS] = state.openOrders;
  r[o + COST_F] = state.cost;
  r[o + LEVERAGE] = state.leverage;
  r[o + ISOLATED] = state.isolated ? 1 : 0;
  refreshActive(account, row);
  t.accountSums[account.id * AW + SUM_CHANGES] = state.changes;
  if (state.sumsValid) crossRiskF(account, engine.bySlot, engine.markEpoch);
  return { engine, account, row };
}

function bytes(a: Float64Array): number[] {
  return Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}

const rowState = fc.record({
  size: fc.integer({ min: -1_000_000, max: 1_000_000 }),
  openBuy: fc.integer({ min: 0, max: 1_000_000 }),
  openSell: fc.integer({ min: 0, max: 1_000_000 }),
  openOrders: fc.integer({ min: 0, max: 5 }),
  cost: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
  leverage: fc.constantFrom(0, 1, 3, 20, 50),
  isolated: fc.boolean(),
  sumsValid: fc.boolean(),
  changes: fc.constantFrom(0, 500, 1000),
});

describe('changeExposure', () => {
  it('leaves the row and the account sums bit for bit as the bracketed change does', () => {
    fc.assert(
      fc.property(
        rowState,
        fc.integer({ min: 1, max: 200_000 }),
        fc.constantFrom(0, 1),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom(-1, 0, 1),
        fc.record({ size: fc.integer({ min: -1_000_000, max: 1_000_000 }), cost: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), price: fc.integer({ min: 1, max: 200_000 }) }),
        (state, markPrice, side, qty, orders, other) => {
          // An order leaves as much exposure as it brought: a release never goes below zero.
          const openBefore = side === 0 ? state.openBuy : state.openSell;
          const delta = orders < 0 ? -Math.min(qty, openBefore) : qty;
          const deltaOrders = orders < 0 && state.openOrders === 0 ? 0 : orders;
          const fused = setUp(state, markPrice, other);
          changeExposure(fused.account, fused.row, fused.engine.bySlot[1]!, fused.engine.markEpoch, side, delta, deltaOrders);

          const bracketed = setUp(state, markPrice, other);
          const { account, row, engine } = bracketed;
          const r = account.table.rows;
          beginChange(account, row, engine.markEpoch);
          if (side === 0) r[row * W + OPEN_BUY] = r[row * W + OPEN_BUY]! + delta;
          else r[row * W + OPEN_SELL] = r[row * W + OPEN_SELL]! + delta;
          r[row * W + OPEN_ORDERS] = r[row * W + OPEN_ORDERS]! + deltaOrders;
          refreshActive(account, row);
          endChange(account, row, engine.bySlot, engine.markEpoch);

          expect(bytes(fused.account.table.rows)).toEqual(bytes(account.table.rows));
          expect(bytes(fused.account.table.accountSums)).toEqual(bytes(account.table.accountSums));
          expect(fused.account.active).toEqual(account.active);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
