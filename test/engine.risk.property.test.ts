/**
 * Property tests of issue 3 (perpetual risk) over random command streams.
 *
 * A stream mixes small deposits, withdrawals and internal transfers, LIMIT orders (GTT and
 * IOC, some reduce-only) from five subaccounts in two markets, cancelAll, leverage and
 * cross/isolated switches, isolated margin adjustments, oracle shocks of up to ±30 % (which
 * liquidate, cascade and deleverage) and time steps over whole hours (funding and interest).
 * Money is kept thin (5 to 400 USD per account) so that margin binds and liquidations are
 * common. The insurance fund starts empty, small or large (an empty fund makes liquidation stop
 * at the bankruptcy price and deleverage the rest). Half of the streams start with a "borrower"
 * prefix: an account whose cross profit in market 1 carries a 1× isolated position in market 2,
 * which leaves its quote balance negative, so that borrow interest (and the lending vault) is
 * exercised.
 *
 * The engine is driven directly (createEngine / apply) with a sink that looks at engine state
 * as each event is emitted, so that a funding settlement can be compared with the insurance
 * fund at the moment it happens. One `describe` per rule; each rule is checked after every
 * command of its streams and a failure is shrunk by fast-check to a short command list. The
 * maintenance rule applies to every account, cross side and isolated position, after every
 * command, without exemptions.
 */
import { quoteOf } from '../engine/account.ts';
import { positionOf, touchedMarkets } from '../engine/account.ts';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { apply, createEngine, type Engine } from '../engine/engine.ts';
import { ledger } from '../engine/ledger.ts';
import { crossRisk, isolatedRisk } from '../engine/margin.ts';
import type { Command, EngineEvent, SideCode } from '../engine/types.ts';
import { ALICE, BOB, CAROL, DAVE, DAY_US, T0, testMarket } from './support/engine-fixture.ts';

const USD = 1_000_000_000n;
const HOUR_US = 3_600_000_000;
const E12 = 1_000_000_000_000n;

const ACCOUNTS = [
  { address: ALICE, accountIndex: 0 },
  { address: ALICE, accountIndex: 1 },
  { address: BOB, accountIndex: 0 },
  { address: CAROL, accountIndex: 0 },
  { address: DAVE, accountIndex: 0 },
] as const;
const MARKETS = [testMarket(), testMarket({ id: 2, displayName: 'TWO-USD', baseAsset: 'TWO' })];

// ---------------------------------------------------------------------------------------------
// Abstract commands, resolved against the engine's oracle prices when they run.

type Op =
  | { k: 'deposit'; acct: number; usd: number }
  | { k: 'withdraw'; acct: number; usd: number }
  | { k: 'transfer'; from: 0 | 1; usd: number }
  | { k: 'place'; acct: number; market: number; side: SideCode; permille: number; size: number; ioc: boolean; reduceOnly: boolean }
  | { k: 'cancelAll'; acct: number }
  | { k: 'leverage'; acct: number; market: number; leverage: number; isolated: boolean | undefined }
  | { k: 'margin'; acct: number; market: number; usd: number }
  | { k: 'oracle'; market: number; permille: number }
  | { k: 'advance'; us: number };

const acctArb = fc.integer({ min: 0, max: ACCOUNTS.length - 1 });
const marketArb = fc.constantFrom(1, 2);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('deposit' as const), acct: acctArb, usd: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('withdraw' as const), acct: acctArb, usd: fc.integer({ min: 1, max: 200 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('transfer' as const), from: fc.constantFrom<0 | 1>(0, 1), usd: fc.integer({ min: 1, max: 100 }) }) },
  {
    weight: 14,
    arbitrary: fc.record({
      k: fc.constant('place' as const),
      acct: acctArb,
      market: marketArb,
      side: fc.constantFrom<SideCode>(0, 1),
      /** Limit price relative to the oracle in ‰; IOC orders cross by |permille|. */
      permille: fc.integer({ min: -40, max: 40 }),
      size: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 60, max: 1500 }) }, { weight: 1, arbitrary: fc.integer({ min: 1500, max: 8000 }) }),
      ioc: fc.boolean(),
      reduceOnly: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('cancelAll' as const), acct: acctArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('leverage' as const),
      acct: acctArb,
      market: marketArb,
      leverage: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 20 })),
      isolated: fc.constantFrom<boolean | undefined>(true, true, false, undefined),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('margin' as const), acct: acctArb, market: marketArb, usd: fc.integer({ min: -20, max: 20 }) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      k: fc.constant('oracle' as const),
      market: marketArb,
      permille: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -60, max: 60 }) }, { weight: 1, arbitrary: fc.integer({ min: -300, max: 300 }) }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('advance' as const),
      us: fc.oneof(fc.integer({ min: 1, max: 5_000_000 }), fc.integer({ min: HOUR_US / 2, max: 3 * HOUR_US })),
    }),
  },
);

