/**
 * What a modify remembers briefly (interface.md "States and transitions"):
 *
 * - a modify whose target is not on the book yet waits `modifyBufferUs`; if the placement
 *   arrives in time the new order is canceled (MODIFY_CANCELED) and replaced, otherwise the
 *   modify is rejected with ORDER_NOT_FOUND_FOR_MODIFY;
 * - a cancel is remembered for the same window, so a modify that follows it is rejected with
 *   MODIFY_SUPERSEDED_BY_CANCEL (cancels dominate modifies) rather than "not found".
 *
 * Keys name a target the way the request did: by orderId or by clientId, within one account.
 * Both windows are the same length and engine time never goes back, so deadlines arrive in
 * insertion order and a FIFO queue expires them in O(1) each.
 */
import type { Account } from './account.ts';
import type { ModifyOrderCommand } from './types.ts';

export interface PendingModify {
  key: string;
  account: Account;
  command: ModifyOrderCommand;
  deadline: number;
  /** False once applied, superseded or replaced by a newer modify of the same target. */
  active: boolean;
}

interface Remembered {
  key: string;
  deadline: number;
}

export interface ModifyBuffer {
  pending: Map<string, PendingModify>;
  pendingQueue: PendingModify[];
  pendingHead: number;
  cancels: Map<string, number>;
  cancelQueue: Remembered[];
  cancelHead: number;
}

export function createModifyBuffer(): ModifyBuffer {
  return { pending: new Map(), pendingQueue: [], pendingHead: 0, cancels: new Map(), cancelQueue: [], cancelHead: 0 };
}

export function targetKey(account: Account, orderId: number | undefined, clientId: string | undefined): string {
  return orderId !== undefined ? account.key + '#o' + orderId : account.key + '#c' + clientId;
}

/** Buffers a modify; a newer modify of the same target replaces the older one, which is returned. */
export function bufferModify(buffer: ModifyBuffer, account: Account, key: string, command: ModifyOrderCommand, deadline: number): PendingModify | undefined {
  const previous = buffer.pending.get(key);
  if (previous !== undefined) previous.active = false;
  const entry: PendingModify = { key, account, command, deadline, active: true };
  buffer.pending.set(key, entry);
  buffer.pendingQueue.push(entry);
  return previous;
}

/** Removes and returns the active buffered modify for a target, if any. */
export function takePending(buffer: ModifyBuffer, key: string): PendingModify | undefined {
  if (buffer.pending.size === 0) return undefined;
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
  compact(buffer);
  return out;
}

export function rememberCancel(buffer: ModifyBuffer, key: string, deadline: number): void {
  buffer.cancels.set(key, deadline);
  buffer.cancelQueue.push({ key, deadline });
}

export function cancelPending(buffer: ModifyBuffer, key: string, time: number): boolean {
  const deadline = buffer.cancels.get(key);
  return deadline !== undefined && deadline > time;
}

export function forgetCancels(buffer: ModifyBuffer, time: number): void {
  const queue = buffer.cancelQueue;
  while (buffer.cancelHead < queue.length && queue[buffer.cancelHead]!.deadline <= time) {
    const entry = queue[buffer.cancelHead++]!;
    if (buffer.cancels.get(entry.key) === entry.deadline) buffer.cancels.delete(entry.key);
  }
  compact(buffer);
}

/** Drops consumed queue prefixes once they dominate, keeping memory bounded. */
function compact(buffer: ModifyBuffer): void {
  if (buffer.pendingHead > 1024 && buffer.pendingHead * 2 > buffer.pendingQueue.length) {
    buffer.pendingQueue = buffer.pendingQueue.slice(buffer.pendingHead);
    buffer.pendingHead = 0;
  }
  if (buffer.cancelHead > 1024 && buffer.cancelHead * 2 > buffer.cancelQueue.length) {
    buffer.cancelQueue = buffer.cancelQueue.slice(buffer.cancelHead);
    buffer.cancelHead = 0;
  }
}

/** The earliest deadline of anything remembered, for the engine's cheap timer check. */
export function nextBufferDeadline(buffer: ModifyBuffer): number {
  const p = buffer.pendingQueue[buffer.pendingHead];
  const c = buffer.cancelQueue[buffer.cancelHead];
  return Math.min(p === undefined ? Infinity : p.deadline, c === undefined ? Infinity : c.deadline);
}
