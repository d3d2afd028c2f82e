/**
 * Records built once per engine (or per backtest) that hot code reads: built by a constructor of
 * their own rather than left as the object literal they are written as.
 *
 * Why: V8 builds an object literal's boilerplate the second time the literal runs, and building it
 * widens the tracked types of the literal's fields (a field that held a Map or a Float64Array now
 * holds "anything"); every optimized function that relied on those types is thrown away. A literal
 * that runs once per backtest therefore discards, at the start of a thread's second backtest,
 * everything the first one optimized around it (docs/decisions.md "Parameter sweeps
 * (`sim/sweep/`)"). An object filled by a constructor has no boilerplate: each later one is built by the same stores of the
 * same kinds of values, and optimized code stays valid.
 *
 * Contract: `plainRecord<T>()` answers a builder for one shape (call it once per shape, at module
 * level: each builder has its own constructor, hence its own hidden classes). `build(fields)`
 * answers a new plain object (prototype Object.prototype, as snapshots require) with `fields`'
 * own enumerable properties, in their order; `fields` itself is not kept. The constructor is made
 * for the first record's keys, one store per key, so that V8 sizes the object for all of its
 * fields as it did for the literal; a record with other keys is a plain copy.
 */
export function plainRecord<T extends object>(): (fields: T) => T {
  let keys: string[] | undefined;
  let Ctor: (new (fields: T) => T) | undefined;
  return (fields) => {
    if (Ctor === undefined) {
      keys = Object.keys(fields);
      // Property names as string literals: stores by a constant key, whatever the name.
      const body = keys.map((k) => `this[${JSON.stringify(k)}] = f[${JSON.stringify(k)}];`).join('\n');
      const fn = new Function('f', body) as unknown as { prototype: object };
      fn.prototype = Object.prototype;
      Ctor = fn as unknown as new (fields: T) => T;
    }
    return sameKeys(keys!, fields) ? new Ctor(fields) : Object.assign({}, fields);
  };
}

function sameKeys(keys: string[], fields: object): boolean {
  let n = 0;
  for (const k in fields) {
    if (!Object.prototype.hasOwnProperty.call(fields, k)) continue;
    if (keys[n] !== k) return false;
    n++;
  }
  return n === keys.length;
}
