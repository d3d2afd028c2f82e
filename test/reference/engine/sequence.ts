/**
 * Sequencing (interface.md "Sequencing"): three counters.
 *
 * - global: one exchange-wide counter; every event takes the next value, so the event log is
 *   totally ordered and gap-free.
 * - per market: one step per command that changes a market's book. The book delta, the public
 *   trades and the bbo of that command share the value, so l2OrderbookUpdates deltas are
 *   contiguous and bbo/trades can be lined up with them.
 * - per account: every account-scoped event (order update, fill, rejection, switch) takes the
 *   next value; it is the account's lastSequenceId and the order's sequenceNumber.
 */
export interface Sequences {
  global: number;
}

export function createSequences(): Sequences {
  return { global: 0 };
}

export function nextGlobal(seq: Sequences): number {
  return ++seq.global;
}

export function nextAccountSeq(account: { seq: number }): number {
  return ++account.seq;
}
