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
import { accountKeyOf } from '../shared/account-key.ts';
import { DEFAULT_HISTORY_LIMIT, recordLedger, type Ledgers } from './history.ts';
import { memoryHistoryStore, type HistoryStore, type MemoryHistory } from './history-store.ts';

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
  /** Closed orderIds per account key, oldest first (bounded). */
  closed: Map<string, number[]>;
  fills: Map<string, FillEvent[]>;
  trades: Map<number, TradesEvent[]>;
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
  let pending: EngineEvent[] = [];
  const engine = createEngine(config, (e) => pending.push(e));
  const exchange: Exchange = {
    engine,
    clock,
    limits: { ...DEFAULT_EXCHANGE_LIMITS, ...limits },
    orders: new Map(),
    closed: new Map(),
    fills: new Map(),
    trades: new Map(),
    ledgers: new Map(),
    // Set right below: the memory store reads the exchange it belongs to.
    history: undefined as unknown as HistoryStore,
    listeners: new Set(),
    onCommand: undefined,
    submit(command) {
      // A copy, then a plain store of the time: every command kind passes here, and defining
      // `time` inside the literal went through V8's runtime at this megamorphic site.
      const stamped = { ...command } as Command;
      stamped.time = clock();
      // Journaled before it runs: a command that throws midway is replayed (and throws) the same
      // way, and one submitted by a listener lands after the command that caused it.
      exchange.onCommand?.(stamped);
      return exchange.applyStamped(stamped) as ResultOf<typeof command>;
    },
    applyStamped(command) {
      const result: CommandResult = apply(engine, command);
      const events = pending;
      pending = [];
      for (const e of events) recordEvent(exchange, e);
      exchange.history.record(events);
      if (events.length > 0) for (const listener of exchange.listeners) listener(events);
      return result as ResultOf<typeof command>;
    },
  };
  exchange.history = memoryHistoryStore(exchange);
  return exchange;
}

function push<T>(map: Map<string | number, T[]>, key: string | number, value: T, cap: number): T | undefined {
  let list = map.get(key);
  if (list === undefined) {
    list = [];
    map.set(key, list);
  }
  list.push(value);
  return list.length > cap ? list.shift() : undefined;
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
        const dropped = push(exchange.closed as Map<string | number, number[]>, accountKeyOf(e.address, e.accountIndex), e.orderId, exchange.limits.closedOrdersPerAccount);
        if (dropped !== undefined) exchange.orders.delete(dropped);
      }
      break;
    }
    case 'fill':
      if (exchange.history.kind !== 'memory') break;
      push(exchange.fills as Map<string | number, FillEvent[]>, accountKeyOf(e.address, e.accountIndex), e, exchange.limits.fillsPerAccount);
      break;
    case 'trades':
      if (exchange.history.kind !== 'memory') break;
      push(exchange.trades as Map<string | number, TradesEvent[]>, e.marketId, e, exchange.limits.tradesPerMarket);
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
