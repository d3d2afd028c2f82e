/**
 * Single-use nonces of the wallet-signed key routes (createApiKey, revokeApiKey).
 *
 * Contract (interface.md Authentication rule 5, supplement §5): a nonce on create/revoke is
 * single-use; a replay answers 409. Nonces are scoped per wallet (`address|nonce`), and create
 * and revoke share one space, so a nonce a wallet spent on either cannot be spent again. A nonce
 * is spent only when its request is accepted: a refused request (bad signature, key owned
 * elsewhere) leaves it usable. Withdraw and transfer nonces are not kept here: the engine owns
 * them (`engine/risk.ts`, a conflict result). The set is the gateway's `nonces` field
 * (persistence journals and images it).
 */

/** What the nonce checks read: the gateway's spent set. */
export interface NonceHolder {
  nonces: Set<string>;
}

/** True when `address` already spent `nonce` on a key route. */
export function isNonceSpent(state: NonceHolder, address: string, nonce: string): boolean {
  return state.nonces.has(address + '|' + nonce);
}

/** Marks `nonce` spent for `address`. */
export function spendNonce(state: NonceHolder, address: string, nonce: string): void {
  state.nonces.add(address + '|' + nonce);
}