/**
 * Dave borrows: Bob (given 1,000 USD) sells him 1 unit in market 1, market 1 rises `rise` ‰,
 * and Dave, now in cross profit, buys `size` quantums of market 2 at 1× isolated leverage: the
 * pool takes the full notional out of his quote, which goes negative when size is large enough.
 */
function borrowerPrefix(rise: number, size: number): Op[] {
  return [
    { k: 'deposit', acct: 2, usd: 1000 },
    { k: 'place', acct: 2, market: 1, side: 1, permille: 0, size: 1000, ioc: false, reduceOnly: false },
    { k: 'place', acct: 4, market: 1, side: 0, permille: 0, size: 1000, ioc: true, reduceOnly: false },
    { k: 'oracle', market: 1, permille: rise },
    { k: 'leverage', acct: 4, market: 2, leverage: 1, isolated: true },
    { k: 'place', acct: 2, market: 2, side: 1, permille: 0, size, ioc: false, reduceOnly: false },
    { k: 'place', acct: 4, market: 2, side: 0, permille: 0, size, ioc: true, reduceOnly: false },
  ];
}

interface Stream {
  fund: bigint;
  /** Each account's opening deposit, USD. */
  deposits: number[];
  prefix: Op[];
  ops: Op[];
}

const streamArb: fc.Arbitrary<Stream> = fc.record({
  fund: fc.constantFrom(0n, 50n * USD, 1_000_000n * USD),
  deposits: fc.array(fc.integer({ min: 5, max: 400 }), { minLength: ACCOUNTS.length, maxLength: ACCOUNTS.length }),
  prefix: fc.oneof(
    fc.constant<Op[]>([]),
    fc.tuple(fc.integer({ min: 100, max: 600 }), fc.integer({ min: 500, max: 1500 })).map(([rise, size]) => borrowerPrefix(rise, size)),
  ),
  ops: fc.array(opArb, { minLength: 5, maxLength: 80, size: 'max' }),
});

// ---------------------------------------------------------------------------------------------
// A run: the engine, and each rule's bookkeeping.

type Rule = 'money' | 'net' | 'maintenance' | 'triggers' | 'adl' | 'funding' | 'pretrade';

interface Settlement {
  marketId: number;
  fundBefore: bigint;
  sum: bigint;
  count: number;
}

interface Stats {
  fills: number;
  liquidations: number;
  adl: number;
  adlFills: number;
  fundingPayments: number;
  interest: number;
  /** Placements the pre-trade rule judged, and how many of them it expected to be refused. */
  judged: number;
  undercollateralized: number;
}

interface Run {
  engine: Engine;
  rule: Rule;
  time: number;
  initialFund: bigint;
  nonce: number;
  /** Violations the sink saw during the current command. */
  violations: string[];
  /** |size| per account-market as of its last position event (ADL rule). */
  lastSize: Map<string, number>;
  /** The funding settlement being emitted, if any (funding rule). */
  settlement: Settlement | undefined;
  stats: Stats;
}

function newStats(): Stats {
  return { fills: 0, liquidations: 0, adl: 0, adlFills: 0, fundingPayments: 0, interest: 0, judged: 0, undercollateralized: 0 };
}

function addStats(into: Stats, from: Stats): void {
  into.fills += from.fills;
  into.liquidations += from.liquidations;
  into.adl += from.adl;
  into.adlFills += from.adlFills;
  into.fundingPayments += from.fundingPayments;
  into.interest += from.interest;
  into.judged += from.judged;
  into.undercollateralized += from.undercollateralized;
}

function amKey(address: string, accountIndex: number, marketId: number): string {
  return `${address}/${accountIndex}/${marketId}`;
}

function closeSettlement(run: Run): void {
  const s = run.settlement;
  if (s === undefined) return;
  run.settlement = undefined;
  const change = run.engine.insuranceFund - s.fundBefore;
  if (change !== -s.sum) {
    run.violations.push(`funding settlement of market ${s.marketId}: Σ payments ${s.sum} over ${s.count} positions, but the insurance fund changed by ${change}`);
  }
}

