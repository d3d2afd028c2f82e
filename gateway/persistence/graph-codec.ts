/**
 * An object graph as a flat table, so that v8.serialize can copy it.
 *
 * Why: v8's serializer recurses once per nesting level, and the engine's intrusive order lists
 * (a level's queue, an account's orders) nest as deep as they are long — ten thousand orders in
 * one list overflow the stack. `encodeGraph` walks the graph with an explicit queue and gives
 * every object, array, Map, Set and typed array one row, whose references to other objects are
 * row numbers; the table is at most three levels deep whatever the graph. `decodeGraph` builds
 * the shells first and then fills them, so shared references and cycles come back as they were.
 *
 * Only plain objects (prototype Object.prototype or null) and the built-in
 * collections are accepted: a class instance would lose its prototype in a copy, so it is an
 * error here rather than a silently broken restore. The exception is the engine's order record,
 * which travels as its own fields and gets its class back when the image is grafted
 * (engine/order-record.ts `adoptOrder`).
 */
import { RESTORED_BY_GRAFT } from '../../engine/index.ts';

const MARK = '\u0001';

/** Row kinds: plain object, array, Map, Set, typed array (copied whole by v8). */
type Kind = 'o' | 'a' | 'm' | 's' | 't';

/**
 * The table, flat: row i has `lengths[i]` values in `values` (a plain object: its shape's keys
 * in order; a Map: key, value pairs; a typed array: itself), following row i − 1's. A value
 * whose bit is set in `refs` is a row number. One array of numbers and strings instead of one
 * array per row and one string per reference: v8 deserializes it several times faster and with
 * little garbage, which is most of a restart's snapshot load.
 */
export interface EncodedGraph {
  kinds: string;
  lengths: Uint32Array;
  /** The shape of each row (plain objects; 0 for the other kinds). */
  shapeOf: Uint32Array;
  values: unknown[];
  refs: Uint8Array;
  /** Key lists of the plain objects. */
  shapes: string[][];
  root: unknown;
  rootIsRef: boolean;
}

/** The format before the flat table (rows of arrays, references as "\u0001<row>" strings). */
interface LegacyEncodedGraph {
  kinds: string;
  rows: unknown[][];
  shapes: string[][];
  root: unknown;
}

export function encodeGraph(root: unknown): EncodedGraph {
  const ids = new Map<object, number>();
  const queue: object[] = [];
  const kinds: Kind[] = [];
  const lengths: number[] = [];
  const shapeOf: number[] = [];
  const values: unknown[] = [];
  const refPositions: number[] = [];
  // Thousands of orders and events share a handful of shapes: their keys are written once.
  const shapes: string[][] = [];
  const shapeIds = new Map<string, number>();
  const idOf = (v: object): number => {
    let id = ids.get(v);
    if (id === undefined) {
      id = ids.size;
      ids.set(v, id);
      queue.push(v);
    }
    return id;
  };
  const push = (v: unknown): void => {
    if (typeof v === 'object' && v !== null) {
      refPositions.push(values.length);
      values.push(idOf(v));
      return;
    }
    if (typeof v === 'function' || typeof v === 'symbol') throw new Error(`cannot copy a ${typeof v}`);
    values.push(v);
  };
  const rootIsRef = typeof root === 'object' && root !== null;
  const encodedRoot = rootIsRef ? idOf(root) : root;
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    const before = values.length;
    let shapeId = 0;
    if (ArrayBuffer.isView(node)) {
      kinds.push('t');
      values.push(node);
    } else if (Array.isArray(node)) {
      kinds.push('a');
      for (let k = 0; k < node.length; k++) push(node[k]);
    } else if (node instanceof Map) {
      kinds.push('m');
      for (const [k, v] of node) {
        push(k);
        push(v);
      }
    } else if (node instanceof Set) {
      kinds.push('s');
      for (const v of node) push(v);
    } else {
      const proto = Object.getPrototypeOf(node) as object | null;
      if (proto !== Object.prototype && proto !== null && !RESTORED_BY_GRAFT.has(proto)) throw new Error(`cannot copy an instance of ${(proto as { constructor?: { name?: string } }).constructor?.name ?? 'a class'}`);
      kinds.push('o');
      const keys = Object.keys(node);
      const signature = keys.join('\u0000');
      let shape = shapeIds.get(signature);
      if (shape === undefined) {
        shape = shapes.length;
        shapes.push(keys);
        shapeIds.set(signature, shape);
      }
      shapeId = shape;
      const record = node as Record<string, unknown>;
      for (let k = 0; k < keys.length; k++) push(record[keys[k]!]);
    }
    lengths.push(values.length - before);
    shapeOf.push(shapeId);
  }
  const refs = new Uint8Array((values.length >> 3) + 1);
  for (const at of refPositions) refs[at >> 3]! |= 1 << (at & 7);
  return { kinds: kinds.join(''), lengths: Uint32Array.from(lengths), shapeOf: Uint32Array.from(shapeOf), values, refs, shapes, root: encodedRoot, rootIsRef };
}

