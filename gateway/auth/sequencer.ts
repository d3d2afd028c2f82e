/**
 * One wallet's writes reach the engine in the order the gateway received them, although their
 * signatures are verified concurrently (auth/verifier.ts) and may come back in any order.
 *
 * Contract: `sequenced` is called synchronously when the handler starts — handlers start in
 * arrival order — and takes the wallet's next turn; `prepare` (parsing, verification) runs at
 * once, concurrently with other requests; `commit` (replay slot, rate-limit charge, engine
 * submit, reply) runs only after every earlier request of the same wallet has committed or
 * failed. A turn is always given back, whatever `prepare` or `commit` throws, and never before
 * the turn it waited for. When nothing of the wallet is in flight and `prepare` answers
 * synchronously (inline verification), `commit` runs at once and the answer is synchronous:
 * nothing can come between. Wallets, not subaccounts, are the unit: an API key may act for every
 * subaccount of its wallet, and a coarser order is still the arrival order for each subaccount.
 *
 * Cost: a wallet with nothing in flight (the common case) answers through one `then` on the
 * preparation; a turn makes its promise only when a later write of the wallet waits for it.
 */
import type { Maybe } from '../shared/maybe.ts';

/** A write in flight, held in `turns` under its wallet until it has committed or failed. */
export class Turn {
  private left = false;
  private given: Promise<void> | undefined;
  private resolveGiven: (() => void) | undefined;

  constructor(
    private readonly turns: Turns,
    private readonly wallet: string,
  ) {}

  /** Settles (never rejects) once the turn is given back; made when a later write waits for it. */
  released(): Promise<void> {
    if (this.given === undefined) {
      this.given = this.left ? Promise.resolve() : new Promise<void>((resolve) => (this.resolveGiven = resolve));
    }
    return this.given;
  }

  /** Gives the turn back: the wallet's next write may commit. */
  leave(): void {
    this.left = true;
    this.resolveGiven?.();
    if (this.turns.get(this.wallet) === this) this.turns.delete(this.wallet);
  }

  /** Commits and gives the turn back once the commit's answer is settled. */
  commit<P, R>(commit: (prepared: P) => Maybe<R>, ready: P): Maybe<R> {
    let answer: Maybe<R>;
    try {
      answer = commit(ready);
    } catch (error) {
      this.leave();
      throw error;
    }
    if (!(answer instanceof Promise)) {
      this.leave();
      return answer;
    }
    return answer.then(
      (value) => {
        this.leave();
        return value;
      },
      (error: unknown) => {
        this.leave();
        throw error;
      },
    );
  }
}

export type Turns = Map<string, Turn>;

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
  const mine = new Turn(turns, wallet);
  turns.set(wallet, mine);
  if (previous === undefined) {
    // Nothing of the wallet in flight: one `then`, no turn promise, no async frame.
    return (prepared as Promise<P>).then(
      (ready) => mine.commit(commit, ready),
      (error: unknown) => {
        mine.leave();
        throw error;
      },
    );
  }
  // An anonymous async arrow called at once, not a named const: tsx (esbuild keepNames) wraps a
  // named closure in __name(), an Object.defineProperty per call (~0.3 µs an order).
  return (async (): Promise<R> => {
    let ready: P;
    try {
      ready = await prepared;
    } catch (error) {
      // Failed, but its turn still comes after the one it waited for.
      await previous.released();
      mine.leave();
      throw error;
    }
    await previous.released();
    return mine.commit(commit, ready);
  })();
}