function onEvent(run: Run, e: EngineEvent): void {
  const engine = run.engine;
  // A settlement emits fundingRate, then a funding + position pair per position; the fund takes
  // the remainder right after the last pair, before any other event.
  if (run.settlement !== undefined && e.type !== 'funding' && e.type !== 'position') closeSettlement(run);
  switch (e.type) {
    case 'fundingRate':
      if (run.rule === 'funding') run.settlement = { marketId: e.marketId, fundBefore: engine.insuranceFund, sum: 0n, count: 0 };
      break;
    case 'funding': {
      run.stats.fundingPayments++;
      if (run.rule !== 'funding') break;
      const s = run.settlement;
      if (s === undefined || s.marketId !== e.marketId) {
        run.violations.push(`funding payment outside a settlement of its market: ${e.address}/${e.accountIndex} in market ${e.marketId}`);
        break;
      }
      s.sum += e.payment;
      s.count++;
      // payment = −size · oracle · valueMul · rate / 1e12; payers round up, receivers down.
      const ms = engine.markets.get(e.marketId)!;
      const exact = -BigInt(e.size) * BigInt(ms.oraclePrice) * ms.spec.valueMul * e.rate;
      const expected = exact >= 0n ? exact / E12 : -((-exact + E12 - 1n) / E12);
      if (e.payment !== expected) run.violations.push(`funding payment ${e.payment} for size ${e.size} at rate ${e.rate}: expected ${expected}`);
      break;
    }
    case 'position':
      run.lastSize.set(amKey(e.address, e.accountIndex, e.marketId), Math.abs(e.size));
      break;
    case 'fill':
      run.stats.fills++;
      if (e.liquidation?.method === 'ADL') {
        run.stats.adlFills++;
        if (run.rule !== 'adl') break;
        // An ADL fill is settled when it is emitted: compare with the size before it — the last
        // position event, or the previous ADL fill (the liquidated side gets one position event
        // after all its ADL fills).
        const slot = engine.markets.get(e.marketId)!.slot;
        const now = positionOf(engine.accounts.get(e.address + '/' + e.accountIndex)!, slot);
        const key = amKey(e.address, e.accountIndex, e.marketId);
        const before = run.lastSize.get(key) ?? 0;
        run.lastSize.set(key, Math.abs(now));
        if (Math.abs(now) > before) run.violations.push(`ADL fill grew ${e.address}/${e.accountIndex} in market ${e.marketId} from |${before}| to ${now}`);
        if (before - Math.abs(now) !== e.size) run.violations.push(`ADL fill of ${e.size} moved |size| from ${before} to ${Math.abs(now)}`);
        if (!e.positionEffect.startsWith('CLOSE_')) run.violations.push(`ADL fill with positionEffect ${e.positionEffect}`);
        if (e.fee !== 0n) run.violations.push(`ADL fill charged a fee of ${e.fee}`);
      }
      break;
    case 'adl':
      run.stats.adl++;
      break;
    case 'liquidation':
      run.stats.liquidations++;
      break;
    case 'interest':
      run.stats.interest++;
      break;
    default:
      break;
  }
}

function newRun(rule: Rule, initialFund: bigint): Run {
  const run: Run = {
    engine: undefined as unknown as Engine,
    rule,
    time: T0,
    initialFund,
    nonce: 0,
    violations: [],
    lastSize: new Map(),
    settlement: undefined,
    stats: newStats(),
  };
  run.engine = createEngine({ markets: MARKETS, risk: { insuranceFund: initialFund } }, (e) => onEvent(run, e));
  for (const m of MARKETS) exec(run, { type: 'setOraclePrice', marketId: m.id, price: 1000, time: run.time });
  return run;
}

function exec(run: Run, command: Command): void {
  run.violations = [];
  const expectRefusal = run.rule === 'pretrade' ? marginRefuses(run.engine, command) : undefined;
  const result = apply(run.engine, command);
  closeSettlement(run);
  if (expectRefusal !== undefined && result.kind === 'order') {
    const refused = result.rejectionReason === 'UNDERCOLLATERALIZED';
    run.stats.judged++;
    if (expectRefusal) run.stats.undercollateralized++;
    if (refused !== expectRefusal) run.violations.push(`placement ${refused ? 'refused' : 'accepted'} (${result.status}), but the exact margin rule says it should be ${expectRefusal ? 'refused' : 'accepted'}`);
  }
  const problems = [...run.violations, ...RULES[run.rule](run)];
  if (problems.length > 0) throw new Error(`after ${command.type} at ${command.time}: ${problems.join('; ')}`);
}

