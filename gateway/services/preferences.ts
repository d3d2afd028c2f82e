/**
 * userPreferences: one JSON document of known keys per wallet (GET /v1/api-meta/userPreferences).
 *
 * Contract:
 * - State is plain data hung off `GatewayState.preferences`; it changes only through
 *   `patchPreferences` and `deletePreference`.
 * - The shape is the venue's (its public client validates these keys): a write is a partial
 *   document merged key by key into the stored one; a key written as null is removed. Keys and
 *   value types (`PREFERENCE_KEYS`):
 *   favoritedMarkets: market ids (integers ≥ 0); favoritePerpMarkets, favoriteSpotMarkets:
 *   strings; disabledAlerts: a string or an array of strings / integers; lastSignedTOS: an
 *   integer ≥ 0; isSpotLayoutLocked, isPerpLayoutLocked, isSpotLayoutFlex, isPerpLayoutFlex:
 *   booleans; subaccountPreferences: an object of at most 256 subaccount ids (integer strings)
 *   each `{name}` (at most 64 characters); perpsLayout, spotLayout, language,
 *   numberRepresentation, colorTheme, colorRedGreen: strings.
 * - Bounds: a write has 1-64 keys; a stored document is at most `MAX_DOCUMENT_BYTES` of JSON.
 */
import type { Refusal } from './referral.ts';
import { plainRecord } from '../../engine/index.ts';

export const MAX_DOCUMENT_BYTES = 128 * 1024;
export const MAX_KEYS_PER_WRITE = 64;

export type PreferenceValue = string | number | boolean | null | PreferenceValue[] | { [key: string]: PreferenceValue };
export type PreferenceDocument = Record<string, PreferenceValue>;

export interface PreferencesState {
  byWallet: Map<string, PreferenceDocument>;
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const isBoolean = (v: unknown): boolean => typeof v === 'boolean';
const arrayOf = (check: (v: unknown) => boolean) => (v: unknown): boolean => Array.isArray(v) && v.every(check);

function isSubaccountNames(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return (
    entries.length <= 256 &&
    entries.every(([id, value]) => {
      if (!/^[0-9]{1,20}$/.test(id) || value === null || typeof value !== 'object' || Array.isArray(value)) return false;
      const keys = Object.keys(value);
      const name = (value as Record<string, unknown>).name;
      return keys.length === 1 && typeof name === 'string' && [...name].length <= 64;
    })
  );
}

/** Each known key and the check of its value. */
export const PREFERENCE_KEYS: Readonly<Record<string, (v: unknown) => boolean>> = {
  favoritedMarkets: arrayOf(isCount),
  favoritePerpMarkets: arrayOf(isString),
  favoriteSpotMarkets: arrayOf(isString),
  subaccountPreferences: isSubaccountNames,
  perpsLayout: isString,
  spotLayout: isString,
  language: isString,
  numberRepresentation: isString,
  disabledAlerts: (v) => isString(v) || arrayOf((x) => isString(x) || Number.isSafeInteger(x))(v),
  colorTheme: isString,
  colorRedGreen: isString,
  lastSignedTOS: isCount,
  isSpotLayoutLocked: isBoolean,
  isPerpLayoutLocked: isBoolean,
  isSpotLayoutFlex: isBoolean,
  isPerpLayoutFlex: isBoolean,
};

const buildPreferencesState = plainRecord<PreferencesState>();

export function createPreferencesState(): PreferencesState {
  return buildPreferencesState({ byWallet: new Map() });
}

export function preferencesOf(ps: PreferencesState, address: string): PreferenceDocument {
  return ps.byWallet.get(address) ?? {};
}

/** Merges a partial document; null removes a key. Nothing changes when any key is refused. */
export function patchPreferences(ps: PreferencesState, address: string, patch: unknown): PreferenceDocument | Refusal {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return { status: 400, error: 'preferences must be a JSON object' };
  const entries = Object.entries(patch as Record<string, unknown>);
  if (entries.length === 0 || entries.length > MAX_KEYS_PER_WRITE) return { status: 400, error: `a write sets 1-${MAX_KEYS_PER_WRITE} preference keys` };
  for (const [key, value] of entries) {
    const check = Object.hasOwn(PREFERENCE_KEYS, key) ? PREFERENCE_KEYS[key] : undefined;
    if (check === undefined) return { status: 400, error: `unknown preference key: ${key}` };
    if (value !== null && !check(value)) return { status: 400, error: `invalid value for preference ${key}` };
  }
  const next: PreferenceDocument = { ...preferencesOf(ps, address) };
  for (const [key, value] of entries) {
    if (value === null) delete next[key];
    else next[key] = value as PreferenceValue;
  }
  if (Buffer.byteLength(JSON.stringify(next)) > MAX_DOCUMENT_BYTES) return { status: 400, error: `preferences exceed ${MAX_DOCUMENT_BYTES} bytes` };
  ps.byWallet.set(address, next);
  return next;
}

export function deletePreference(ps: PreferencesState, address: string, key: string): PreferenceDocument | Refusal {
  if (!Object.hasOwn(PREFERENCE_KEYS, key)) return { status: 400, error: `unknown preference key: ${key}` };
  const next: PreferenceDocument = { ...preferencesOf(ps, address) };
  delete next[key];
  ps.byWallet.set(address, next);
  return next;
}
