#!/usr/bin/env node
/**
 * Sorts gateway/'s root modules into folders by layer (docs/decisions.md, "The gateway's folder
 * layout"), in one go: `git mv` of every file in MOVES, then every relative import that named a
 * moved file — or that a moved file makes — is rewritten, in every tracked source of the
 * repository (engine, gateway, sim, client, testing, bench, test, scripts, examples, the root).
 * Mentions of a moved file's repository path in comments and docs (`gateway/read-models/exchange.ts`) follow.
 *
 *   node scripts/dev/move-gateway.mjs            # moves, rewrites, prints what it did
 *   node scripts/dev/move-gateway.mjs --dry-run  # prints what it would do, changes nothing
 *
 * It refuses to run (changing nothing) when a root module of gateway/ is in neither MOVES nor
 * STAYS — add its row first — or when a MOVES source is missing or a target exists. Specifiers
 * are found textually (`specifierSpans`), keep their extension and get a `./` when they stay in
 * the folder. Run it on a clean work tree, then `npx tsc --noEmit -p .` and the tests.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Old path → new path, from the repository root. */
export const MOVES = {
  // The HTTP edge: the fastify app and what only requests carry.
  'gateway/http/app.ts': 'gateway/http/app.ts',
  'gateway/http/request-id.ts': 'gateway/http/request-id.ts',
  'gateway/http/geo.ts': 'gateway/http/geo.ts',
  // The interface's contract, shared by REST and the WebSocket: operation records and the
  // gateway state they act on, error bodies, reply schemas, the validator, number formats.
  'gateway/contract/operation.ts': 'gateway/contract/operation.ts',
  'gateway/contract/errors.ts': 'gateway/contract/errors.ts',
  'gateway/contract/reply-schema.ts': 'gateway/contract/reply-schema.ts',
  'gateway/contract/validator.ts': 'gateway/contract/validator.ts',
  'gateway/contract/format.ts': 'gateway/contract/format.ts',
  // Read models: the exchange and what is computed from its events.
  'gateway/read-models/exchange.ts': 'gateway/read-models/exchange.ts',
  'gateway/read-models/history.ts': 'gateway/read-models/history.ts',
  'gateway/read-models/history-store.ts': 'gateway/read-models/history-store.ts',
  'gateway/read-models/candles.ts': 'gateway/read-models/candles.ts',
  'gateway/read-models/funding-rates-store.ts': 'gateway/read-models/funding-rates-store.ts',
  'gateway/read-models/market-stats.ts': 'gateway/read-models/market-stats.ts',
  'gateway/read-models/markets.ts': 'gateway/read-models/markets.ts',
  'gateway/read-models/book-levels.ts': 'gateway/read-models/book-levels.ts',
  'gateway/read-models/positions.ts': 'gateway/read-models/positions.ts',
  'gateway/read-models/market-attributes.ts': 'gateway/read-models/market-attributes.ts',
  // Account services and their stores.
  'gateway/services/follow.ts': 'gateway/services/follow.ts',
  'gateway/services/referral.ts': 'gateway/services/referral.ts',
  'gateway/services/notifications.ts': 'gateway/services/notifications.ts',
  'gateway/services/preferences.ts': 'gateway/services/preferences.ts',
  'gateway/services/leaderboard.ts': 'gateway/services/leaderboard.ts',
  'gateway/services/portfolio.ts': 'gateway/services/portfolio.ts',
  // The gateway's own write-side state beside the signature checks: keys, single-use nonces,
  // replay slots, the wallet-signature network, and the per-wallet ordering of writes.
  'gateway/auth/keys.ts': 'gateway/auth/keys.ts',
  'gateway/auth/nonces.ts': 'gateway/auth/nonces.ts',
  'gateway/auth/replay.ts': 'gateway/auth/replay.ts',
  'gateway/auth/network.ts': 'gateway/auth/network.ts',
  'gateway/auth/sequencer.ts': 'gateway/auth/sequencer.ts',
  // Leaf helpers everything may import.
  'gateway/shared/maybe.ts': 'gateway/shared/maybe.ts',
  'gateway/shared/account-key.ts': 'gateway/shared/account-key.ts',
  'gateway/shared/window.ts': 'gateway/shared/window.ts',
};

/** Root modules that stay: the composition root. */
export const STAYS = ['gateway/gateway.ts'];

const SOURCE = /\.(ts|tsx|mts|cts|mjs|cjs|js)$/;
const PROSE = /\.(md|json|yml|yaml|html|css|txt)$|(^|\/)run$/;

function git(root, ...args) {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' });
}