/** Ticks on the market's tick tiers (every tick below 1,000 USD, every 5th up to 10,000). */
function onTick(price: number): number {
  const p = Math.max(1, Math.round(price));
  return p < 10_000 ? p : Math.round(p / 5) * 5;
}

function toCommand(run: Run, op: Op): Command {
  const time = (run.time += op.k === 'advance' ? op.us : op.k === 'oracle' ? 1_000_000 : 1_000);
  const ref = (i: number): { address: string; accountIndex: number } => ({ address: ACCOUNTS[i]!.address, accountIndex: ACCOUNTS[i]!.accountIndex });
  switch (op.k) {
    case 'deposit':
      return { type: 'deposit', time, ...ref(op.acct), amount: BigInt(op.usd) * USD };
    case 'withdraw':
      return { type: 'withdraw', time, ...ref(op.acct), amount: BigInt(op.usd) * USD, nonce: `n${run.nonce++}` };
    case 'transfer':
      return { type: 'transfer', time, address: ALICE, fromAccountIndex: op.from, toAccountIndex: 1 - op.from, amount: BigInt(op.usd) * USD, nonce: `n${run.nonce++}` };
    case 'place': {
      const oracle = run.engine.markets.get(op.market)!.oraclePrice;
      const permille = op.ioc ? (op.side === 0 ? 1 : -1) * Math.abs(op.permille) : op.permille;
      return {
        type: 'placeOrder',
        time,
        ...ref(op.acct),
        marketId: op.market,
        side: op.side,
        orderType: 0,
        tif: op.ioc ? 2 : 0,
        price: onTick(oracle * (1 + permille / 1000)),
        size: op.size,
        reduceOnly: op.reduceOnly,
        goodTilTime: time + 40 * DAY_US,
      };
    }
    case 'cancelAll':
      return { type: 'cancelAll', time, ...ref(op.acct) };
    case 'leverage':
      return { type: 'setLeverage', time, ...ref(op.acct), marketId: op.market, leverage: op.leverage, isolated: op.isolated };
    case 'margin':
      return { type: 'adjustIsolatedMargin', time, ...ref(op.acct), marketId: op.market, amount: BigInt(op.usd) * USD };
    case 'oracle': {
      // Oracle updates are ≥ 1 s apart: each one is a funding premium sample.
      const oracle = run.engine.markets.get(op.market)!.oraclePrice;
      return { type: 'setOraclePrice', time, marketId: op.market, price: Math.min(9_000, Math.max(200, onTick(oracle * (1 + op.permille / 1000)))) };
    }
    case 'advance':
      return { type: 'advanceTime', time };
  }
}

// ---------------------------------------------------------------------------------------------
// State rules, checked after every command.

/**
 * Money is conserved exactly. A fill changes (quote − cost) by exactly −V for the buyer and +V
 * for the seller (position.ts): the cash paid is offset by the position's cost basis, so Σ(quote −
 * cost) over accounts is what the exchange owes them at cost. Unrealized PnL is not in it and
 * need not be: Σ size is 0 in every market, so Σ size · price (marking every position to the
 * same price) is 0 too, and unrealized gains and losses cancel across accounts. Isolated pools
 * are account money held aside. Outside accounts: the insurance fund (less the amount it was
 * created with, which nobody deposited), fees collected and the lending vault.
 */
function moneyRule(run: Run): string[] {
  const engine = run.engine;
  let held = 0n;
  for (const a of engine.accounts.values()) {
    held += quoteOf(a);
    for (const am of touchedMarkets(a)) held += am.isolatedMargin - am.cost;
  }
  const outside = engine.insuranceFund - run.initialFund + engine.feesCollected + engine.lendingVault;
  const net = engine.deposited - engine.withdrawn;
  const out = held + outside === net ? [] : [`money: accounts ${held} + outside ${outside} ≠ deposited − withdrawn ${net} (off by ${held + outside - net})`];
  // The ledger (what GET /sim/ledger shows) reads the same books and states the same identity,
  // at cost and marked to market.
  const l = ledger(engine);
  if (l.insuranceFundStart !== run.initialFund || l.held !== held + outside || l.owed !== net || l.residual !== held + outside - net) {
    out.push(`ledger: held ${l.held} owed ${l.owed} residual ${l.residual} start ${l.insuranceFundStart}; the walk: held ${held + outside} owed ${net} start ${run.initialFund}`);
  }
  if (l.accounts.equity + outside !== net) out.push(`ledger: equity ${l.accounts.equity} + outside ${outside} ≠ deposited − withdrawn ${net} (unrealized ${l.accounts.unrealizedPnl}, cost ${l.accounts.positionCost})`);
  return out;
}

