/**
 * Values that are ready now or later. A write's signature is verified on worker threads in a
 * server, but inline — synchronously — without auth or without a verifier pool (in-process
 * fixtures, the backtester, which runs operations in lockstep with its clock): the same handler
 * code must then answer synchronously, so the steps between parsing and the engine pass values
 * through `andThen` instead of `await` (not `then`: a module exporting `then` is a thenable, and `await import()` would call it).
 */
export type Maybe<T> = T | Promise<T>;

export function andThen<T, R>(value: Maybe<T>, next: (value: T) => Maybe<R>): Maybe<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

export function all<T>(values: readonly Maybe<T>[]): Maybe<T[]> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values) : (values as T[]);
}
