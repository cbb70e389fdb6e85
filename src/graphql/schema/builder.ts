// The Pothos builder alone: plugins, context, scalars, error conventions. Types live in ./types/.
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import SubGraphPlugin from '@pothos/plugin-sub-graph';
import ValidationPlugin from '@pothos/plugin-validation';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import { GraphQLError, GraphQLScalarType, type GraphQLSchema, isObjectType } from 'graphql';
import type { z } from 'zod';
import { ablated } from '../../core/ablation.js';
import { badInput, unauthenticated } from '../../core/errors.js';
import { issuesFromZod } from '../../validation/issues.js';
import { jsonShapeProblem } from '../../validation/json-limits.js';
import { AUTH_FAILURE_MESSAGES } from '../../authentication.js';
import { type Context } from './context.js';
import { FIELD_COSTS } from './field-costs.js';
import { PLAIN_FIELDS } from './plain-fields.js';
import { SYNC_GLOBAL_IDS } from './sync-global-ids.js';

export const MAX_NODE_IDS = 100;

/**
 * The public graph is what `/graphql` serves (introspection, GraphiQL); the internal graph adds what exists only for
 * the legacy REST door (offset lists, provider callbacks), which the REST router executes on the same resolvers.
 */
export type SubGraph = 'public' | 'internal';
/** For a field only the REST door uses: left out of the public graph. */
export const INTERNAL_ONLY: SubGraph[] = ['internal'];

/**
 * A well-formed global id whose type is not a Node type of this schema (`Nope:1`, `Query:1`) is the client's mistake:
 * BAD_USER_INPUT, as a malformed id, rather than the "has not been implemented" error Pothos would raise.
 */
function refuseForeignTypes(
  ids: readonly { typename: string }[],
  schema: GraphQLSchema,
  pathOf: (index: number) => (string | number)[],
): void {
  const issues = ids.flatMap(({ typename }, index) => {
    const type = schema.getType(typename);
    if (isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node')) return [];
    return [{ path: pathOf(index), type: 'value_error', message: 'the id does not name a node of this API' }];
  });
  if (issues.length > 0) throw badInput(issues);
}

export const builder = new SchemaBuilder<{
  Context: Context;
  AuthScopes: { authenticated: boolean };
  SubGraphs: SubGraph;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  // PLAIN_FIELDS first, so that it is the outermost wrapper: it shapes what a field returns after every other plugin
  // (src/graphql/schema/plain-fields.ts); SYNC_GLOBAL_IDS last, so that it is the innermost wrapper of a node's `id`
  // (src/graphql/schema/sync-global-ids.ts).
  plugins: [
    PLAIN_FIELDS,
    SubGraphPlugin,
    ScopeAuthPlugin,
    RelayPlugin,
    DataloaderPlugin,
    ValidationPlugin,
    // Build-time only (no resolver is wrapped): the subgraph schema's entities and directives (./federation.ts).
    DirectivePlugin,
    FederationPlugin,
    // Each field's cost (./field-costs.ts), read by src/graphql/server/document-cost.ts before a document runs.
    // Declarations only: the plugin's own check, in the root fields' resolvers, is off (it would run after the
    // document started, and not at all for introspection or a subscription's setup). FIELD_COSTS after it, so that
    // its defaults are in place before the complexity plugin reads them.
    ComplexityPlugin,
    FIELD_COSTS,
    SYNC_GLOBAL_IDS,
  ],
  complexity: { disabled: true, defaultComplexity: 1 },
  defaultFieldNullability: false,
  // Everything is in both graphs unless a field says `subGraphs: INTERNAL_ONLY` (docs/graphql.md#two-graphs).
  subGraphs: { defaultForTypes: ['public', 'internal'], fieldsInheritFromTypes: true },
  scopeAuth: {
    authScopes: (context) => ({ authenticated: context.viewer !== null }),
    unauthorizedError: (_parent, context) => unauthenticated(AUTH_FAILURE_MESSAGES[context.authFailure ?? 'missing']),
  },
  relay: {
    // bench/ablation-server.ts only: global ids left as typename:key, to measure what encoding them costs.
    ...(ablated.has('cursors')
      ? { encodeGlobalID: (typename: string, id: string | number | bigint) => `${typename}:${id}` }
      : {}),
    clientMutationId: 'omit',
    cursorType: 'String',
    edgesFieldOptions: {
      nullable: false,
      description: "The page's nodes, each with its cursor, in the connection's order.",
    },
    nodeFieldOptions: { nullable: false, description: 'The node at this place of the page.' },
    // Not a plain field (src/graphql/schema/plain-fields.ts): a cursor is encoded only for a document that selects it.
    cursorFieldOptions: { description: "This node's cursor (opaque): pass it as `after` or `before`.", plain: false },
    pageInfoFieldOptions: { description: 'Where this page stands: its first and last cursors, and what lies beyond.' },
    // Descriptions of the connection arguments and PageInfo fields, the same on every connection (pagination.ts).
    firstArgOptions: {
      description:
        'Page forward: at most this many nodes (0–100) after `after`. 20 when neither `first` nor `last` is given.',
    },
    afterArgOptions: {
      description: 'A cursor of this connection (any other is BAD_USER_INPUT): the page starts after it.',
    },
    lastArgOptions: {
      description: 'Page backward: at most this many nodes (0–100) before `before`, or the last ones.',
    },
    beforeArgOptions: {
      description: 'A cursor of this connection (any other is BAD_USER_INPUT): the page ends before it.',
    },
    hasNextPageFieldOptions: {
      description:
        'Whether nodes follow this page. Exact when paging forward; when paging backward, true if `before` was given.',
    },
    hasPreviousPageFieldOptions: {
      description:
        'Whether nodes precede this page. Exact when paging backward; when paging forward, true if `after` was given.',
    },
    startCursorFieldOptions: {
      description:
        "The first edge's cursor (pass it as `before`); on an empty page, the `after` or `before` given, or null.",
    },
    endCursorFieldOptions: {
      description:
        "The last edge's cursor (pass it as `after`); on an empty page, the `after` or `before` given, or null.",
    },
    idFieldOptions: {
      description: 'The global id: opaque, unique across accounts; `node(id:)` refetches the object (docs/graphql.md).',
    },
    nodeTypeOptions: {
      description: 'An object with a global id, unique across accounts: refetch it with `node(id:)` (docs/graphql.md).',
    },
    pageInfoTypeOptions: {
      description: 'Where a page of a connection stands; pass its cursors as `after`/`before`.',
      // Relay's PageInfo: other subgraphs of a supergraph define it too (@shareable: src/graphql/schema/federation.ts).
      shareable: true,
    },
    // At most MAX_NODE_IDS ids per `nodes` call (docs/limits.md): each id is a lookup.
    nodeQueryOptions: {
      description: 'The object with this global id if it is yours (or a voice of the catalogue); null otherwise.',
      args: { id: { description: 'A global id, as an `id` field gave it.' } },
      resolve: (_root, args, _context, info, resolveNode) => {
        refuseForeignTypes([args.id], info.schema, () => ['id']);
        return resolveNode(args.id);
      },
    },
    nodesQueryOptions: {
      description: 'The objects with these global ids (at most 100), in order; null for each that is not yours.',
      args: { ids: { description: 'At most 100 global ids, as `id` fields gave them; the answer keeps their order.' } },
      resolve: (_root, args, _context, info, resolveNodes) => {
        if (args.ids.length > MAX_NODE_IDS) {
          throw badInput([
            {
              path: ['ids'],
              type: 'too_long',
              message: `at most ${MAX_NODE_IDS} ids may be asked for at once (got ${args.ids.length})`,
            },
          ]);
        }
        refuseForeignTypes(args.ids, info.schema, (index) => ['ids', index]);
        return resolveNodes(args.ids);
      },
    },
  },
  validation: {
    validationError: (failure, args) => badInput(issuesFromZod(failure.issues as z.core.$ZodIssue[], args)),
  },
});

