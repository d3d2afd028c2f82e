/**
 * A stable digest of an object graph: sha256 over a canonical walk.
 *
 * Why not hash `v8.serialize`: its bytes depend on V8's internal representations (a packed or a
 * holey array, an integral double or a small integer), which differ between a live graph and
 * its deserialized copy even when every value is equal. The walk here sees only values: numbers
 * by value, strings, bigints, booleans, null/undefined (an array hole reads as undefined),
 * arrays, Maps and Sets in iteration order, typed arrays by their bytes, objects by their
 * prototype's constructor name and own enumerable keys in order. Shared references and cycles
 * are written as back-references to the first visit, so a copy that lost an identity (two
 * fields that should be one object) hashes differently. Functions count only as being there.
 *
 * The walk uses an explicit stack: the engine's intrusive order lists are deeper than the call
 * stack allows.
 */
import { createHash, type Hash } from 'node:crypto';

class Token {
  constructor(readonly text: string) {}
}

const FLUSH_AT = 1 << 16;

/**
 * `substitute`, when given, names what to walk in place of an object (a view of it in another
 * layout, for comparing two engines' states); the object keeps its identity for back-references.
 */
export function stateHash(root: unknown, substitute?: (value: object) => object): string {
  const hash = createHash('sha256');
  const ids = new Map<object, number>();
  const stack: unknown[] = [root];
  let out = '';
  const flush = (h: Hash): void => {
    h.update(out);
    out = '';
  };
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof Token) {
      out += value.text;
    } else if (value === undefined) {
      out += 'u';
    } else if (value === null) {
      out += 'N';
    } else {
      switch (typeof value) {
        case 'number':
          out += 'n' + value + ';';
          break;
        case 'bigint':
          out += 'b' + value + ';';
          break;
        case 'string':
          out += 's' + value.length + ':' + value;
          break;
        case 'boolean':
          out += value ? 'T' : 'F';
          break;
        case 'function':
          out += 'f';
          break;
        case 'object': {
          const seen = ids.get(value);
          if (seen !== undefined) {
            out += 'r' + seen + ';';
            break;
          }
          ids.set(value, ids.size);
          const node = substitute === undefined ? value : substitute(value);
          if (ArrayBuffer.isView(node)) {
            out += 'Y' + node.constructor.name + node.byteLength + ':';
            flush(hash);
            hash.update(new Uint8Array(node.buffer, node.byteOffset, node.byteLength));
          } else if (Array.isArray(node)) {
            out += 'A' + node.length + ':';
            for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
          } else if (node instanceof Map) {
            out += 'M' + node.size + ':';
            const entries = [...node];
            for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]![1], entries[i]![0]);
          } else if (node instanceof Set) {
            out += 'S' + node.size + ':';
            const items = [...node];
            for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
          } else {
            const proto = Object.getPrototypeOf(node) as { constructor?: { name?: string } } | null;
            const keys = Object.keys(node);
            out += 'O' + (proto === null ? '' : (proto.constructor?.name ?? '?')) + keys.length + ':';
            const record = node as Record<string, unknown>;
            for (let i = keys.length - 1; i >= 0; i--) stack.push(record[keys[i]!], new Token('k' + keys[i]!.length + ':' + keys[i]!));
          }
          break;
        }
        default:
          out += '?';
      }
    }
    if (out.length > FLUSH_AT) flush(hash);
  }
  flush(hash);
  return hash.digest('hex');
}
