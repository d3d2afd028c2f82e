/**
 * Single-use nonces of the wallet-signed key routes (createApiKey, revokeApiKey).
 *
 * Contract (interface.md Authentication rule 5, supplement §5): a nonce on create/revoke is
 * single-use; a replay answers 409. Nonces are scoped per wallet (`address|nonce`), and create
 * and revoke share one space, so a nonce a wallet spent on either cannot be spent again. A nonce
 * is spent only when its request is accepted: a refused request (bad signature, key owned
 * elsewhere) leaves it usable. Withdraw and transfer nonces are not kept here: the engine owns
 * them (`engine/risk.ts`, a conflict result).
 *
 * `GatewayState` has no field for these, so they live beside it in a WeakMap keyed by the state.
 */
import type { GatewayState } from './operation.ts';

const spent = new WeakMap<GatewayState, Set<string>>();

/** The state's spent nonces ("address|nonce"), for persistence to save and to watch. */
export function spentNonces(state: GatewayState): Set<string> {
  return setOf(state);
}

/** Puts `set` (e.g. a journaled Set with the same entries) in place of the state's spent nonces. */
export function replaceSpentNonces(state: GatewayState, set: Set<string>): void {
  spent.set(state, set);
}

function setOf(state: GatewayState): Set<string> {
  let set = spent.get(state);
  if (set === undefined) {
    set = new Set();
    spent.set(state, set);
  }
  return set;
}

/** True when `address` already spent `nonce` on a key route. */
export function isNonceSpent(state: GatewayState, address: string, nonce: string): boolean {
  return spent.get(state)?.has(address + '|' + nonce) ?? false;
}

/** Marks `nonce` spent for `address`. */
export function spendNonce(state: GatewayState, address: string, nonce: string): void {
  setOf(state).add(address + '|' + nonce);
}
