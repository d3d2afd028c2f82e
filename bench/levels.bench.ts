/**
 * Price-level structure: the design card's functional-red-black-tree against the book's sorted
 * level array + integer price index (engine/book.ts), on the book's workload — levels appear
 * and vanish near the top of a side, the best level is read on every order.
 *
 * Each op: find-or-create the level at a price drawn near the top (70 %) or deeper (30 %),
 * read the best level, and remove a level that was emptied. Same seeded op sequence for both.
 * Ends with one JSON line: {"bench":"levels",...}.
 */
import createRBTree from 'functional-red-black-tree';
import { createPrng } from '../sim/prng.ts';
import { createPriceIndex, NO_LEVEL, priceDelete, priceGet, priceSet } from '../engine/price-index.ts';

const OPS = Number(process.env.BENCH_OPS ?? 1_000_000);
const MID = 1_000_000;

interface Op {
  add: boolean;
  price: number;
}

function ops(): Op[] {
  const rng = createPrng(7);
  const live: number[] = [];
  const out: Op[] = [];
  for (let i = 0; i < OPS; i++) {
    if (live.length < 200 || rng.next() < 0.5) {
      const depth = rng.next() < 0.7 ? rng.int(20) : 20 + rng.int(500);
      const price = MID - 1 - depth;
      out.push({ add: true, price });
      live.push(price);
    } else {
      const k = rng.int(live.length);
      out.push({ add: false, price: live[k]! });
      live[k] = live[live.length - 1]!;
      live.pop();
    }
  }
  return out;
}

interface Level {
  price: number;
  count: number;
}

function runTree(stream: Op[]): number {
  let tree = createRBTree<number, Level>((a, b) => b - a);
  let best = 0;
  for (const op of stream) {
    const found = tree.get(op.price);
    if (op.add) {
      if (found === undefined) tree = tree.insert(op.price, { price: op.price, count: 1 });
      else found.count++;
    } else if (found !== undefined && --found.count === 0) {
      tree = tree.remove(op.price);
    }
    best += tree.begin.key ?? 0;
  }
  return best;
}

function runArray(stream: Op[]): number {
  const levels: Level[] = [];
  const index = createPriceIndex();
  // The index holds handles (engine/book.ts keeps level records in typed arrays by handle).
  const byHandle: Level[] = [];
  let best = 0;
  for (const op of stream) {
    const h = priceGet(index, op.price);
    const found = h === NO_LEVEL ? undefined : byHandle[h];
    if (op.add) {
      if (found === undefined) {
        const level = { price: op.price, count: 1 };
        byHandle.push(level);
        priceSet(index, op.price, byHandle.length - 1);
        let lo = 0;
        let hi = levels.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (levels[mid]!.price < op.price) lo = mid + 1;
          else hi = mid;
        }
        levels.splice(lo, 0, level);
      } else {
        found.count++;
      }
    } else if (found !== undefined && --found.count === 0) {
      priceDelete(index, op.price);
      levels.splice(levels.indexOf(found), 1);
    }
    best += levels.length === 0 ? 0 : levels[levels.length - 1]!.price;
  }
  return best;
}

function time(run: (s: Op[]) => number, stream: Op[]): { opsPerSec: number; check: number } {
  run(stream);
  const t = performance.now();
  const check = run(stream);
  return { opsPerSec: Math.round(stream.length / ((performance.now() - t) / 1000)), check };
}

const stream = ops();
const tree = time(runTree, stream);
const array = time(runArray, stream);
if (tree.check !== array.check) throw new Error('the two structures disagree on the best level');
console.log(`functional-red-black-tree  ${tree.opsPerSec.toLocaleString('en-US').padStart(12)} ops/s`);
console.log(`sorted array + price index ${array.opsPerSec.toLocaleString('en-US').padStart(12)} ops/s  (${(array.opsPerSec / tree.opsPerSec).toFixed(1)}x)`);
console.log(JSON.stringify({ bench: 'levels', rbTreeOpsPerSec: tree.opsPerSec, arrayOpsPerSec: array.opsPerSec }));