/** Positions net to zero per market, and open interest is the long side. */
function netRule(run: Run): string[] {
  const out: string[] = [];
  for (const ms of run.engine.bySlot) {
    let longs = 0;
    let shorts = 0;
    for (const a of run.engine.accounts.values()) {
      const size = positionOf(a, ms.slot);
      if (size > 0) longs += size;
      else shorts -= size;
    }
    if (longs !== shorts) out.push(`market ${ms.spec.id}: Σ longs ${longs} ≠ Σ shorts ${shorts}`);
    if (ms.openInterest !== longs) out.push(`market ${ms.spec.id}: openInterest ${ms.openInterest} ≠ Σ longs ${longs}`);
  }
  return out;
}

/**
 * No account stays below maintenance: the cross side of an account with cross positions, and
 * each isolated position, have equity ≥ maintenance margin (or no position left).
 */
function maintenanceRule(run: Run): string[] {
  const engine = run.engine;
  const out: string[] = [];
  for (const a of engine.accounts.values()) {
    let crossPositions = 0;
    for (const am of touchedMarkets(a)) {
      if (am === undefined || am.size === 0) continue;
      if (!am.isolated) {
        crossPositions++;
        continue;
      }
      const iso = isolatedRisk(engine.bySlot[am.slot]!, am);
      if (iso.equity < iso.maintenance) out.push(`${a.key} isolated in market ${am.marketId} (size ${am.size}): equity ${iso.equity} < maintenance ${iso.maintenance}`);
    }
    if (crossPositions > 0) {
      const cross = crossRisk(a, engine.bySlot);
      if (cross.equity < cross.maintenance) out.push(`${a.key} cross: equity ${cross.equity} < maintenance ${cross.maintenance}`);
    }
  }
  return out;
}

/**
 * The liquidation triggers in force are safe: for each account's cross side, the health the
 * positions would lose if every mark moved to its position's trigger (|mark − trigger| · size ·
 * value per tick, net of the maintenance that move releases) fits in its slack, equity −
 * maintenance. That is what lets an oracle tick skip every account whose triggers it did not
 * cross, however the triggers were refreshed (risk.ts `refreshAfterFills` skips untouched
 * positions). Accounts at or below maintenance are the maintenance rule's business.
 */
function triggersRule(run: Run): string[] {
  const engine = run.engine;
  const out: string[] = [];
  for (const a of engine.accounts.values()) {
    let loss = 0;
    let positions = 0;
    for (const am of touchedMarkets(a)) {
      if (am === undefined || am.size === 0 || am.isolated) continue;
      const ms = engine.bySlot[am.slot]!;
      const price = ms.markPrice > 0 ? ms.markPrice : ms.oraclePrice;
      if (price <= 0) continue;
      positions++;
      if (Number.isNaN(am.trigger)) {
        out.push(`${a.key} market ${am.marketId}: position ${am.size} without a trigger`);
        continue;
      }
      const long = am.size > 0;
      const perTick = Math.abs(am.size) * ms.spec.valueMulF * (long ? 1 - ms.spec.mmfF : 1 + ms.spec.mmfF);
      loss += Math.max(0, long ? price - am.trigger : am.trigger - price) * perTick;
    }
    if (positions === 0) continue;
    const cross = crossRisk(a, engine.bySlot);
    const slack = Number(cross.equity - cross.maintenance);
    if (slack > 0 && loss > slack * (1 + 1e-9) + 1e6) out.push(`${a.key}: triggers would lose ${loss} of a slack of ${slack}`);
  }
  return out;
}

/**
 * The documented pre-trade margin rule, in exact bigint sums (margin.ts `crossRisk`), for a
 * placement that is not reduce-only, judged on the state before it: it is UNDERCOLLATERALIZED
 * when cross equity would not cover cross initial margin with the order and the order raises
 * that requirement. Undefined for other commands. (The engine decides with float sums far from
 * the threshold and exact sums near it; the two must agree.)
 */
