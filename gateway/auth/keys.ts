/**
 * API keys: the public half of a client's Ed25519 key, bound to a master address.
 *
 * Contract: a key is its 64-hex public key (lowercase); it belongs to one address and either one
 * subaccount or all of them (accountIndex 255 at registration); it may expire (`validUntil`, ms,
 * 0 = none) and carries permissions (`trade`, and `withdraw` only when granted by the operator:
 * keys from the public createApiKey are trade-only). Re-registering under the same
 * apiWalletName revokes the older key. Records are never changed in place: a change stores a
 * new record under the key, so whoever watches the map (the journal) sees every change.
 */
import { LIMITS } from '../../engine/spec.ts';
import { plainRecord } from '../../engine/index.ts';

export type KeyPermission = 'trade' | 'withdraw';

export interface ApiKeyRecord {
  apiKey: string;
  address: string;
  /** undefined: every subaccount. */
  accountIndex: number | undefined;
  apiWalletName: string;
  status: 'ACTIVE' | 'PENDING_DELETE' | 'DELETED';
  permissions: KeyPermission[];
  /** ms; 0 = no expiry. */
  validUntil: number;
  /** µs. */
  createdAt: number;
}

export interface KeyRegistry {
  byKey: Map<string, ApiKeyRecord>;
}

const buildKeyRegistry = plainRecord<KeyRegistry>();

export function createKeyRegistry(): KeyRegistry {
  return buildKeyRegistry({ byKey: new Map() });
}

export function registerKey(registry: KeyRegistry, record: Omit<ApiKeyRecord, 'status'>): ApiKeyRecord {
  for (const other of registry.byKey.values()) {
    if (other.address === record.address && other.apiWalletName === record.apiWalletName && other.apiKey !== record.apiKey && other.status === 'ACTIVE') {
      registry.byKey.set(other.apiKey, Object.assign({}, other, { status: 'DELETED' as const }));
    }
  }
  // Object.assign, not a spread with more fields after it: that gave every record a hidden class
  // of its own, and `keyFor` reads five fields of one on every signed request (same keys, same order).
  const stored: ApiKeyRecord = Object.assign({}, record, { apiKey: record.apiKey.toLowerCase(), status: 'ACTIVE' as const });
  registry.byKey.set(stored.apiKey, stored);
  return stored;
}

export function revokeKey(registry: KeyRegistry, apiKey: string): ApiKeyRecord | undefined {
  const record = registry.byKey.get(apiKey.toLowerCase());
  if (record === undefined) return undefined;
  const revoked: ApiKeyRecord = Object.assign({}, record, { status: 'DELETED' as const });
  registry.byKey.set(revoked.apiKey, revoked);
  return revoked;
}

export type KeyCheck = { ok: true; key: ApiKeyRecord } | { ok: false; status: 401 | 403; error: string };

/**
 * The key a signed request names, if it may act for (address, accountIndex) at `nowMs`:
 * 401 when unknown, revoked or expired; 403 when the address or subaccount is not the key's.
 */
export function keyFor(registry: KeyRegistry, apiKey: string, address: string, accountIndex: number, nowMs: number, permission: KeyPermission = 'trade'): KeyCheck {
  const key = registry.byKey.get(apiKey.toLowerCase());
  if (key === undefined || key.status !== 'ACTIVE' || (key.validUntil !== 0 && key.validUntil < nowMs)) {
    return { ok: false, status: 401, error: 'invalid api key' };
  }
  if (key.address !== address) return { ok: false, status: 403, error: 'address does not match the api key' };
  if (key.accountIndex !== undefined && key.accountIndex !== accountIndex) return { ok: false, status: 403, error: 'accountIndex not allowed for this api key' };
  if (!key.permissions.includes(permission)) return { ok: false, status: 403, error: 'api key lacks the permission for this operation' };
  return { ok: true, key };
}

export function keysOf(registry: KeyRegistry, address: string, accountIndex?: number): ApiKeyRecord[] {
  return [...registry.byKey.values()].filter(
    (k) => k.address === address && (accountIndex === undefined || k.accountIndex === undefined || k.accountIndex === accountIndex),
  );
}

export const ALL_SUBACCOUNTS = LIMITS.allSubaccountsIndex;
