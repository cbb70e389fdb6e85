// The manifest of trusted documents for PERSISTED_OPERATIONS=only (README "Persisted operations"): SHA-256 hash →
// document, for the documents of this repository that clients send to /graphql: GraphiQL's default document as
// GraphiQL sends it, and each operation of the README, printed. `npm run schema` rewrites it; a test fails when stale.
// (The REST door's documents run in process on the internal graph, not through /graphql, so they need no entry.)
import { parse, print } from 'graphql';
import { GRAPHIQL_DEFAULT_QUERY } from './graphiql.js';
import { sha256 } from './persisted-operations.js';

export const MANIFEST_FILE = 'schema/persisted-operations.json';

/** Every operation of the README's ```graphql blocks, printed. */
export function readmeOperations(readme: string): string[] {
  return [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].flatMap((block) =>
    parse(block[1] ?? '').definitions.map((definition) => print(definition)),
  );
}

export function buildManifest(readme: string): Record<string, string> {
  const documents = [GRAPHIQL_DEFAULT_QUERY, ...readmeOperations(readme)];
  const entries = documents.map((document) => [sha256(document), document] as const);
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}
