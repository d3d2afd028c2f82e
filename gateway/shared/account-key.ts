/**
 * The key every per-account read model files an account under: `address/accountIndex`, the
 * address as the engine holds it. A leaf: read models, persistence and operations import it
 * without importing the exchange.
 */
export function accountKeyOf(address: string, accountIndex: number): string {
  return address + '/' + accountIndex;
}

/**
 * One key string per account, made once (the exchange holds one: `Exchange.accountKeys`).
 * `accountKeyOf` concatenates a new string on every call, which a Map lookup must flatten, hash
 * and compare character by character with the key it holds; the event paths (the exchange's
 * per-account lists, the portfolio service) look their key up here instead, by the address
 * string events carry (one object per wallet: its hash is kept), and hand the maps the very
 * string they hold.
 */
export type AccountKeys = Map<string, string[]>;

const KEPT_INDICES = 256;

export function createAccountKeys(): AccountKeys {
  return new Map();
}

/** `accountKeyOf(address, accountIndex)`, the same string object every time. */
export function accountKeyFrom(keys: AccountKeys, address: string, accountIndex: number): string {
  let byIndex = keys.get(address);
  if (byIndex === undefined) {
    byIndex = [];
    keys.set(address, byIndex);
  }
  let key = byIndex[accountIndex];
  if (key === undefined) {
    key = accountKeyOf(address, accountIndex);
    // Subaccount indices are small integers (0-9); anything else is answered but not kept.
    if (Number.isInteger(accountIndex) && accountIndex >= 0 && accountIndex < KEPT_INDICES) byIndex[accountIndex] = key;
  }
  return key;
}
