/**
 * GET /sim/ledger: the exchange's books over the control API, checked from outside. Random
 * streams of deposits, signed orders, oracle shocks, forced liquidations and clock steps (hourly
 * funding and interest) run against a server; after every step the ledger's figures must satisfy
 * the conservation identity exactly (decimal strings read back as integer quote quantums), and
 * its sums over accounts must equal what the public account reads show.
 */
import Big from 'big.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceToTicks, ticksToPrice, type EngineEvent } from '../engine/index.ts';
import { startServer, type Server } from '../sim/server.ts';
import { wallet, type Wallet } from './support/gateway-fixture.ts';
import { get, onboard, placeOrder, post } from './support/persistence-fixture.ts';

const WALLETS: Wallet[] = [wallet(0x81), wallet(0x82), wallet(0x83), wallet(0x84)];
const MARKET = 2; // ETH-USD
const QUANTITIES = ['0.01', '0.1', '0.5', '1', '3'];

/** USD decimal → quote quantums, refusing anything that is not exact. */
function quantums(text: unknown): bigint {
  const value = new Big(String(text)).times(1e9);
  if (!value.eq(value.round(0, Big.roundDown))) throw new Error(`${String(text)} is finer than a quantum`);
  return BigInt(value.toFixed(0));
}

type Op =
  | { k: 'deposit'; w: number; usd: number }
  | { k: 'order'; w: number; sell: boolean; permille: number; q: number; ioc: boolean }
  | { k: 'oracle'; permille: number }
  | { k: 'liquidate'; w: number }
  | { k: 'clock'; ms: number };

const wArb = fc.integer({ min: 0, max: WALLETS.length - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ k: fc.constant('deposit' as const), w: wArb, usd: fc.integer({ min: 1, max: 400 }) }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant('order' as const), w: wArb, sell: fc.boolean(), permille: fc.integer({ min: -20, max: 20 }), q: fc.integer({ min: 0, max: QUANTITIES.length - 1 }), ioc: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('oracle' as const), permille: fc.oneof(fc.integer({ min: -40, max: 40 }), fc.integer({ min: -250, max: 250 })) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('liquidate' as const), w: wArb }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('clock' as const), ms: fc.oneof(fc.integer({ min: 1000, max: 60_000 }), fc.integer({ min: 1_800_000, max: 7_200_000 })) }) },
);
const streamArb = fc.record({ deposits: fc.array(fc.integer({ min: 50, max: 3000 }), { minLength: WALLETS.length, maxLength: WALLETS.length }), ops: fc.array(opArb, { minLength: 5, maxLength: 40, size: 'max' }) });

let server: Server;
const seen = { liquidations: 0, adlFills: 0, fills: 0 };
beforeAll(async () => {
  // No insurance fund: liquidations stop at the bankruptcy price and deleverage the rest (ADL).
  server = await startServer({ port: 0, clock: 'virtual', agents: false, rateLimits: false, risk: { insuranceFund: 0n } });
  server.exchange.listeners.add((events: readonly EngineEvent[]) => {
    for (const e of events) {
      if (e.type === 'liquidation') seen.liquidations++;
      if (e.type === 'fill') {
        seen.fills++;
        if (e.liquidation?.method === 'ADL') seen.adlFills++;
      }
    }
  });
});
afterAll(() => server.close());

async function run(op: Op): Promise<void> {
  const ms = server.exchange.engine.markets.get(MARKET)!;
  switch (op.k) {
    case 'deposit':
      expect((await post(server, '/sim/deposit', { address: WALLETS[op.w]!.address, amount: String(op.usd) })).status).toBe(200);
      return;
    case 'order': {
      const ticks = priceToTicks(ms.spec, ticksToPrice(ms.spec, Math.round(ms.oraclePrice * (1 + op.permille / 1000))));
      if (ticks === null || ticks <= 0) return;
      const reply = await placeOrder(server, WALLETS[op.w]!, { marketId: MARKET, side: op.sell ? 'SELL' : 'BUY', quantity: QUANTITIES[op.q]!, price: ticksToPrice(ms.spec, ticks), timeInForce: op.ioc ? 'IOC' : 'GTT' });
      expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(500);
      return;
    }
    case 'oracle': {
      const ticks = Math.max(1, Math.round(ms.oraclePrice * (1 + op.permille / 1000)));
      expect((await post(server, '/sim/oracle', { market: MARKET, price: ticksToPrice(ms.spec, ticks) })).status).toBe(200);
      return;
    }
    case 'liquidate':
      await post(server, '/sim/liquidate', { address: WALLETS[op.w]!.address });
      return;
    case 'clock':
      expect((await post(server, '/sim/clock', { advanceMs: op.ms })).status).toBe(200);
  }
}

