// gql.tada over the public schema: `graphql()` documents whose results and variables are typed from
// test/client/graphql-env.d.ts, which `npm run schema` regenerates (a test fails when it is stale).
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.js';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; JSON: unknown; JSONObject: Record<string, unknown> };
}>();

export type { ResultOf, VariablesOf } from 'gql.tada';