/**
 * Every place in `text` where a relative specifier sits: [start, end) of the string without its
 * quotes. A specifier is a quoted `./…` or `../…` right after `from`, `import` (side effect or
 * dynamic), `new URL(`, `vi.mock(`, `require(` or `import.meta.resolve(`. A textual match, on
 * purpose: TypeScript needs no parser for it, and an example in a comment that names a moved
 * module is worth rewriting too.
 */
export function specifierSpans(text) {
  const spans = [];
  const pattern = /(?:\bfrom|\bimport|\bimport\s*\(|\bnew URL\(|\bvi\.(?:do)?[mM]ock\(|\brequire(?:\.resolve)?\(|\bimport\.meta\.resolve\()\s*(['"])(\.{1,2}\/[^'"\n]*)\1/g;
  for (const m of text.matchAll(pattern)) {
    const start = m.index + m[0].length - 1 - m[2].length;
    spans.push([start, start + m[2].length]);
  }
  return spans;
}

function specifierFrom(fromFile, toFile) {
  let spec = posix.relative(posix.dirname(fromFile), toFile);
  if (!spec.startsWith('.')) spec = './' + spec;
  return spec;
}

/** The new text of `file` (repository path before the move), or undefined when unchanged. */
export function rewrite(text, file, moves) {
  const newFile = moves[file] ?? file;
  let out = '';
  let at = 0;
  for (const [s, e] of specifierSpans(text)) {
    const spec = text.slice(s, e);
    const [path, suffix = ''] = spec.split(/(?=[?#])/);
    const target = posix.normalize(posix.join(posix.dirname(file), path));
    const newTarget = moves[target] ?? target;
    if (newTarget === target && newFile === file) continue;
    const next = specifierFrom(newFile, newTarget) + suffix + (path.endsWith('/') && !newTarget.endsWith('/') ? '/' : '');
    if (next === spec) continue;
    out += text.slice(at, s) + next;
    at = e;
  }
  out = rewriteMentions(out + text.slice(at), moves);
  return out === text ? undefined : out;
}

/** Mentions of a moved file by its repository path (comments, docs): not inside a longer path. */
export function rewriteMentions(text, moves) {
  let out = text;
  for (const [from, to] of Object.entries(moves)) {
    const mention = new RegExp(`(?<![\\w./-])${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'g');
    out = out.replace(mention, to);
  }
  return out;
}

function main() {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dry = process.argv.includes('--dry-run');
  const tracked = git(root, 'ls-files', '-z').split('\0').filter((f) => f !== '' && existsSync(join(root, f)));
  const rootModules = tracked.filter((f) => /^gateway\/[^/]+$/.test(f) && SOURCE.test(f));
  const unmapped = rootModules.filter((f) => !(f in MOVES) && !STAYS.includes(f));
  const problems = [
    ...unmapped.map((f) => `${f}: a root module of gateway/ with no row in MOVES (or STAYS)`),
    ...Object.keys(MOVES).filter((f) => !tracked.includes(f)).map((f) => `${f}: in MOVES but not a tracked file`),
    ...Object.values(MOVES).filter((f) => existsSync(join(root, f))).map((f) => `${f}: the target exists already`),
  ];
  if (problems.length > 0) {
    console.error('move-gateway: nothing changed:\n  ' + problems.join('\n  '));
    process.exit(1);
  }
  const edits = new Map();
  for (const file of tracked) {
    if (!SOURCE.test(file) && !PROSE.test(file)) continue;
    if (file.startsWith('node_modules/') || file.startsWith('dist/') || file.includes('/fixtures/')) continue;
    const text = readFileSync(join(root, file), 'utf8');
    const next = SOURCE.test(file) ? rewrite(text, file, MOVES) : rewriteMentions(text, MOVES);
    if (next === text) continue;
    if (next !== undefined) edits.set(file, next);
  }
  for (const [from, to] of Object.entries(MOVES)) {
    console.log(`${dry ? 'would move' : 'move'} ${from} → ${to}`);
    if (dry) continue;
    mkdirSync(dirname(join(root, to)), { recursive: true });
    git(root, 'mv', from, to);
  }
  for (const [file, text] of edits) {
    const now = MOVES[file] ?? file;
    console.log(`${dry ? 'would rewrite' : 'rewrite'} ${now}`);
    if (!dry) writeFileSync(join(root, now), text);
  }
  console.log(`${Object.keys(MOVES).length} files ${dry ? 'to move' : 'moved'}, ${edits.size} ${dry ? 'to rewrite' : 'rewritten'}.`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
