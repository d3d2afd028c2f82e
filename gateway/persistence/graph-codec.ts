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
 * References are strings "\u0001<row>"; a string that itself starts with \u0001 is escaped with
 * one more. Only plain objects (prototype Object.prototype or null) and the built-in
 * collections are accepted: a class instance would lose its prototype in a copy, so it is an
 * error here rather than a silently broken restore.
 */
const MARK = '\u0001';

/** Row kinds: plain object, array, Map, Set, typed array (copied whole by v8). */
type Kind = 'o' | 'a' | 'm' | 's' | 't';

export interface EncodedGraph {
  kinds: string;
  rows: unknown[][];
  /** Key lists of the plain objects: an object row is its shape's index, then its values. */
  shapes: string[][];
  root: unknown;
}

export function encodeGraph(root: unknown): EncodedGraph {
  const ids = new Map<object, number>();
  const queue: object[] = [];
  const kinds: Kind[] = [];
  const rows: unknown[][] = [];
  // Thousands of orders and events share a handful of shapes: their keys are written once.
  const shapes: string[][] = [];
  const shapeIds = new Map<string, number>();
  const value = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith(MARK) ? MARK + v : v;
    if (typeof v !== 'object' || v === null) {
      if (typeof v === 'function' || typeof v === 'symbol') throw new Error(`cannot copy a ${typeof v}`);
      return v;
    }
    let id = ids.get(v);
    if (id === undefined) {
      id = ids.size;
      ids.set(v, id);
      queue.push(v);
    }
    return MARK + id;
  };
  const encodedRoot = value(root);
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    if (ArrayBuffer.isView(node)) {
      kinds.push('t');
      rows.push([node]);
    } else if (Array.isArray(node)) {
      kinds.push('a');
      const row = new Array<unknown>(node.length);
      for (let k = 0; k < node.length; k++) row[k] = value(node[k]);
      rows.push(row);
    } else if (node instanceof Map) {
      kinds.push('m');
      const row: unknown[] = [];
      for (const [k, v] of node) row.push(value(k), value(v));
      rows.push(row);
    } else if (node instanceof Set) {
      kinds.push('s');
      const row: unknown[] = [];
      for (const v of node) row.push(value(v));
      rows.push(row);
    } else {
      const proto = Object.getPrototypeOf(node) as object | null;
      if (proto !== Object.prototype && proto !== null) throw new Error(`cannot copy an instance of ${(proto as { constructor?: { name?: string } }).constructor?.name ?? 'a class'}`);
      kinds.push('o');
      const keys = Object.keys(node);
      const signature = keys.join('\u0000');
      let shape = shapeIds.get(signature);
      if (shape === undefined) {
        shape = shapes.length;
        shapes.push(keys);
        shapeIds.set(signature, shape);
      }
      const row = new Array<unknown>(keys.length + 1);
      row[0] = shape;
      const record = node as Record<string, unknown>;
      for (let k = 0; k < keys.length; k++) row[k + 1] = value(record[keys[k]!]);
      rows.push(row);
    }
  }
  return { kinds: kinds.join(''), rows, shapes, root: encodedRoot };
}

export function decodeGraph(encoded: EncodedGraph): unknown {
  const { kinds, rows } = encoded;
  const shells: unknown[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    switch (kinds[i] as Kind) {
      case 'o':
        shells[i] = {};
        break;
      case 'a':
        shells[i] = new Array(rows[i]!.length);
        break;
      case 'm':
        shells[i] = new Map();
        break;
      case 's':
        shells[i] = new Set();
        break;
      case 't':
        shells[i] = rows[i]![0];
        break;
    }
  }
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
