/**
 * The backtest's agenda: everything waiting to happen on simulated time (the strategy's writes
 * reaching the exchange, delayed market data, timers), ordered by (time, sequence of
 * scheduling) so that ties resolve in the order things were caused (nautilus_trader's rule).
 */

export interface Scheduled {
  time: number;
  seq: number;
  run: () => void;
  /** Timers are dropped once the run has ended; writes and deliveries still complete. */
  timer: boolean;
}

/** Binary min-heap on (time, seq). */
export class Agenda {
  private readonly items: Scheduled[] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  peekTime(): number {
    return this.items.length === 0 ? Infinity : this.items[0]!.time;
  }

  push(time: number, run: () => void, timer = false): void {
    const items = this.items;
    const item = { time, seq: this.seq++, run, timer };
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(item, items[parent]!)) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  pop(): Scheduled | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= items.length) break;
      const r = l + 1;
      const child = r < items.length && before(items[r]!, items[l]!) ? r : l;
      if (!before(items[child]!, last)) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

function before(a: Scheduled, b: Scheduled): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}
