/**
 * The exchange at the gateway's edge: the engine plus what the interface reads from it.
 *
 * Contract: every state change goes through `submit`, which stamps the command with the clock's
 * time, applies it, and hands the events it produced to the read models and then to the
 * listeners (the WebSocket fan-out, persistence), and hands the stamped command to `onCommand`
 * (the journal, gateway/persistence/). `applyStamped` is the same path for a command that already
 * carries its time (journal replay): the engine is deterministic given command and time, so
 * replaying the journal rebuilds the state exactly. Reads never touch the engine's internals
 * except through engine/index.ts. `orders` holds the latest update of every live order; the
 * history (closed orders, fills, trades, account ledgers) goes to `history` (history-store.ts):
 * by default the bounded in-memory lists below (closed orders then stay in `orders`, named by
 * `closed`), or SQLite tables once persistence installs them (`closed`, `fills`, `trades` and
 * `ledgers` then stay empty and a closed order leaves `orders`). The other read models and the
 * services follow the exchange as listeners, wired once by `createGateway` (gateway.ts).
 */
import { apply, createEngine, type Engine, type EngineConfig } from '../../engine/index.ts';
import type { Command, CommandResult, EngineEvent, FillEvent, OrderEvent, ResultOf, TradesEvent } from '../../engine/index.ts';
import { TERMINAL_ORDER_STATUSES } from '../../engine/spec.ts';
import { accountKeyFrom, createAccountKeys, type AccountKeys } from '../shared/account-key.ts';
import { DEFAULT_HISTORY_LIMIT, recordLedger, type Ledgers } from './history.ts';
import { memoryHistoryStore, type HistoryStore, type MemoryHistory } from './history-store.ts';
import { newRing, ringPush, type Ring } from '../shared/ring.ts';

/** Unix microseconds. */
export type Clock = () => number;

export type EventListener = (events: readonly EngineEvent[]) => void;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type Submission = DistributiveOmit<Command, 'time'>;

export interface ExchangeLimits {
  /** Closed orders kept per account for reads. */
  closedOrdersPerAccount: number;
  fillsPerAccount: number;
  tradesPerMarket: number;
  /** Funding payments, interest settlements and transfers kept per account and per kind. */
  ledgerEntriesPerAccount: number;
}

export const DEFAULT_EXCHANGE_LIMITS: ExchangeLimits = {
  closedOrdersPerAccount: 1000,
  fillsPerAccount: 5000,
  tradesPerMarket: 5000,
  ledgerEntriesPerAccount: DEFAULT_HISTORY_LIMIT,
};

export interface Exchange extends MemoryHistory {
  engine: Engine;
  clock: Clock;
  limits: ExchangeLimits;
  /** The latest update of every order still remembered, by orderId. */
  orders: Map<number, OrderEvent>;
  /** One key string per account for the event paths (shared/account-key.ts). */
  accountKeys: AccountKeys;
  /** Closed orderIds per account key, oldest first (bounded: rings, shared/ring.ts). */
  closed: Map<string, Ring<number>>;
  fills: Map<string, Ring<FillEvent>>;
  trades: Map<number, Ring<TradesEvent>>;
  /** Funding, interest and transfer events per account key (history.ts). */
  ledgers: Ledgers;
  /** Where history goes and is read from (memory by default). */
  history: HistoryStore;
  listeners: Set<EventListener>;
  /** Called with every command `submit` is about to apply, stamped with its time. */
  onCommand: ((command: Command) => void) | undefined;
  /** Applies a command at the clock's time; events reach read models, then listeners. */
  submit<S extends Submission>(command: S): ResultOf<S>;
  /** Applies a command at its own time (journal replay); `onCommand` is not called. */
  applyStamped<C extends Command>(command: C): ResultOf<C>;
}

export function createExchange(config: EngineConfig, clock: Clock, limits: Partial<ExchangeLimits> = {}): Exchange {
  return new ExchangeRecord(config, clock, limits);
}

/**
 * The exchange: a class, so that `submit` and `applyStamped` are one function for every exchange
 * built in a thread (a backtest builds one per run) rather than closures made per exchange,
 * which V8 inlines as constants and must throw away when the next exchange's run calls them.
 */
class ExchangeRecord implements Exchange {
  engine: Engine;
  clock: Clock;
  limits: ExchangeLimits;
  orders = new Map<number, OrderEvent>();
  accountKeys = createAccountKeys();
  closed = new Map<string, Ring<number>>();
  fills = new Map<string, Ring<FillEvent>>();
  trades = new Map<number, Ring<TradesEvent>>();
  ledgers: Ledgers = new Map();
  history: HistoryStore;
  listeners = new Set<EventListener>();
  onCommand: ((command: Command) => void) | undefined = undefined;
  /** The events of the command being applied, handed on when it returns. */
  private pending: EngineEvent[] = [];

