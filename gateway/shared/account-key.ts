/**
 * The key every per-account read model files an account under: `address/accountIndex`, the
 * address as the engine holds it. A leaf: read models, persistence and operations import it
 * without importing the exchange.
 */
export function accountKeyOf(address: string, accountIndex: number): string {
  return address + '/' + accountIndex;
}
