// The repository stands on its own: nothing in it reads or cites a file outside it, every `docs/… §N` a comment cites
// exists, and every relative link in the README and docs/ leads to a file that is here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', 'data', '.git', 'output']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const TEXT = /\.(ts|md|json|graphql|sh)$|(^|\/)run$/;
const files = ['src', 'test', 'bench', 'migrations', 'docs', 'schema', '.ci']
  .flatMap((dir) => filesUnder(join(ROOT, dir)))
  .concat(['README.md', 'package.json'].map((name) => join(ROOT, name)))
  .filter((path) => TEXT.test(path) && !path.endsWith('.test.ts.snap'));

const contents = new Map(files.map((path) => [relative(ROOT, path), readFileSync(path, 'utf8')]));

describe('the repository stands on its own', () => {
  // Spelled in pieces so that this file does not match itself.
  const OUTSIDE = [['..', 'shared'].join('/'), ['DESIGN', 'md'].join('.'), ['STYLE', 'md'].join('.'), '../'.repeat(3)];

  it('no file refers to a path outside the repository or to a design file that is not in it', () => {
    const found = [...contents].flatMap(([path, text]) =>
      OUTSIDE.filter((needle) => text.includes(needle)).map((needle) => `${path}: ${needle}`),
    );
    expect(found).toEqual([]);
  });

  it('every docs/ page a file cites exists, and every cited section of decisions.md is one of its headings', () => {
    const decisions = readFileSync(join(ROOT, 'docs/decisions.md'), 'utf8');
    const sections = new Set([...decisions.matchAll(/^## (\d+)\./gm)].map((m) => m[1]));
    const problems: string[] = [];
    for (const [path, text] of contents) {
      for (const m of text.matchAll(/docs\/([a-z-]+\.md)((?:,? ?§\d+)*)/g)) {
        if (!existsSync(join(ROOT, 'docs', m[1]!))) problems.push(`${path}: docs/${m[1]} is missing`);
        for (const section of (m[2] ?? '').match(/\d+/g) ?? []) {
          if (m[1] === 'decisions.md' && !sections.has(section)) problems.push(`${path}: decisions.md §${section}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(sections.size).toBeGreaterThanOrEqual(8);
  });

  it('every relative link in the README and docs/ leads to a file in the repository', () => {
    const problems: string[] = [];
    for (const [path, text] of contents) {
      if (!path.endsWith('.md') || !(path === 'README.md' || path.startsWith('docs/'))) continue;
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(ROOT, dirname(path), target))) problems.push(`${path}: ${target}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