  constructor(config: EngineConfig, clock: Clock, limits: Partial<ExchangeLimits>) {
    this.engine = createEngine(config, (e) => this.pending.push(e));
    this.clock = clock;
    this.limits = { ...DEFAULT_EXCHANGE_LIMITS, ...limits };
    // The memory store reads the exchange it belongs to.
    this.history = memoryHistoryStore(this);
  }

  submit<S extends Submission>(command: S): ResultOf<S> {
    // A copy with the time (stampedCopy). Object.assign, not a spread, for the general case: at
    // this megamorphic site a spread gave every copy a hidden class of its own, so every later
    // read of the command (engine, journal) missed V8's caches and went to the runtime.
    const stamped = stampedCopy(command, this.clock());
    // Journaled before it runs: a command that throws midway is replayed (and throws) the same
    // way, and one submitted by a listener lands after the command that caused it.
    this.onCommand?.(stamped);
    return this.applyStamped(stamped) as ResultOf<S>;
  }

  applyStamped<C extends Command>(command: C): ResultOf<C> {
    const result: CommandResult = apply(this.engine, command);
    const events = this.pending;
    this.pending = [];
    for (const e of events) recordEvent(this, e);
    this.history.record(events);
    if (events.length > 0) for (const listener of this.listeners) listener(events);
    return result as ResultOf<C>;
  }
}

/**
 * The fields of a placeOrder as the order writes build it (gateway/operations/order-writes/),
 * in their order: a command with exactly these is copied by one object literal, ~80 ns and one
 * object, where `Object.assign` grew the copy field by field (~270 ns and ~300 bytes of property
 * stores outgrown, the order path's largest copy). Any other shape takes `Object.assign`.
 */
const PLACE_ORDER_FIELDS = ['type', 'address', 'accountIndex', 'marketId', 'side', 'orderType', 'tif', 'price', 'size', 'reduceOnly', 'clientId', 'goodTilTime', 'tpslType', 'stopPrice', 'isPositionTpsl'] as const;

/** Whether `command`'s own enumerable keys are exactly `fields`, in that order (for-in reads V8's cached key list: no allocation). */
function hasFields(command: object, fields: readonly string[]): boolean {
  let i = 0;
  for (const key in command) {
    if (key !== fields[i]) return false;
    i++;
  }
  return i === fields.length;
}

/**
 * A copy of `command` with `time` last: the same fields in the same order, the submitted object
 * left as it was. Object.assign then a plain store of the time for any shape but the order
 * writes' placeOrder: defining `time` inside a copying literal went through V8's runtime.
 */
function stampedCopy(command: Submission, time: number): Command {
  if (command.type === 'placeOrder' && hasFields(command, PLACE_ORDER_FIELDS)) {
    const c = command;
    return { type: c.type, address: c.address, accountIndex: c.accountIndex, marketId: c.marketId, side: c.side, orderType: c.orderType, tif: c.tif, price: c.price, size: c.size, reduceOnly: c.reduceOnly, clientId: c.clientId, goodTilTime: c.goodTilTime, tpslType: c.tpslType, stopPrice: c.stopPrice, isPositionTpsl: c.isPositionTpsl, time };
  }
  const stamped = Object.assign({}, command) as unknown as Command;
  stamped.time = time;
  return stamped;
}

function push<T>(map: Map<string | number, Ring<T>>, key: string | number, value: T, cap: number): T | undefined {
  let list = map.get(key);
  if (list === undefined) {
    list = newRing();
    map.set(key, list);
  }
  return ringPush(list, value, cap);
}

/** The exchange's own bookkeeping of one event (`orders`, and the memory history's lists). */
export function recordEvent(exchange: Exchange, e: EngineEvent): void {
  switch (e.type) {
    case 'order': {
      if (exchange.history.kind !== 'memory') {
        if (TERMINAL_ORDER_STATUSES.has(e.status)) exchange.orders.delete(e.orderId);
        else exchange.orders.set(e.orderId, e);
        break;
      }
      exchange.orders.set(e.orderId, e);
      if (TERMINAL_ORDER_STATUSES.has(e.status) && e.cancelReason !== 'MODIFY_CANCELED') {
        const dropped = push(exchange.closed as Map<string | number, Ring<number>>, accountKeyFrom(exchange.accountKeys, e.address, e.accountIndex), e.orderId, exchange.limits.closedOrdersPerAccount);
        if (dropped !== undefined) exchange.orders.delete(dropped);
      }
      break;
    }
    case 'fill':
      if (exchange.history.kind !== 'memory') break;
      push(exchange.fills as Map<string | number, Ring<FillEvent>>, accountKeyFrom(exchange.accountKeys, e.address, e.accountIndex), e, exchange.limits.fillsPerAccount);
      break;
    case 'trades':
      if (exchange.history.kind !== 'memory') break;
      push(exchange.trades as Map<string | number, Ring<TradesEvent>>, e.marketId, e, exchange.limits.tradesPerMarket);
      break;
    case 'funding':
    case 'interest':
    case 'transfer':
      if (exchange.history.kind === 'memory') recordLedger(exchange.ledgers, e, exchange.limits.ledgerEntriesPerAccount);
      break;
    default:
      break;
  }
}
