/**
 * The relative imports among a tree's modules, and the cycles among them: the no-cycle rule of
 * engine/, gateway/, sim/ and client/. Type-only imports count: a cycle of types still ties the
 * modules' definitions to each other.
 *
 * A module's imports are those es-module-lexer finds (static imports, re-exports, side-effect
 * imports, literal dynamic imports; never text in comments or strings) in the JavaScript esbuild
 * makes of it with every import kept: the lexer reads JavaScript, and TypeScript syntax (`x! / y`)
 * can stop it. Type-only imports are kept by writing them as value imports first
 * (`verbatimModuleSyntax` then keeps every import statement).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { transformSync } from 'esbuild';
import { initSync, parse } from 'es-module-lexer';

export interface ImportEdge {
  from: string;
  to: string;
  /** `import type` / `export type` / every name `type …`: erased at runtime. */
  typeOnly: boolean;
}

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    if (d.name === 'node_modules' || d.name.startsWith('.')) return [];
    if (d.isDirectory()) return sources(join(dir, d.name));
    return SOURCE.test(d.name) && !d.name.endsWith('.d.ts') ? [join(dir, d.name)] : [];
  });
}

/** Whether one import statement (its text) brings only types. */
function typeOnlyStatement(statement: string): boolean {
  if (/^(import|export)\s+type\b/.test(statement)) return true;
  const names = /\{([^}]*)\}/.exec(statement)?.[1];
  if (names === undefined || /^import\s+[\w$]+\s*,/.test(statement) || /^import\s+\*/.test(statement)) return false;
  const list = names.split(',').map((n) => n.trim()).filter((n) => n !== '');
  return list.length > 0 && list.every((n) => n.startsWith('type '));
}

/** Static import and re-export statements of TypeScript text, for their type-only flags. */
const STATEMENT = /^\s*(?:import|export)\s[^;]*?\bfrom\s*(['"])([^'"]+)\1/gms;

/** The same module with its type-only imports and re-exports written as value ones. */
function valueImports(text: string): string {
  return text
    .replace(/\b(import|export)\s+type(\s*[{*])/g, '$1$2')
    .replace(/\bimport\s+type\s+([\w$]+\s+from\b)/g, 'import $1')
    .replace(/^(\s*(?:import|export)\s*\{[^}]*\})/gm, (names) => names.replace(/([{,]\s*)type\s+(?=[\w$])/g, '$1'));
}

/** The relative imports of one module's text: specifier and whether only types come through it. */
export function importsOf(text: string, name = 'module.ts'): { specifier: string; typeOnly: boolean }[] {
  initSync();
  const loader = name.endsWith('.tsx') ? 'tsx' : /\.[cm]?ts$/.test(name) ? 'ts' : 'js';
  const js = transformSync(valueImports(text), { loader, format: 'esm', target: 'esnext', tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } } }).code;
  const typeOnly = new Map<string, boolean>();
  for (const m of text.matchAll(STATEMENT)) typeOnly.set(m[2]!, (typeOnly.get(m[2]!) ?? true) && typeOnlyStatement(m[0].trim()));
  const [imports] = parse(js, name);
  const out: { specifier: string; typeOnly: boolean }[] = [];
  for (const i of imports) {
    if (i.n === undefined || !i.n.startsWith('.')) continue;
    out.push({ specifier: i.n, typeOnly: i.d === -1 && (typeOnly.get(i.n) ?? false) });
  }
  return out;
}

/**
 * Edges between the modules under `folders` of `root` (paths relative to `root`); imports of
 * modules outside them are ignored.
 */
export function importGraph(root: string, folders: readonly string[] = ['.']): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const inside = folders.map((f) => (f === '.' ? '' : normalize(f + '/')));
  for (const file of folders.flatMap((f) => sources(join(root, f)))) {
    for (const { specifier, typeOnly } of importsOf(readFileSync(file, 'utf8'), file)) {
      const to = relative(root, normalize(join(dirname(file), specifier)));
      if (to.startsWith('..') || !inside.some((prefix) => to.startsWith(prefix))) continue;
      edges.push({ from: relative(root, file), to, typeOnly });
    }
  }
  return edges;
}

/** Every elementary cycle's first appearance as a path a → … → a (found by DFS, each listed once by its node set). */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const cycles = new Map<string, string[]>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const done = new Set<string>();
  const visit = (node: string): void => {
    path.push(node);
    onPath.add(node);
    for (const to of next.get(node) ?? []) {
      if (onPath.has(to)) {
        const cycle = path.slice(path.indexOf(to));
        const key = [...cycle].sort().join('|');
        if (!cycles.has(key)) cycles.set(key, [...cycle, to]);
      } else if (!done.has(to)) visit(to);
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
  };
  for (const node of [...next.keys()].sort()) if (!done.has(node)) visit(node);
  return [...cycles.values()];
}
