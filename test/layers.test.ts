// The layers of src/ point down only, and no module imports itself round a cycle (docs/architecture.md, "Layers").
// Imports are read with TypeScript's own pre-processor (static, dynamic and re-exports, type-only ones included).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** Bottom first. A module may import its own layer or any layer below; layers of one rank may not import each other. */
const LAYERS: ReadonlyArray<{ name: string; rank: number; files: RegExp }> = [
  { name: 'core', rank: 0, files: /^src\/core\// },
  { name: 'validation', rank: 1, files: /^src\/validation\// },
  { name: 'security', rank: 1, files: /^src\/security\// },
  { name: 'db', rank: 2, files: /^(src\/db|migrations)\// },
  { name: 'domain', rank: 3, files: /^src\/domain\// },
  { name: 'events', rank: 4, files: /^src\/events\// },
  { name: 'services', rank: 5, files: /^src\/services\.ts$/ },
  { name: 'authentication', rank: 6, files: /^src\/authentication\.ts$/ },
  // src/graphql in rooms: the schema (builder, types, payloads, ids, pages), live queries, the server (yoga and its
  // plugins), the prepared lane beside it.
  { name: 'graphql/schema', rank: 7, files: /^src\/graphql\/schema\// },
  { name: 'graphql/live', rank: 7.2, files: /^src\/graphql\/live\// },
  { name: 'graphql/server', rank: 7.4, files: /^src\/graphql\/server\// },
  { name: 'graphql/lane', rank: 7.6, files: /^src\/graphql\/lane\// },
  { name: 'rest', rank: 8, files: /^src\/rest\// },
  { name: 'mcp', rank: 8, files: /^src\/mcp\// },
  { name: 'oauth', rank: 8, files: /^src\/oauth\// },
  { name: 'http', rank: 9, files: /^src\/http\// },
  { name: 'app', rank: 10, files: /^src\/app\.ts$/ },
  { name: 'entry points', rank: 11, files: /^src\/(main|cli|demo|startup-errors|node-version)\.ts$/ },
];

const layerOf = (file: string) => LAYERS.find((layer) => layer.files.test(file));

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = `${folder}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative import of every module under src/ and migrations/, as repository paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...sourceFiles('src'), ...sourceFiles('migrations')]) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    graph.set(
      file,
      importedFiles
        .map(({ fileName }) => fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => relative(ROOT, resolve(ROOT, dirname(file), name)).replace(/\.js$/, '.ts'))
        // A declaration file is imported by its .js name too (src/rest/internal-graph-env.d.ts).
        .map((path) => (existsSync(join(ROOT, path)) ? path : path.replace(/\.ts$/, '.d.ts'))),
    );
  }
  return graph;
}

/** The imports that point up, or sideways to another layer of the same rank. */
export function upwardImports(graph: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    const from = layerOf(file);
    for (const target of imports) {
      const to = layerOf(target);
      if (!from || !to) wrong.push(`${file} -> ${target} (not in any layer)`);
      else if (from !== to && to.rank >= from.rank) wrong.push(`${file} (${from.name}) -> ${target} (${to.name})`);
    }
  }
  return wrong;
}

/** The strongly connected components of more than one module (Tarjan), and modules that import themselves. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (next === node) found.push([node]);
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the layers of src/', () => {
  const graph = importGraph();

  test('every module belongs to a layer', () => {
    expect([...graph.keys()].filter((file) => !layerOf(file))).toEqual([]);
  });

  test('imports point down only', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  test('no import cycles', () => {
    expect(cycles(graph)).toEqual([]);
  });

  test('the checks see an upward import, a sideways one and a cycle', () => {
    const bad = new Map([
      ['src/core/logger.ts', ['src/http/doors.ts']],
      ['src/rest/router.ts', ['src/mcp/door.ts']],
      ['src/graphql/schema/builder.ts', ['src/graphql/server/yoga.ts']],
      ['src/mcp/door.ts', ['src/mcp/tools.ts']],
      ['src/mcp/tools.ts', ['src/mcp/door.ts']],
    ]);
    expect(upwardImports(bad)).toEqual([
      'src/core/logger.ts (core) -> src/http/doors.ts (http)',
      'src/rest/router.ts (rest) -> src/mcp/door.ts (mcp)',
      'src/graphql/schema/builder.ts (graphql/schema) -> src/graphql/server/yoga.ts (graphql/server)',
    ]);
    expect(cycles(bad)).toEqual([['src/mcp/door.ts', 'src/mcp/tools.ts']]);
  });
});
