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
import type { GatewayState } from '../contract/operation.ts';

/** The slot a signature takes: its hex in lowercase. */
export function replaySlot(signature: string): string {
  return signature.toLowerCase();
}

/** True when the signature (in any letter case) was already accepted. */
export function isReplayed(state: GatewayState, signature: string): boolean {
  return state.replay.has(signature);
}

/**
 * Takes the signature's slot at the server's clocks, and drops the slots that can no longer be
 * replayed (ReplaySlots.take).
 */
export function takeReplaySlot(state: GatewayState, signature: string): void {
  const { wallNs, simNs } = state.clocks();
  state.replay.take(signature, Number(wallNs / 1000n), Number(simNs / 1000n));
}
