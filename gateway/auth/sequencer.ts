/**
 * One wallet's writes reach the engine in the order the gateway received them, although their
 * signatures are verified concurrently (auth/verifier.ts) and may come back in any order.
 *
 * Contract: `sequenced` is called synchronously when the handler starts — handlers start in
 * arrival order — and takes the wallet's next turn; `prepare` (parsing, verification) runs at
 * once, concurrently with other requests; `commit` (replay slot, rate-limit charge, engine
 * submit, reply) runs only after every earlier request of the same wallet has committed or
 * failed. A turn is always given back, whatever `prepare` or `commit` throws. When nothing of
 * the wallet is in flight and `prepare` answers synchronously (inline verification), `commit`
 * runs at once and the answer is synchronous: nothing can come between. Wallets, not
 * subaccounts, are the unit: an API key may act for every subaccount of its wallet, and a
 * coarser order is still the arrival order for each subaccount.
 */
import type { Maybe } from '../shared/maybe.ts';

export type Turns = Map<string, Promise<void>>;

/** A wallet address as a turn key: case and `0x` do not matter. */
export function walletKey(address: string): string {
  const lower = address.toLowerCase();
  return lower.startsWith('0x') ? lower.slice(2) : lower;
}

/** The wallet a write acts for, as sent (query `address`, else body `address`); '' when absent. */
export function walletOf(query: Record<string, unknown>, body: unknown): string {
  const raw = query.address ?? (body as { address?: unknown } | null | undefined)?.address;
  return typeof raw === 'string' ? walletKey(raw) : '';
}

/** `state`: the gateway (its `turns` field) or anything else that holds the turns. */
export function sequenced<P, R>(state: { turns: Turns }, wallet: string, prepare: () => Maybe<P>, commit: (prepared: P) => Maybe<R>): Maybe<R> {
  const turns = state.turns;
  const previous = turns.get(wallet);
  const prepared = prepare();
  if (previous === undefined && !(prepared instanceof Promise)) return commit(prepared);
  let leave!: () => void;
  const mine = new Promise<void>((resolve) => {
    leave = resolve;
  });
  turns.set(wallet, mine);
  // An anonymous async arrow called at once, not a named const: tsx (esbuild keepNames) wraps a
  // named closure in __name(), an Object.defineProperty per call (~0.3 µs an order).
  return (async (): Promise<R> => {
    try {
      const ready = await prepared;
      if (previous !== undefined) await previous;
      // A synchronous commit's answer is returned as is (awaiting it cost a microtask turn).
      const answer = commit(ready);
      return answer instanceof Promise ? await answer : answer;
    } finally {
      leave();
      if (turns.get(wallet) === mine) turns.delete(wallet);
    }
  })();
}
