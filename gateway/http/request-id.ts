/**
 * Request ids of account writes (setLeverage, adjustIsolatedMargin): a UUID that correlates the
 * reply with the outcome event (accountAttributeUpdates / positions carry the same requestId).
 *
 * Contract: deterministic — a name-based UUID (RFC 9562 version 5: SHA-1 over a fixed perpsim
 * namespace and the name), never a random one, so a replayed command stream yields the same
 * ids. The name is built from what makes a request unique: the operation, the account, the
 * X-Timestamp and the signature (a signature is accepted once: replay protection), so two
 * requests never share an id.
 */
import { createHash } from 'node:crypto';

/** perpsim's namespace for request ids (a fixed, arbitrary UUID). */
export const REQUEST_ID_NAMESPACE = '6f1c9b0e-4d2a-5b7e-9c3f-8a1d2e4b6c70';

/**
 * The version-5 UUID of `name` in perpsim's namespace.
 *
 * @example nameUuid('setLeverage|0xab…|0|1700000000000000000|9f…') // 'xxxxxxxx-xxxx-5xxx-[89ab]xxx-xxxxxxxxxxxx'
 */
export function nameUuid(name: string, namespace: string = REQUEST_ID_NAMESPACE): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The requestId of one signed account write. */
export function requestIdOf(operation: string, address: string, accountIndex: number, timestamp: string, signature: string): string {
  return nameUuid([operation, address, accountIndex, timestamp, signature].join('|'));
}