function marginRefuses(engine: Engine, command: Command): boolean | undefined {
  if (command.type !== 'placeOrder' || command.reduceOnly) return undefined;
  const ms = engine.markets.get(command.marketId)!;
  const account = engine.accounts.get(command.address + '/' + command.accountIndex) ?? NO_ACCOUNT;
  const extra = { slot: ms.slot, buy: command.side === 0 ? command.size : 0, sell: command.side === 1 ? command.size : 0, price: command.price };
  const after = crossRisk(account, engine.bySlot, extra);
  return after.initial > after.equity && after.initial > crossRisk(account, engine.bySlot).initial;
}

/** An account the engine has not created yet: no money, no markets. */
const NO_ACCOUNT = { quote: 0n, active: [], markets: [] } as unknown as Parameters<typeof crossRisk>[0];

/** Checked by the sink as the events happen. */
const none = (): string[] => [];

const RULES: Record<Rule, (run: Run) => string[]> = { money: moneyRule, net: netRule, maintenance: maintenanceRule, triggers: triggersRule, adl: none, funding: none, pretrade: none };

function play(rule: Rule, stream: Stream): Run {
  const run = newRun(rule, stream.fund);
  stream.deposits.forEach((usd, acct) => exec(run, toCommand(run, { k: 'deposit', acct, usd })));
  for (const op of [...stream.prefix, ...stream.ops]) exec(run, toCommand(run, op));
  return run;
}

/** Streams per rule; RISK_PROPERTY_RUNS overrides it for a longer hunt. */
const RUNS = Number(process.env.RISK_PROPERTY_RUNS ?? 1500);

/** Runs the streams for one rule; returns what they exercised (shrinking runs included). */
function check(rule: Rule): Stats {
  const total = newStats();
  fc.assert(
    fc.property(streamArb, (stream) => {
      addStats(total, play(rule, stream).stats);
    }),
    { numRuns: RUNS },
  );
  if (process.env.RISK_PROPERTY_STATS) console.log(rule, JSON.stringify(total));
  return total;
}

// ---------------------------------------------------------------------------------------------

describe('money is conserved exactly: Σ accounts (quote + isolated pools − position cost) + insurance fund + fees + lending vault = deposited − withdrawn, and the ledger states it', () => {
  it('holds after every command of random streams', () => {
    const seen = check('money');
    expect(seen.fills).toBeGreaterThan(0);
    expect(seen.liquidations).toBeGreaterThan(0);
    expect(seen.adl).toBeGreaterThan(0);
    expect(seen.fundingPayments).toBeGreaterThan(0);
    expect(seen.interest).toBeGreaterThan(0);
  });
});

describe('positions net to zero: Σ long sizes = Σ short sizes per market (= open interest)', () => {
  it('holds after every command of random streams', () => {
    const seen = check('net');
    expect(seen.fills).toBeGreaterThan(0);
    expect(seen.adl).toBeGreaterThan(0);
  });
});

describe('no account stays below maintenance after a command: liquidation (and ADL) leave every cross side and isolated position at equity ≥ maintenance, or flat', () => {
  it('holds after every command of random streams', () => {
    const seen = check('maintenance');
    expect(seen.liquidations).toBeGreaterThan(0);
    expect(seen.adl).toBeGreaterThan(0);
  });
});

describe('liquidation triggers stay safe after every command: moving every mark to its position\'s trigger loses no more than the cross slack', () => {
  it('holds after every command of random streams', () => {
    const seen = check('triggers');
    expect(seen.fills).toBeGreaterThan(0);
    expect(seen.liquidations).toBeGreaterThan(0);
  });
});

describe('ADL never leaves a position larger than before: each ADL fill closes exactly its size, without fee', () => {
  it('holds for every ADL fill of random streams', () => {
    const seen = check('adl');
    expect(seen.adlFills).toBeGreaterThan(0);
  });
});

describe('funding: the payments of one settlement sum to −(the insurance fund\'s change from that settlement), each payment −size · oracle · rate rounded against the payer', () => {
  it('holds for every settlement of random streams', () => {
    const seen = check('funding');
    expect(seen.fundingPayments).toBeGreaterThan(0);
  });
});

describe('pre-trade margin: a placement is REJECTED UNDERCOLLATERALIZED exactly when, with it, cross initial margin exceeds cross equity and the order raises the requirement', () => {
  it('the engine\'s decision matches the exact bigint rule for every placement of random streams', () => {
    const seen = check('pretrade');
    expect(seen.judged).toBeGreaterThan(0);
    expect(seen.undercollateralized).toBeGreaterThan(0);
  });
});
