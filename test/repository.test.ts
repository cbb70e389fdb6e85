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

/**
 * The sections of the decisions. docs/decisions.md is an index whose table rows start `| [§N](decisions/<file>.md)`;
 * each such page exists and opens with the heading `# N. …`, and every page under docs/decisions/ is in the index.
 * Code cites a section as `docs/decisions.md §N`.
 */
function decisionSections() {
  const index = readFileSync(join(ROOT, 'docs/decisions.md'), 'utf8');
  const pages = new Map<string, string>();
  const problems: string[] = [];
  for (const m of index.matchAll(/^\| \[§(\d+)\]\((decisions\/[^)#\s]+\.md)\)/gm)) {
    const [, number, file] = m as unknown as [string, string, string];
    const path = join(ROOT, 'docs', file);
    if (!existsSync(path)) {
      problems.push(`docs/decisions.md: §${number} maps to docs/${file}, which is missing`);
      continue;
    }
    const heading = /^# (\d+)\. /.exec(readFileSync(path, 'utf8'));
    if (heading?.[1] !== number) problems.push(`docs/${file}: its heading is not § ${number}`);
    else pages.set(number, file);
  }
  for (const name of readdirSync(join(ROOT, 'docs/decisions'))) {
    if (![...pages.values()].includes(`decisions/${name}`)) problems.push(`docs/decisions/${name}: not in the index`);
  }
  return { pages, problems };
}

/** The citations `docs/<page>.md` and `docs/decisions.md §N` in these files that lead nowhere. */
function citationProblems(files: Map<string, string>, sections: Map<string, string>) {
  const problems: string[] = [];
  for (const [path, text] of files) {
    for (const m of text.matchAll(/docs\/([a-z-]+\.md)((?:,? ?§\d+)*)/g)) {
      if (!existsSync(join(ROOT, 'docs', m[1]!))) problems.push(`${path}: docs/${m[1]} is missing`);
      for (const section of (m[2] ?? '').match(/\d+/g) ?? []) {
        if (m[1] === 'decisions.md' && !sections.has(section)) problems.push(`${path}: decisions.md §${section}`);
      }
    }
  }
  return problems;
}

describe('the repository stands on its own', () => {
  // Spelled in pieces so that this file does not match itself.
  const OUTSIDE = [['..', 'shared'].join('/'), ['DESIGN', 'md'].join('.'), ['STYLE', 'md'].join('.')];

  it('no file refers to a path outside the repository or to a design file that is not in it', () => {
    const found = [...contents].flatMap(([path, text]) =>
      OUTSIDE.filter((needle) => text.includes(needle)).map((needle) => `${path}: ${needle}`),
    );
    // A relative path that climbs above the repository from where its file is.
    for (const [path, text] of contents) {
      const depth = path.split('/').length - 1;
      for (const m of text.matchAll(/(?:\.\.\/)+/g)) {
        if (m[0].length / 3 > depth) found.push(`${path}: ${m[0]}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('every docs/ page a file cites exists, and every cited section of decisions.md is a page its index maps', () => {
    const sections = decisionSections();
    expect([...sections.problems, ...citationProblems(contents, sections.pages)]).toEqual([]);
    expect(sections.pages.size).toBeGreaterThanOrEqual(8);
  });

  it('a citation of a section the index does not map, or of a docs page that is missing, is a problem', () => {
    const { pages } = decisionSections();
    // Spelled in pieces so that this file does not cite them itself.
    const [decisions, nowhere] = [['docs', 'decisions.md'].join('/'), ['docs', 'nowhere.md'].join('/')];
    const cited = new Map([
      ['src/a.ts', `// ${decisions} §14, §99; ${nowhere}`],
      ['src/b.ts', `// the design (${decisions} §13)`],
    ]);
    expect(citationProblems(cited, pages)).toEqual([
      'src/a.ts: decisions.md §99',
      `src/a.ts: ${nowhere} is missing`,
      'src/b.ts: decisions.md §13',
    ]);
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

/** GitHub's anchor of a heading: lower case, punctuation dropped (but - and _), spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** Every anchor a Markdown file has: one per heading (a repeated heading gets -1, -2, ... as on GitHub). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const outsideCode = text.replace(/```[\s\S]*?```/g, '');
  for (const m of outsideCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(m[1] ?? '');
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

describe('links within the documentation', () => {
  it('every #anchor in the README, bench/ and docs/ names a heading of the page it points to', () => {
    const problems: string[] = [];
    for (const [path, text] of contents) {
      if (!path.endsWith('.md') || !(path === 'README.md' || path.startsWith('docs/') || path.startsWith('bench/')))
        continue;
      const prose = text.replace(/```[\s\S]*?```/g, '');
      for (const m of prose.matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)) {
        const target = m[1] ? join(dirname(path), m[1]) : path;
        const page =
          contents.get(target) ?? (existsSync(join(ROOT, target)) ? readFileSync(join(ROOT, target), 'utf8') : '');
        if (!anchorsOf(page).has(m[2] ?? '')) problems.push(`${path}: ${m[1] ?? ''}#${m[2]}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('only the decisions pages number their headings (code cites them), in order; other pages name theirs', () => {
    const problems: string[] = [];
    const decisionPages = (path: string) => path === 'docs/decisions.md' || path.startsWith('docs/decisions/');
    for (const [path, text] of contents) {
      if (!path.endsWith('.md') || path.startsWith('test/')) continue;
      const numbers = [...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (\d+)\./gm)].map((m) => Number(m[1]));
      if (numbers.length > 0 && !decisionPages(path)) problems.push(`${path}: numbered heading §${numbers[0]}`);
      numbers.forEach((n, i) => {
        if (i > 0 && n <= (numbers[i - 1] ?? 0)) problems.push(`${path}: §${n} after §${numbers[i - 1]}`);
      });
    }
    // The index lists the sections in order.
    const indexed = [
      ...readFileSync(join(ROOT, 'docs/decisions.md'), 'utf8').matchAll(/^\| \[§(\d+)\]\(decisions\//gm),
    ].map((m) => Number(m[1]));
    indexed.forEach((n, i) => {
      if (i > 0 && n <= (indexed[i - 1] ?? 0))
        problems.push(`docs/decisions.md: §${n} listed after §${indexed[i - 1]}`);
    });
    expect(problems).toEqual([]);
  });
});