/** The identity from the ledger's own figures, and its sums against the public account reads. */
async function checkLedger(after: string): Promise<void> {
  const reply = await get(server, '/sim/ledger');
  expect(reply.status).toBe(200);
  const l = reply.body as { [k: string]: string } & { accounts: Record<string, string>; conservation: { held: string; owed: string; residual: string; holds: boolean } };
  const outside = quantums(l.insuranceFund) - quantums(l.insuranceFundStart) + quantums(l.feesCollected) + quantums(l.lendingVault);
  const owed = quantums(l.totalDeposits) - quantums(l.totalWithdrawals);
  const atCost = quantums(l.accounts.collateral) + quantums(l.accounts.isolatedMargin) - quantums(l.accounts.positionCost) + outside;
  expect(atCost, `at cost, after ${after}`).toBe(owed);
  expect(quantums(l.accounts.equity) + outside, `marked to market, after ${after}`).toBe(owed);
  expect(l.conservation.holds).toBe(true);
  expect(quantums(l.conservation.residual)).toBe(0n);
  expect(quantums(l.conservation.held)).toBe(atCost);
  expect(quantums(l.conservation.owed)).toBe(owed);
  let collateral = 0n;
  let netDeposits = 0n;
  for (const w of WALLETS) {
    const account = await get(server, `/v1/account?address=${w.address}`);
    if (account.status === 404) continue;
    collateral += quantums(account.body.netQuoteBalance);
    netDeposits += quantums(account.body.netDeposits);
  }
  expect(quantums(l.accounts.collateral), `Σ netQuoteBalance, after ${after}`).toBe(collateral);
  expect(netDeposits, `Σ netDeposits, after ${after}`).toBe(owed);
}

describe('GET /sim/ledger shows the insurance fund, fees, lending vault, deposits and withdrawals, and money is conserved exactly', () => {
  it('answers the books of a new exchange: nothing deposited, the configured fund, the identity at zero', async () => {
    expect((await post(server, '/sim/reset', {})).status).toBe(200);
    const l = (await get(server, '/sim/ledger')).body as Record<string, unknown> & { conservation: Record<string, unknown> };
    for (const field of ['insuranceFund', 'insuranceFundStart', 'feesCollected', 'lendingVault', 'totalDeposits', 'totalWithdrawals']) expect(quantums(l[field]), field).toBe(0n);
    expect(l.conservation.holds).toBe(true);
    expect(l.openInterest).toEqual(expect.arrayContaining([{ market: 'ETH-USD', size: expect.stringMatching(/^0(\.0+)?$/) }]));
  });

  it('holds after every step of random streams of deposits, signed orders, oracle shocks, liquidations (with ADL) and funding hours', async () => {
    await fc.assert(
      fc.asyncProperty(streamArb, async (stream) => {
        await post(server, '/sim/reset', {});
        for (let i = 0; i < WALLETS.length; i++) await onboard(server, WALLETS[i]!, String(stream.deposits[i]!));
        await checkLedger('the deposits');
        for (const op of stream.ops) {
          await run(op);
          await checkLedger(JSON.stringify(op));
        }
      }),
      { numRuns: Number(process.env.LEDGER_PROPERTY_RUNS ?? 20) },
    );
    if (process.env.LEDGER_PROPERTY_STATS) console.info(JSON.stringify(seen));
    expect(seen.fills).toBeGreaterThan(0);
    expect(seen.liquidations).toBeGreaterThan(0);
    expect(seen.adlFills).toBeGreaterThan(0);
  }, 120_000);
});
