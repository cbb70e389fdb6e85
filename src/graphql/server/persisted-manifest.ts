// The manifest of trusted documents for PERSISTED_OPERATIONS=only (docs/graphql-api.md "Persisted operations"): SHA-256 hash →
// document, for the documents of this repository that clients send to /graphql: GraphiQL's default document as
// GraphiQL sends it, each operation of the README, printed, and the documents of schema/retired-operations.json (those
// that left the repository since the last release, kept for one release). `npm run schema` rewrites it; a test fails
// when it is stale.
// (The REST door's documents run in process on the internal graph, not through /graphql, so they need no entry.)
import { parse, print } from 'graphql';
import { GRAPHIQL_DEFAULT_QUERY } from './graphiql.js';
import { sha256 } from './persisted-operations.js';

export const MANIFEST_FILE = 'schema/persisted-operations.json';
export const RETIRED_FILE = 'schema/retired-operations.json';

/** The documents of schema/retired-operations.json (its JSON text). */
export function retiredOperations(retiredJson: string): string[] {
  return (JSON.parse(retiredJson) as { documents: string[] }).documents;
}

/** Every operation of the README's ```graphql blocks, printed. */
export function readmeOperations(readme: string): string[] {
  return [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].flatMap((block) =>
    parse(block[1] ?? '').definitions.map((definition) => print(definition)),
  );
}

export function buildManifest(readme: string, retired: readonly string[]): Record<string, string> {
  const documents = [GRAPHIQL_DEFAULT_QUERY, ...readmeOperations(readme), ...retired];
  const entries = documents.map((document) => [sha256(document), document] as const);
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}
