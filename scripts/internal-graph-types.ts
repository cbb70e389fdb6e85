// The types gql.tada reads the internal graph from (src/rest/internal-graph-env.d.ts), so that each REST route's
// result and variables are typed from its document (src/rest/typed-documents.ts). `npm run schema` rewrites the
// file; test/rest/typed-routes.test.ts fails when it is stale. The same output as `gql.tada generate output`, for the
// graph only the REST door runs on (which no SDL file or endpoint serves).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { minifyIntrospection, outputIntrospectionFile } from '@gql.tada/internal';
import { introspectionFromSchema } from 'graphql';
import { internalSchema } from '../src/graphql/schema/schema.js';

export const INTERNAL_GRAPH_TYPES_FILE = join(import.meta.dirname, '../src/rest/internal-graph-env.d.ts');

/**
 * What gql.tada makes of the internal graph, as a .d.ts file, without the `setupSchema` declaration it ends with:
 * the public graph's types (test/client/graphql-env.d.ts) make that one, and this graph is named where it is used.
 */
export function internalGraphTypes(): string {
  const output = outputIntrospectionFile(minifyIntrospection(introspectionFromSchema(internalSchema)), {
    fileType: '.d.ts',
    shouldPreprocess: true,
  });
  const augmentation = output.indexOf("\nimport * as gqlTada from 'gql.tada';");
  if (augmentation < 0) throw new Error('gql.tada output: no setupSchema declaration where one was expected');
  return `${output.slice(0, augmentation)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(INTERNAL_GRAPH_TYPES_FILE, internalGraphTypes());
  console.log(`wrote ${INTERNAL_GRAPH_TYPES_FILE}`);
}
