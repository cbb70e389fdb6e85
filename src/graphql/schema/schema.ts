// Imports every type module and builds the two graphs. Type modules never import this file.
import { printSubgraphSchema } from '@apollo/subgraph';
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { GraphQLSchema, lexicographicSortSchema, printSchema, specifiedDirectives } from 'graphql';
import { builder } from './builder.js';
import './types/account.js';
import './types/access-token.js';
import './types/voice.js';
import './types/order-direction.js';
import './types/campaign.js';
import './types/campaign-mutations.js';
import './types/integrations.js';
import './types/integrations-deprecated.js';
import './types/pipeline.js';
import './types/call-log.js';
import './types/call-mutations.js';
import './types/call-stats.js';
import './types/meeting.js';
import './types/social.js';
import './types/webhook.js';
import './types/webhook-mutations.js';
import './types/webhook-deprecated.js';
import './types/campaign-events.js';
import { checkRepresentations, declareEntities, ENTITIES_COST, notFoundWhereAsked, sortedSdl } from './federation.js';

declareEntities();

/**
 * The public API: what `/graphql` serves, introspects and shows in GraphiQL, with `@live` on queries
 * (src/graphql/live/live-queries.ts).
 */
export const schema = builder.toSchema({
  subGraph: 'public',
  directives: [...specifiedDirectives, GraphQLLiveDirective],
});

/**
 * The public API plus what only the legacy REST door uses (`INTERNAL_ONLY` fields): the REST router validates and
 * executes its prepared documents against this graph, on the same resolvers (docs/graphql.md#two-graphs).
 */
export const internalSchema = builder.toSchema({ subGraph: 'internal' });

let builtSubgraph: GraphQLSchema | undefined;
/**
 * The public graph as an Apollo Federation 2 subgraph (src/graphql/schema/federation.ts): its entities, `_service` and
 * `_entities`, served at /subgraph for a federation gateway; `/graphql` stays as it is. Built on first use (issue 55):
 * an instance no gateway calls does not hold a third schema.
 */
export const subgraphSchema = (): GraphQLSchema => (builtSubgraph ??= buildSubgraphSchema());

/** Whether the subgraph schema has been built in this process (test/graphql/subgraph.test.ts). */
export const subgraphSchemaBuilt = (): boolean => builtSubgraph !== undefined;

function buildSubgraphSchema(): GraphQLSchema {
  // Every field keeps its resolver (nothing shaped: src/graphql/schema/plain-fields.ts): `_entities`, added by the
  // federation plugin after Pothos built the fields, answers the objects the loaders give, as they are.
  const built = builder.toSubGraphSchema({
    subGraph: 'public',
    plainFields: false,
    linkUrl: 'https://specs.apollo.dev/federation/v2.6',
  } as Parameters<typeof builder.toSubGraphSchema>[0]);
  const entities = built.getQueryType()?.getFields()._entities;
  const resolve = entities?.resolve;
  if (!entities || !resolve) throw new Error('the subgraph schema has no _entities field');
  entities.resolve = (source, args: { representations?: unknown }, context, info) => {
    checkRepresentations(args.representations, info);
    return notFoundWhereAsked(resolve(source, args, context, info), args.representations, info);
  };
  // Its cost, as every list's (./field-costs.ts): what one entity selects, times the representations. Set here: the
  // federation plugin adds the field after Pothos built the others, so no field option reaches it.
  (entities as { extensions: Record<string, unknown> }).extensions = {
    ...entities.extensions,
    complexity: ENTITIES_COST,
  };
  return built;
}

/** schema/subgraph.graphql: the subgraph's SDL, as a federation gateway reads it from `_service { sdl }`. */
export function printSubgraphSdl(): string {
  // Sorted, as schema/schema.graphql is: the order of fields otherwise follows the order modules were imported in.
  return sortedSdl(printSubgraphSchema(subgraphSchema()));
}

let referenceGraph: GraphQLSchema | undefined;
const references = new WeakMap<GraphQLSchema, GraphQLSchema>();
/**
 * `served` (the public graph as yoga serves it, its plugins' directives included) with every resolver in place and no
 * shaped objects (src/graphql/schema/plain-fields.ts): what shadow mode answers each lane answer again on
 * (src/http/lane-shadow.ts). Built on first use.
 */
export function referenceSchema(served: GraphQLSchema): GraphQLSchema {
  let reference = references.get(served);
  if (!reference) {
    referenceGraph ??= builder.toSchema({ subGraph: 'public', plainFields: false });
    reference = new GraphQLSchema({ ...referenceGraph.toConfig(), directives: served.getDirectives() });
    references.set(served, reference);
  }
  return reference;
}

/**
 * The public schema as `/graphql` serves it with the default settings: yoga's defer-stream plugin adds `@defer` and
 * `@stream` when it starts (src/graphql/server/yoga.ts), so they are added here the same way (by the plugin's own code), and
 * tools that read schema/schema.graphql accept the documents the server accepts.
 */
export function servedSchema(): GraphQLSchema {
  let served = schema;
  useDeferStream().onSchemaChange?.({
    schema,
    replaceSchema: (replaced: GraphQLSchema) => (served = replaced),
  } as never);
  return served;
}

/** schema/schema.graphql: the served schema, sorted (test/graphql/schema.test.ts checks it against introspection). */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(servedSchema()))}\n`;
}
