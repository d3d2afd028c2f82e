// The part of better-sqlite3's API perpsim uses, typed until @types/better-sqlite3 is a
// devDependency (then delete this file).
declare module 'better-sqlite3' {
  namespace Database {
    interface RunResult {
      changes: number;
      lastInsertRowid: number | bigint;
    }
    interface Statement<P extends unknown[] = unknown[]> {
      run(...params: P): RunResult;
      get(...params: P): unknown;
      all(...params: P): unknown[];
      iterate(...params: P): IterableIterator<unknown>;
    }
    interface Transaction<F extends (...args: never[]) => unknown> {
      (...args: Parameters<F>): ReturnType<F>;
      deferred(...args: Parameters<F>): ReturnType<F>;
      immediate(...args: Parameters<F>): ReturnType<F>;
      exclusive(...args: Parameters<F>): ReturnType<F>;
    }
    interface Database {
      readonly open: boolean;
      readonly inTransaction: boolean;
      prepare<P extends unknown[] = unknown[]>(source: string): Statement<P>;
      exec(source: string): this;
      pragma(source: string, options?: { simple?: boolean }): unknown;
      transaction<F extends (...args: never[]) => unknown>(fn: F): Transaction<F>;
      close(): this;
    }
    interface Options {
      readonly?: boolean;
      fileMustExist?: boolean;
      timeout?: number;
    }
  }
  interface DatabaseConstructor {
    new (filename?: string, options?: Database.Options): Database.Database;
  }
  const Database: DatabaseConstructor;
  export = Database;
}
