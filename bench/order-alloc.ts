/**
 * Bytes allocated per signed placeOrder on the order path without HTTP (the operation's `handle`,
 * as order-path-ab runs it, signatures accepted at once), by allocating stack:
 * `node --import tsx bench/order-alloc.ts` (TREE=<checkout> to measure another one, DEPTH frames
 * of stack per row, TOP rows). V8's sampling heap profiler, collected objects kept, so it is all
 * the garbage made; like order-floor-diff's ALLOC=1 it does not move with the machine's load.
 */
import { Session } from 'node:inspector/promises';
import { benchWallets, signOrders } from './gateway-orders.ts';
import { acceptAllSignatures, runOrders, startOrderServer, type Handle, type PlanClock } from './order-path-server.ts';
import { envInt } from './env.ts';

const TREE = process.env.TREE ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const CHUNK = envInt('CHUNK', 4_000);
const ROUNDS = envInt('ROUNDS', 4);
const DEPTH = envInt('DEPTH', 3);
const TOP = envInt('TOP', 40);
/** OWNER=<regex on file names>: also sums the bytes by the innermost frame in a matching file (what each of those files causes, callees included). */
const OWNER = process.env.OWNER === undefined ? undefined : new RegExp(process.env.OWNER);

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: ProfileNode[];
}
const { startServer } = (await import(TREE + '/sim/server.ts')) as typeof import('../sim/server.ts');
const { OPERATIONS } = (await import(TREE + '/gateway/operations/index.ts')) as { OPERATIONS: readonly { name: string; handle: Handle }[] };
const wallets = benchWallets();
const plan: PlanClock = { baseNs: 0n, goodTilTimeUs: 0 };
const server = await startOrderServer(startServer, wallets, plan);
const close = acceptAllSignatures(server);
const handle = OPERATIONS.find((op) => op.name === 'placeOrder')!.handle;
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
const frame = (n: ProfileNode): string => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop() ?? ''}`;
const byStack = new Map<string, number>();
const byOwner = new Map<string, number>();
let total = 0;
let orders = 0;
for (let round = 0, first = 0; round <= ROUNDS; round++, first += CHUNK) {
  const list = signOrders(wallets, { first, count: CHUNK, ...plan });
  if (round > 0) await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as { samplingInterval: number });
  const { refused } = await runOrders(handle, server.state, list);
  if (refused > 0) throw new Error(`${refused} orders not acknowledged`);
  if (round === 0) continue;
  const { profile } = await session.post('HeapProfiler.stopSampling');
  orders += CHUNK;
  const walk = (node: ProfileNode, path: string[]): void => {
    const here = [...path, frame(node)];
    if (node.selfSize > 0) {
      const key = here.slice(-DEPTH).reverse().join(' < ');
      byStack.set(key, (byStack.get(key) ?? 0) + node.selfSize);
      if (OWNER !== undefined) {
        let owner = '(other)';
        for (let i = here.length - 1; i >= 0; i--) {
          if (OWNER.test(here[i]!.split(' ')[1] ?? '')) {
            owner = here[i]!;
            break;
          }
        }
        byOwner.set(owner, (byOwner.get(owner) ?? 0) + node.selfSize);
      }
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head as unknown as ProfileNode, []);
}
console.log(`${TREE}: ${(total / orders).toFixed(0)} bytes allocated an order (order path without HTTP)`);
for (const [k, v] of [...byStack].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${(v / orders).toFixed(0).padStart(6)}  ${k}`);
if (OWNER !== undefined) {
  console.log(`by innermost frame in a file matching ${OWNER}:`);
  for (const [k, v] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${(v / orders).toFixed(0).padStart(6)}  ${k}`);
}
console.log(JSON.stringify({ bench: 'order-alloc', tree: TREE, bytesPerOrder: Math.round(total / orders) }));
await close();
