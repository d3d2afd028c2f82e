/**
 * Replay slots of signed writes (`GatewayState.replay`, journaled by persistence).
 *
 * Contract: one accepted Ed25519 signature is one slot, ever, whichever route or batch carried
 * it: a single write's X-Signature and a batch element's `signature` share one space, so an
 * element cannot be replayed as a single request or in another batch. The slot is the
 * signature's canonical spelling, lowercase hex: the verifiers accept either letter case
 * (supplement §12) and both libsodium and node:crypto refuse a non-canonical S, so the decoded
 * bytes, and hence the lowercase text, are the one form of a valid signature. A slot lives
 * until the timestamp window alone refuses its request (KEEP_US).
 */
import { LIMITS } from '../../engine/spec.ts';
import type { GatewayState } from '../contract/operation.ts';

/**
 * How long a slot is kept past the later of the two clocks at the time it was taken (µs). A
 * signed request is accepted only within `timestampDriftMs` of the wall clock or of the
 * simulated clock (auth/timestamp.ts), so its timestamp is at most that far ahead of the later
 * clock when it is accepted; once the earlier of the two clocks (both only move forward) is
 * more than that far past the timestamp, the timestamp check refuses the request whatever the
 * slot says. Twice the window covers both sides, so a dropped slot can never be accepted again.
 */
const KEEP_US = 2 * LIMITS.timestampDriftMs * 1000;

/** The slot a signature takes: its hex in lowercase. */
export function replaySlot(signature: string): string {
  return signature.toLowerCase();
}

/** True when the signature (in any letter case) was already accepted. */
export function isReplayed(state: GatewayState, signature: string): boolean {
  return state.replay.has(replaySlot(signature));
}

/**
 * Takes the signature's slot, and drops the slots that can no longer be replayed (KEEP_US), so
 * the set holds about a minute of signed writes instead of every one ever accepted. Drops are
 * deletions of the durable set (journaled with --db); the ages are not durable: slots found
 * without an age (after a restart, a restore) are aged from now.
 */
export function takeReplaySlot(state: GatewayState, signature: string): void {
  const { wallNs, simNs } = state.clocks();
  const wall = Number(wallNs / 1000n);
  const sim = Number(simNs / 1000n);
  const ages = state.replayAges;
  const slot = replaySlot(signature);
  if (state.replay.size > ages.size) for (const known of state.replay) if (!ages.has(known)) ages.set(known, Math.max(wall, sim));
  state.replay.add(slot);
  ages.set(slot, Math.max(wall, sim));
  const past = Math.min(wall, sim) - KEEP_US;
  for (const [old, takenAt] of ages) {
    if (takenAt >= past) break;
    ages.delete(old);
    if (state.replay.has(old)) state.replay.delete(old);
  }
}
