/**
 * What a modify remembers briefly (interface.md "States and transitions"):
 *
 * - a modify whose target is not on the book yet waits `modifyBufferUs`; if the placement
 *   arrives in time the new order is canceled (MODIFY_CANCELED) and replaced, otherwise the
 *   modify is rejected with ORDER_NOT_FOUND_FOR_MODIFY;
 * - a cancel is remembered for the same window, so a modify that follows it is rejected with
 *   MODIFY_SUPERSEDED_BY_CANCEL (cancels dominate modifies) rather than "not found".
 *
 * Both windows have the same length and engine time never goes back, so deadlines arrive in
 * insertion order and expire from the front. Remembered cancels are written on every cancel
 * and read only when a modify misses its target, so they sit in a ring of parallel arrays
 * (a few stores per cancel, no hashing) and a miss scans the window newest-first.
 */
import type { Account } from './account.ts';
import type { ModifyOrderCommand } from './types.ts';
import { plainRecord } from './plain-record.ts';

export interface PendingModify {
  key: string;
  account: Account;
  command: ModifyOrderCommand;
  deadline: number;
  /** False once applied, superseded or replaced by a newer modify of the same target. */
  active: boolean;
}

export interface CancelRing {
  accounts: (Account | undefined)[];
  orderIds: Float64Array;
  clientIds: (string | undefined)[];
  deadlines: Float64Array;
  /** Oldest entry and number of entries. */
  head: number;
  count: number;
}

export interface ModifyBuffer {
  pending: Map<string, PendingModify>;
  pendingQueue: PendingModify[];
  pendingHead: number;
  cancels: CancelRing;
}

const buildModifyBuffer = plainRecord<ModifyBuffer>();

export function createModifyBuffer(): ModifyBuffer {
  return buildModifyBuffer({ pending: new Map(), pendingQueue: [], pendingHead: 0, cancels: createRing(1024) });
}

const buildRing = plainRecord<CancelRing>();

function createRing(capacity: number): CancelRing {
  // Left holey: an unwritten entry reads as undefined anyway, and filling the arrays on every
  // doubling (the ring reaches 512 Ki entries in the engine benchmark) showed in its profile.
  return buildRing({
    accounts: new Array<Account | undefined>(capacity),
    orderIds: new Float64Array(capacity),
    clientIds: new Array<string | undefined>(capacity),
    deadlines: new Float64Array(capacity),
    head: 0,
    count: 0,
  });
}

export function targetKey(account: Account, orderId: number | undefined, clientId: string | undefined): string {
  return orderId !== undefined ? account.key + '#o' + orderId : account.key + '#c' + clientId;
}

/** Buffers a modify; a newer modify of the same target replaces the older one, which is returned. */
export function bufferModify(buffer: ModifyBuffer, account: Account, key: string, command: ModifyOrderCommand, deadline: number): PendingModify | undefined {
  const previous = buffer.pending.get(key);
  if (previous !== undefined) previous.active = false;
  // A copy: the engine keeps no caller's command object past `apply` (callers may reuse them).
  const entry: PendingModify = { key, account, command: { ...command }, deadline, active: true };
  buffer.pending.set(key, entry);
  buffer.pendingQueue.push(entry);
  return previous;
}

/** Removes and returns the active buffered modify for a target, if any. */
export function takePending(buffer: ModifyBuffer, key: string): PendingModify | undefined {
  const entry = buffer.pending.get(key);
  if (entry === undefined) return undefined;
  buffer.pending.delete(key);
  entry.active = false;
  return entry;
}

/** Buffered modifies whose window has closed at `time`, oldest first. */
export function expiredModifies(buffer: ModifyBuffer, time: number): PendingModify[] {
  const out: PendingModify[] = [];
  const queue = buffer.pendingQueue;
  while (buffer.pendingHead < queue.length && queue[buffer.pendingHead]!.deadline <= time) {
    const entry = queue[buffer.pendingHead++]!;
    if (!entry.active) continue;
    entry.active = false;
    buffer.pending.delete(entry.key);
    out.push(entry);
  }
  if (buffer.pendingHead === queue.length && queue.length > 0) {
    queue.length = 0;
    buffer.pendingHead = 0;
  }
  return out;
}

/** Remembers a cancel of an order known by `orderId` and/or `clientId` (-1 / undefined: none). */
export function rememberCancel(buffer: ModifyBuffer, account: Account, orderId: number, clientId: string | undefined, deadline: number): void {
  let ring = buffer.cancels;
  if (ring.count === ring.orderIds.length) ring = buffer.cancels = grow(ring);
  const i = (ring.head + ring.count) % ring.orderIds.length;
  ring.accounts[i] = account;
  ring.orderIds[i] = orderId;
  ring.clientIds[i] = clientId;
  ring.deadlines[i] = deadline;
  ring.count++;
}

function grow(ring: CancelRing): CancelRing {
  const next = createRing(ring.orderIds.length * 2);
  const n = ring.orderIds.length;
  for (let k = 0; k < ring.count; k++) {
    const i = (ring.head + k) % n;
    next.accounts[k] = ring.accounts[i];
    next.orderIds[k] = ring.orderIds[i]!;
    next.clientIds[k] = ring.clientIds[i];
    next.deadlines[k] = ring.deadlines[i]!;
  }
  next.count = ring.count;
  return next;
}

/** True when a cancel of this target is still within its window at `time`. */
export function cancelPending(buffer: ModifyBuffer, account: Account, orderId: number | undefined, clientId: string | undefined, time: number): boolean {
  const ring = buffer.cancels;
  const n = ring.orderIds.length;
  for (let k = ring.count - 1; k >= 0; k--) {
    const i = (ring.head + k) % n;
    if (ring.deadlines[i]! <= time) return false;
    if (ring.accounts[i] !== account) continue;
    if (orderId !== undefined ? ring.orderIds[i] === orderId : ring.clientIds[i] === clientId) return true;
  }
  return false;
}

export function forgetCancels(buffer: ModifyBuffer, time: number): void {
  const ring = buffer.cancels;
  const n = ring.orderIds.length;
  while (ring.count > 0 && ring.deadlines[ring.head]! <= time) {
    ring.accounts[ring.head] = undefined;
    ring.clientIds[ring.head] = undefined;
    ring.head = (ring.head + 1) % n;
    ring.count--;
  }
}

/** The earliest deadline of anything remembered, for the engine's cheap timer check. */
export function nextBufferDeadline(buffer: ModifyBuffer): number {
  const p = buffer.pendingQueue[buffer.pendingHead];
  const ring = buffer.cancels;
  const c = ring.count > 0 ? ring.deadlines[ring.head]! : Infinity;
  return p === undefined ? c : Math.min(p.deadline, c);
}