function shellsOf(kinds: string, lengthOf: (i: number) => number, typed: (i: number) => unknown): unknown[] {
  const shells: unknown[] = new Array(kinds.length);
  for (let i = 0; i < kinds.length; i++) {
    switch (kinds[i] as Kind) {
      case 'o':
        shells[i] = {};
        break;
      case 'a':
        shells[i] = new Array(lengthOf(i));
        break;
      case 'm':
        shells[i] = new Map();
        break;
      case 's':
        shells[i] = new Set();
        break;
      case 't':
        shells[i] = typed(i);
        break;
    }
  }
  return shells;
}

export function decodeGraph(encoded: EncodedGraph | LegacyEncodedGraph): unknown {
  if ('rows' in encoded) return decodeLegacy(encoded);
  const { kinds, lengths, shapeOf, values, refs, shapes } = encoded;
  const starts = new Uint32Array(kinds.length);
  for (let i = 1; i < kinds.length; i++) starts[i] = starts[i - 1]! + lengths[i - 1]!;
  const shells = shellsOf(kinds, (i) => lengths[i]!, (i) => values[starts[i]!]);
  const compiled = shapes.map(compileShape);
  for (let i = 0; i < kinds.length; i++) if (kinds[i] === 'o') shells[i] = compiled[shapeOf[i]!]!.make();
  let at = 0;
  const next = (): unknown => {
    const v = values[at];
    const isRef = (refs[at >> 3]! & (1 << (at & 7))) !== 0;
    at++;
    return isRef ? shells[v as number] : v;
  };
  for (let i = 0; i < kinds.length; i++) {
    const shell = shells[i];
    const n = lengths[i]!;
    switch (kinds[i] as Kind) {
      case 'o':
        compiled[shapeOf[i]!]!.fill(shell as Record<string, unknown>, next);
        break;
      case 'a': {
        const target = shell as unknown[];
        for (let k = 0; k < n; k++) target[k] = next();
        break;
      }
      case 'm': {
        const target = shell as Map<unknown, unknown>;
        for (let k = 0; k < n; k += 2) {
          const key = next();
          target.set(key, next());
        }
        break;
      }
      case 's': {
        const target = shell as Set<unknown>;
        for (let k = 0; k < n; k++) target.add(next());
        break;
      }
      case 't':
        at += n;
        break;
    }
  }
  return encoded.rootIsRef ? shells[encoded.root as number] : encoded.root;
}

interface CompiledShape {
  make(): Record<string, unknown>;
  fill(target: Record<string, unknown>, next: () => unknown): void;
}

/**
 * Per shape, an object literal with every key (one hidden class, allocated whole, as the live
 * objects were) and a filler that stores each key in order (monomorphic stores). Keys are
 * written as JSON string literals, so no key is ever code; `__proto__` (which a literal would
 * read as the prototype) takes the generic path.
 */
function compileShape(keys: string[]): CompiledShape {
  if (keys.includes('__proto__')) {
    return {
      make: () => ({}),
      fill(target, next) {
        for (const key of keys) Object.defineProperty(target, key, { value: next(), writable: true, enumerable: true, configurable: true });
      },
    };
  }
  const literal = keys.map((k) => JSON.stringify(k) + ': undefined').join(', ');
  const stores = keys.map((k) => `t[${JSON.stringify(k)}] = n();`).join(' ');
  return {
    make: new Function(`return { ${literal} };`) as () => Record<string, unknown>,
    fill: new Function('t', 'n', stores) as CompiledShape['fill'],
  };
}

/** Images written before the flat table (snapshots and named images of older files). */
function decodeLegacy(encoded: LegacyEncodedGraph): unknown {
  const { kinds, rows } = encoded;
  const shells = shellsOf(kinds, (i) => rows[i]!.length, (i) => rows[i]![0]);
  const value = (v: unknown): unknown => {
    if (typeof v !== 'string' || !v.startsWith(MARK)) return v;
    return v.startsWith(MARK, 1) ? v.slice(1) : shells[Number(v.slice(1))];
  };
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const shell = shells[i];
    switch (kinds[i] as Kind) {
      case 'o': {
        const keys = encoded.shapes[row[0] as number]!;
        const target = shell as Record<string, unknown>;
        for (let k = 0; k < keys.length; k++) target[keys[k]!] = value(row[k + 1]);
        break;
      }
      case 'a': {
        const target = shell as unknown[];
        for (let k = 0; k < row.length; k++) target[k] = value(row[k]);
        break;
      }
      case 'm': {
        const target = shell as Map<unknown, unknown>;
        for (let k = 0; k < row.length; k += 2) target.set(value(row[k]), value(row[k + 1]));
        break;
      }
      case 's': {
        const target = shell as Set<unknown>;
        for (const v of row) target.add(value(v));
        break;
      }
      case 't':
        break;
    }
  }
  return value(encoded.root);
}
