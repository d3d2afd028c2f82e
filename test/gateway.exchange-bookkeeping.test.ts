/**
 * The exchange's own bookkeeping (gateway/read-models/exchange.ts, `recordEvents`): each
 * account's entry is looked up once a command and files its events in the very lists `closed`
 * and `fills` hold. Checked against a reference that files event by event, looking every key up
 * in the maps (the bookkeeping as it was), over the differential command stream (every command
 * kind, ten accounts on two subaccount indices) with small caps so lists drop entries: the maps,
 * their key order and their lists stay equal, also after the maps are replaced midway as a
 * restore replaces them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TERMINAL_ORDER_STATUSES } from '../engine/spec.ts';
import type { EngineEvent, FillEvent, OrderEvent, TradesEvent } from '../engine/index.ts';
import { createExchange, type Exchange, type ExchangeLimits } from '../gateway/read-models/exchange.ts';
import { accountKeyOf } from '../gateway/shared/account-key.ts';
import { ringOf, ringToArray, type Ring } from '../gateway/shared/ring.ts';
import { createCommandStream, differentialConfig } from './support/differential-stream.ts';

const LIMITS: ExchangeLimits = { closedOrdersPerAccount: 5, fillsPerAccount: 7, tradesPerMarket: 9, ledgerEntriesPerAccount: 4 };

/** The bookkeeping as it was: one event at a time, every list found by its key. */
class Reference {
  orders = new Map<number, OrderEvent>();
  closed = new Map<string, number[]>();
  fills = new Map<string, FillEvent[]>();
  trades = new Map<number, TradesEvent[]>();
  ledgers = new Map<string, { funding: EngineEvent[]; interest: EngineEvent[]; transfers: EngineEvent[] }>();

  private push<K, T>(map: Map<K, T[]>, key: K, value: T, cap: number): T | undefined {
    let list = map.get(key);
    if (list === undefined) map.set(key, (list = []));
    list.push(value);
    return list.length > cap ? list.shift() : undefined;
  }

  record(e: EngineEvent): void {
    switch (e.type) {
      case 'order':
        this.orders.set(e.orderId, e);
        if (TERMINAL_ORDER_STATUSES.has(e.status) && e.cancelReason !== 'MODIFY_CANCELED') {
          const dropped = this.push(this.closed, accountKeyOf(e.address, e.accountIndex), e.orderId, LIMITS.closedOrdersPerAccount);
          if (dropped !== undefined) this.orders.delete(dropped);
        }
        break;
      case 'fill':
        this.push(this.fills, accountKeyOf(e.address, e.accountIndex), e, LIMITS.fillsPerAccount);
        break;
      case 'trades':
        this.push(this.trades, e.marketId, e, LIMITS.tradesPerMarket);
        break;
      case 'funding':
      case 'interest':
      case 'transfer': {
        const key = accountKeyOf(e.address, e.accountIndex);
        let lists = this.ledgers.get(key);
        if (lists === undefined) this.ledgers.set(key, (lists = { funding: [], interest: [], transfers: [] }));
        const list = lists[e.type === 'transfer' ? 'transfers' : e.type];
        list.push(e);
        if (list.length > LIMITS.ledgerEntriesPerAccount) list.shift();
        break;
      }
      default:
        break;
    }
  }
}

const arrays = <K, T>(map: Map<K, Ring<T>>): [K, T[]][] => [...map].map(([k, r]) => [k, ringToArray(r)]);
const rings = <K, T>(list: [K, T[]][]): Map<K, Ring<T>> => new Map(list.map(([k, a]) => [k, ringOf(a)]));

/** The exchange's maps as entry lists, each ring as its oldest-first array (an image's layout). */
const entries = (x: Pick<Exchange, 'orders' | 'closed' | 'fills' | 'trades' | 'ledgers'>) => ({
  orders: [...x.orders],
  closed: arrays(x.closed),
  fills: arrays(x.fills),
  trades: arrays(x.trades),
  ledgers: [...x.ledgers].map(([k, h]) => [k, { funding: ringToArray(h.funding), interest: ringToArray(h.interest), transfers: ringToArray(h.transfers) }] as const),
});

/** The reference's maps as entry lists: equal means the same keys in the same order with equal values. */
const referenceEntries = (x: Reference) => ({
  orders: [...x.orders],
  closed: [...x.closed],
  fills: [...x.fills],
  trades: [...x.trades],
  ledgers: [...x.ledgers],
});

function run(seed: number, commands: number, restoreAt: readonly number[]): { events: number; closed: number; fills: number } {
  const exchange = createExchange(differentialConfig(), () => 0, LIMITS);
  const reference = new Reference();
  exchange.listeners.add((events) => {
    for (const e of events) reference.record(e);
  });
  const stream = createCommandStream(seed);
  let events = 0;
  exchange.listeners.add((batch) => void (events += batch.length));
  for (let i = 0; i < commands; i++) {
    if (restoreAt.includes(i)) {
      // As restoreImage does: every map replaced by the image's copy, its lists as arrays made rings again.
      const image = structuredClone(entries(exchange));
      exchange.orders = new Map(image.orders);
      exchange.closed = rings(image.closed);
      exchange.fills = rings(image.fills);
      exchange.trades = rings(image.trades);
      exchange.ledgers = new Map(image.ledgers.map(([k, h]) => [k, { funding: ringOf(h.funding), interest: ringOf(h.interest), transfers: ringOf(h.transfers) }]));
    }
    const command = stream.next();
    stream.observe(command, exchange.applyStamped(command));
  }
  expect(entries(exchange)).toEqual(referenceEntries(reference));
  return { events, closed: exchange.closed.size, fills: exchange.fills.size };
}

describe("the exchange's bookkeeping, one entry lookup per account and command", () => {
  it('keeps the same orders, closed, fill, trade and ledger lists as filing event by event', () => {
    const seen = run(7, 3000, [900, 2100]);
    // The stream reached the lists of several accounts on both subaccount indices.
    expect(seen.closed).toBeGreaterThanOrEqual(8);
    expect(seen.fills).toBeGreaterThanOrEqual(8);
    expect(seen.events).toBeGreaterThan(3000);
  });

  it('agrees over random seeds and restore points', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.uniqueArray(fc.integer({ min: 1, max: 599 }), { maxLength: 3 }), (seed, restoreAt) => {
        run(seed, 600, restoreAt);
      }),
      { numRuns: 15 },
    );
  });
});