/** How every timestamp is stored: `Date#toISOString()`. */
const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// Inputs are checked and parsed by graphql-scalars; outputs are our own ISO 8601 UTC strings (or Dates), written as
// they are instead of being re-validated and re-formatted one by one.
builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    ...DateTimeResolver.toConfig(),
    serialize: (value) => {
      if (value instanceof Date) return value.toISOString();
      return typeof value === 'string' && STORED_TIMESTAMP.test(value) ? value : DateTimeResolver.serialize(value);
    },
  }),
);
/** graphql-scalars' JSON scalars, refusing values nested deeper than MAX_JSON_DEPTH (docs/limits.md). */
function depthLimited(scalar: GraphQLScalarType): GraphQLScalarType {
  const config = scalar.toConfig();
  const checked = <T>(value: T): T => {
    const problem = jsonShapeProblem(value);
    if (problem) throw new GraphQLError(`${scalar.name} value refused: ${problem}`);
    return value;
  };
  return new GraphQLScalarType({
    ...config,
    parseValue: (value) => checked(config.parseValue ? config.parseValue(value) : value),
    parseLiteral: (ast, variables) => checked(config.parseLiteral ? config.parseLiteral(ast, variables) : undefined),
  });
}

builder.addScalarType('JSON', depthLimited(JSONResolver));
builder.addScalarType('JSONObject', depthLimited(JSONObjectResolver));

/** Every field of Query and Mutation needs a signed-in viewer unless it opts out with `skipTypeScopes`. */
builder.queryType({
  description:
    'What you can read. Every field but the public ones needs `Authorization: Bearer <token>` (from `login`).',
  authScopes: { authenticated: true },
});
builder.mutationType({
  description: 'What you can change. Every field but `signUp` and `login` needs a bearer token.',
  authScopes: { authenticated: true },
});

/** The signed-in account; only called from fields behind the `authenticated` scope. */
export function viewerOf(context: Context) {
  if (!context.viewer) throw unauthenticated(AUTH_FAILURE_MESSAGES[context.authFailure ?? 'missing']);
  return context.viewer;
}
