/**
 * `perf script` output summarised by the nearest JavaScript frame of each sample (a builtin such
 * as a Map look-up counts for the JS function that called it, inlined callees for the function
 * they were inlined into): `node bench/perf-frames.mjs <perf-script.txt> [FILES] [LEAVES]`.
 * FILES (a regex on the frame, default: everything) picks the frames listed; LEAVES lists, for
 * those frames, the builtins and runtime functions their samples ended in. Samples whose stack
 * matches SKIP (env, default: the bench's client-side signing) are left out of the total, so
 * the per-mille figures are shares of the process's own work. Record with
 * `perf record -e cpu-clock -F 2999 -g -o perf.data node --perf-basic-prof --import tsx <script>`
 * then `perf script -i perf.data > perf.txt`.
 */
import { readFileSync } from 'node:fs';

const [file, files = '.', leaves] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: node bench/perf-frames.mjs <perf-script.txt> [FILES regex] [LEAVES regex]');
const skip = new RegExp(process.env.SKIP ?? 'signOneShot|ed25519|sha512|planned');
const pick = new RegExp(files);
const leafPick = leaves === undefined ? undefined : new RegExp(leaves);
const clean = (frame) =>
  frame
    .replace(/^\s*[0-9a-f]+\s+/, '')
    .replace(/ \(.*\)$/, '')
    .replace(/file:\/\/\/[^ ]*?\/(gateway|engine|sim|bench|client)\//, '$1/')
    .replace(/\+0x[0-9a-f]+$/, '')
    .replace(/:\d+:\d+$/, '');
let total = 0;
const byFrame = new Map();
const byLeaf = new Map();
for (const sample of readFileSync(file, 'utf8').split('\n\n')) {
  const stack = sample.split('\n').filter((l) => /^\s+[0-9a-f]+ /.test(l)).map(clean);
  if (stack.length === 0 || stack.some((f) => skip.test(f))) continue;
  total++;
  const js = stack.find((f) => f.startsWith('JS:')) ?? '(no JS frame)';
  byFrame.set(js, (byFrame.get(js) ?? 0) + 1);
  if (leafPick !== undefined && pick.test(js) && leafPick.test(stack[0])) {
    const key = `${stack[0]}  <=  ${js}`;
    byLeaf.set(key, (byLeaf.get(key) ?? 0) + 1);
  }
}
const show = (map) => {
  let sum = 0;
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1])) {
    if (map === byFrame && !pick.test(k)) continue;
    sum += v;
    console.log(`${String(v).padStart(6)} ${((1000 * v) / total).toFixed(1).padStart(6)}‰  ${k}`);
  }
  console.log(`${String(sum).padStart(6)} ${((1000 * sum) / total).toFixed(1).padStart(6)}‰  (sum)`);
};
console.log(`${total} samples (not matching ${skip})`);
show(byFrame);
if (leafPick !== undefined) show(byLeaf);
