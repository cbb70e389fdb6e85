// gql.tada over the internal graph (docs/graphql.md, "Two graphs"): a REST route's document written with `graphql()`
// has its result and variables typed from the graph itself (src/rest/internal-graph-env.d.ts, which `npm run schema`
// regenerates), so `respond` and `variables` are checked against what the document selects and declares.
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './internal-graph-env.js';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  // A fragment's fields are part of the result it is spread in (the router reads the whole result).
  disableMasking: true;
  scalars: { DateTime: string; JSON: unknown; JSONObject: Record<string, unknown> };
}>();

export type { ResultOf, TadaDocumentNode, VariablesOf } from 'gql.tada';
