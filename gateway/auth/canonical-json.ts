/**
 * Canonical JSON: the byte form both signing schemes sign.
 *
 * Contract: `canonicalJson` writes a value with object keys sorted at every level (by UTF-16
 * code unit, which equals byte order for the ASCII keys the interface uses), arrays kept in
 * order, and no whitespace (interface.md Scheme 2: "keys sorted lexicographically at every
 * level and no whitespace"). It is bigint-safe: a bigint, or a JS number that is an integer,
 * prints as plain decimal digits and never in exponent form, so nanosecond values such as
 * `ct` and `g` (beyond 2^53) come out exact. Properties whose value is `undefined` are left out,
 * as `JSON.stringify` does. Strings use `JSON.stringify`'s escaping.
 *
 * Known limit: non-integer numbers print as `JSON.stringify` prints them (`1.5`, `1e-7`); a
 * client whose serializer writes `1.0` or `1e-07` signs other bytes. Scheme 2 therefore also
 * tries the body exactly as received (`scheme2.ts`).
 */

export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue | undefined };

/**
 * Serializes `value` canonically.
 *
 * @example canonicalJson({ marketId: 1, address: '0xab', accountIndex: 0 })
 *   // '{"accountIndex":0,"address":"0xab","marketId":1}'
 * @throws TypeError on a non-finite number or a value JSON cannot carry (function, symbol,
 *   undefined at the top level, class instances): programming errors, never client input from
 *   `JSON.parse`.
 */
export function canonicalJson(value: JsonValue): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(value: JsonValue | undefined, out: string[]): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'number':
      out.push(numberText(value));
      return;
    case 'object':
      if (Array.isArray(value)) {
        writeArray(value as readonly JsonValue[], out);
        return;
      }
      if (isPlainObject(value)) {
        writeObject(value as { readonly [key: string]: JsonValue | undefined }, out);
        return;
      }
      throw new TypeError('canonicalJson: only plain objects and arrays can be written');
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} cannot be written as JSON`);
  }
}

/** Integers as plain digits (no exponent even past 1e21); other numbers as JSON.stringify does. */
export function numberText(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
  if (Number.isSafeInteger(value)) return Object.is(value, -0) ? '0' : String(value);
  if (Number.isInteger(value)) return BigInt(value).toString();
  return JSON.stringify(value);
}

function writeArray(items: readonly JsonValue[], out: string[]): void {
  out.push('[');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out.push(',');
    const item = items[i];
    // JSON.stringify writes a hole or undefined inside an array as null.
    write(item === undefined ? null : item, out);
  }
  out.push(']');
}

function writeObject(object: { readonly [key: string]: JsonValue | undefined }, out: string[]): void {
  out.push('{');
  let first = true;
  for (const key of Object.keys(object).sort()) {
    const item = object[key];
    if (item === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(item, out);
  }
  out.push('}');
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
