/**
 * Test builders for the engine: markets with round numbers, accounts, and commands with
 * defaults filled in, all going through the production `createEngine` / `apply`.
 */
import { apply, createEngine, type Engine } from '../../engine/index.ts';
import type {
  Command,
  CommandResult,
  EngineEvent,
  EngineLimits,
  MarketDef,
  ModifyOrderCommand,
  PlaceOrderCommand,
  RiskConfig,
} from '../../engine/index.ts';

export const T0 = 1_700_000_000_000_000; // µs
export const DAY_US = 86_400_000_000;
export const GTT = T0 + 40 * DAY_US;

/** Market 1: tick 0.1, step 0.001, so price 100.0 = 1000 ticks and size 1 = 1000 quantums. */
export function testMarket(overrides: Partial<MarketDef> = {}): MarketDef {
  return {
    id: 1,
    displayName: 'TEST-USD',
    baseAsset: 'TEST',
    status: 'ONLINE',
    category: 'CRYPTO',
    tickSize: '0.1',
    stepSize: '0.001',
    tickTiers: [{ upToPrice: '1000', tick: '0.1' }, { upToPrice: '10000', tick: '0.5' }, { tick: '1' }],
    minOrderNotional: '5',
    minOrderSize: '0.001',
    maxOrderSize: '100000',
    initialMarginFraction: '0.05',
    maintenanceMarginFraction: '0.033334',
    offHoursInitialMarginFraction: '0.05',
    regularTradingHours: null,
    addedTimestamp: 1_700_000_000,
    ...overrides,
  };
}

export const ALICE = '0x' + 'a'.repeat(40);
export const BOB = '0x' + 'b'.repeat(40);
export const CAROL = '0x' + 'c'.repeat(40);
export const DAVE = '0x' + 'd'.repeat(40);

/** Four subaccounts over three wallets: enough for self-trade, cross-account and subaccount cases. */
export const TEST_ACCOUNTS = [
  { address: ALICE, accountIndex: 0 },
  { address: ALICE, accountIndex: 1 },
  { address: BOB, accountIndex: 0 },
  { address: CAROL, accountIndex: 0 },
] as const;

export interface Harness {
  engine: Engine;
  events: EngineEvent[];
  time: number;
  /** Applies a command at the harness time (advanced by 1 µs per call unless given). */
  run(command: DistributiveOmit<Command, 'time'> & { time?: number }): CommandResult;
  place(p: Partial<PlaceOrderCommand> & { side: 0 | 1; price: number; size: number }): CommandResult;
  modify(p: Partial<ModifyOrderCommand> & { price: number; size: number }): CommandResult;
  cancel(p: { orderId?: number; clientId?: string; address?: string; accountIndex?: number; marketId?: number }): CommandResult;
  /** Events since the last call. */
  take(): EngineEvent[];
  advance(us: number): CommandResult;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What harness() deposits into each test account: one billion USD. */
export const FUNDING = 1_000_000_000n * 1_000_000_000n;

export function harness(options: { markets?: MarketDef[]; limits?: Partial<EngineLimits>; risk?: Partial<RiskConfig>; mark?: number; fund?: boolean } = {}): Harness {
  const events: EngineEvent[] = [];
  const engine = createEngine({ markets: options.markets ?? [testMarket()], limits: options.limits ?? {}, risk: options.risk ?? {} }, (e) => events.push(e));
  let taken = 0;
  const h: Harness = {
    engine,
    events,
    time: T0,
    run(command) {
      const time = command.time ?? ++h.time;
      if (time > h.time) h.time = time;
      return apply(engine, { ...command, time } as Command);
    },
    place(p) {
      return h.run({
        type: 'placeOrder',
        address: ALICE,
        accountIndex: 0,
        marketId: 1,
        orderType: 0,
        tif: 0,
        reduceOnly: false,
        goodTilTime: h.time + 40 * DAY_US,
        ...p,
      } as PlaceOrderCommand);
    },
    modify(p) {
      return h.run({ type: 'modifyOrder', address: ALICE, accountIndex: 0, marketId: 1, ...p } as ModifyOrderCommand);
    },
    cancel(p) {
      return h.run({ type: 'cancelOrder', address: ALICE, accountIndex: 0, marketId: 1, ...p });
    },
    take() {
      const out = events.slice(taken);
      taken = events.length;
      return out;
    },
    advance(us) {
      return h.run({ type: 'advanceTime', time: h.time + us });
    },
  };
  for (const m of options.markets ?? [testMarket()]) {
    const mark = options.mark ?? 1000;
    h.run({ type: 'setOraclePrice', marketId: m.id, price: mark });
  }
  // Every account the tests trade with starts funded, so margin never gets in the way of a
  // rule that is not about margin.
  for (const { address, accountIndex } of [...TEST_ACCOUNTS, { address: DAVE, accountIndex: 0 }]) {
    if (options.fund !== false) h.run({ type: 'deposit', address, accountIndex, amount: FUNDING });
  }
  h.take();
  return h;
}

/** The orderId of a place result (throws when the command did not produce an order). */
export function idOf(result: CommandResult): number {
  if (result.kind !== 'order') throw new Error(`expected an order result, got ${JSON.stringify(result)}`);
  return result.orderId;
}

/** Order events reduced to what a rule usually talks about. */
export function orderUpdates(events: EngineEvent[]): { orderId: number; status: string; reason?: string; cancelReason?: string; remaining: number; filled: number; price: number }[] {
  return events.flatMap((e) =>
    e.type === 'order'
      ? [{
          orderId: e.orderId,
          status: e.status,
          remaining: e.remaining,
          filled: e.filled,
          price: e.price,
          ...(e.rejectionReason !== undefined ? { reason: e.rejectionReason } : {}),
          ...(e.cancelReason !== undefined ? { cancelReason: e.cancelReason } : {}),
        }]
      : [],
  );
}

/** A stable text form of an event log (bigint-safe), for hashing and snapshots. */
export function serialize(events: EngineEvent[]): string {
  return events.map((e) => JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? v.toString() + 'n' : v))).join('\n');
}
