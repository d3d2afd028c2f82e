/**
 * The relative imports of a folder's TypeScript modules, and the cycles among them: a small
 * parser (static `import`/`export … from` only) for the no-cycle rule of engine/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative, dirname } from 'node:path';

export interface ImportEdge {
  from: string;
  to: string;
  /** `import type` / `export type`: erased at runtime. */
  typeOnly: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

/** Edges between modules of `root` (paths relative to it); imports leaving it are ignored. */
export function importGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+'([^']+)'/gms;
  for (const file of sources(root)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(statement)) {
      const spec = m[4]!;
      if (!spec.startsWith('.')) continue;
      const target = normalize(join(dirname(file), spec));
      const to = relative(root, target);
      if (to.startsWith('..')) continue;
      // `import { type A, type B }` is as erased as `import type { A, B }`.
      const names = m[3]!.replace(/[{}]/g, '').split(',').map((n) => n.trim()).filter((n) => n !== '');
      const typeOnly = m[2] !== undefined || (names.length > 0 && names.every((n) => n.startsWith('type ')));
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
