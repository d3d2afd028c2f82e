/**
 * Code and docs cite a section of docs/decisions.md as `docs/decisions.md "<heading>"` (also
 * `docs/decisions.md, "<heading>"`, `("<heading>")` and lists `"A", "B"`, across comment line
 * breaks). Each cited name must be a heading of decisions.md or its start up to a `:`, ` (` or
 * `,` ("Rate limits" names "Rate limits (`gateway/rate-limit/`)"), so renaming a section breaks
 * this test rather than the reader.
 *
 * Scanned: the sources and docs of the repository, without node_modules, build outputs and
 * docs/benchmarks.md (a dated record: its pointers name the sections as they were then), and
 * this file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', 'test-output', 'coverage', '.git']);
// This file: its fixtures cite wrong names on purpose.
const SKIP_FILES = new Set(['docs/decisions.md', 'docs/benchmarks.md', 'test/docs.decisions-citations.test.ts']);
const SCANNED = /\.(ts|mts|mjs|js|md)$/;

/** The headings (## and deeper) of a markdown text, backticks removed. */
export function headingsOf(markdown: string): string[] {
  return [...markdown.matchAll(/^#{2,6} (.+)$/gm)].map((m) => m[1]!.replace(/`/g, '').trim());
}

/** Whether `name` is one of `headings`, or the start of one up to a `:`, ` (` or `,`. */
export function namesHeading(name: string, headings: readonly string[]): boolean {
  const wanted = name.replace(/`/g, '').trim();
  return headings.some((h) => h === wanted || (h.startsWith(wanted) && /^(:| \(|,)/.test(h.slice(wanted.length))));
}

/** The section names a text cites after `docs/decisions.md`, with the 1-based line of each citation. */
export function citationsIn(text: string): { name: string; line: number }[] {
  // Join wrapped comment lines so a citation broken over two lines reads as one.
  const lineOf: number[] = [];
  let joined = '';
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const rest = text.slice(i);
    const wrap = /^\n[ \t]*(?:\*(?!\/)|\/\/|#)?[ \t]*/.exec(rest);
    if (wrap) {
      joined += ' ';
      lineOf.push(line);
      line++;
      i += wrap[0].length - 1;
      continue;
    }
    joined += text[i];
    lineOf.push(line);
  }
  const found: { name: string; line: number }[] = [];
  for (const m of joined.matchAll(/docs\/decisions\.md`?[ ,(]*((?:"[^"]+"(?:[ ]*(?:,|and)[ ]*(?="))?)+)/g)) {
    for (const q of m[1]!.matchAll(/"([^"]+)"/g)) found.push({ name: q[1]!, line: lineOf[m.index!]! });
  }
  return found;
}

function scannedFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) scannedFiles(path, out);
    } else if (SCANNED.test(entry.name) && !SKIP_FILES.has(relative(ROOT, path))) {
      out.push(path);
    }
  }
  return out;
}

describe('citations of docs/decisions.md sections', () => {
  const headings = headingsOf(readFileSync(join(ROOT, 'docs/decisions.md'), 'utf8'));

  it('name a heading that exists, in every scanned file', () => {
    const files = scannedFiles(ROOT);
    const cited = files.flatMap((f) =>
      citationsIn(readFileSync(f, 'utf8')).map((c) => ({ ...c, at: `${relative(ROOT, f)}:${c.line}` })),
    );
    const wrong = cited.filter((c) => !namesHeading(c.name, headings)).map((c) => `${c.at} "${c.name}"`);
    expect(wrong).toEqual([]);
    // The scan reaches the citations (operation headers cite their sections).
    expect(cited.length).toBeGreaterThan(30);
  });

  it('finds a wrong citation, one wrapped over comment lines, and each name of a list', () => {
    const text = [
      '/**',
      ' * Choices: docs/decisions.md "No such',
      ' * section", "Money" and "Modify".',
      ' */',
      '// (docs/decisions.md, "Rate limits"); `docs/decisions.md`, ("Slow consumers")',
    ].join('\n');
    expect(citationsIn(text)).toEqual([
      { name: 'No such section', line: 2 },
      { name: 'Money', line: 2 },
      { name: 'Modify', line: 2 },
      { name: 'Rate limits', line: 5 },
      { name: 'Slow consumers', line: 5 },
    ]);
    const wrong = citationsIn(text).filter((c) => !namesHeading(c.name, headings));
    expect(wrong.map((c) => c.name)).toEqual(['No such section']);
  });

  it('takes a heading\'s start only up to a separator', () => {
    const hs = ['Rate limits (`gateway/rate-limit/`)', 'Fidelity to the live venue: what clients expect', 'Modify'];
    expect(namesHeading('Rate limits', headingsOf(hs.map((h) => `## ${h}`).join('\n')))).toBe(true);
    expect(namesHeading('Fidelity to the live venue', hs)).toBe(true);
    expect(namesHeading('Modify', hs)).toBe(true);
    expect(namesHeading('Rate', hs)).toBe(false);
    expect(namesHeading('Fidelity', hs)).toBe(false);
    expect(namesHeading('Mod', hs)).toBe(false);
  });
});
