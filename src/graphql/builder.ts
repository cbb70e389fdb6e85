// The Pothos builder alone: plugins, context, scalars, error conventions. Types live in ./types/.
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import { GraphQLScalarType } from 'graphql';
import type { z } from 'zod';
import { badInput, unauthenticated } from '../domain/errors.js';
import { issuesFromZod } from '../validation/issues.js';
import { AUTH_FAILURE_MESSAGES, type Context } from './context.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  AuthScopes: { authenticated: boolean };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  plugins: [ScopeAuthPlugin, RelayPlugin, DataloaderPlugin, ValidationPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (context) => ({ authenticated: context.viewer !== null }),
    unauthorizedError: (_parent, context) => unauthenticated(AUTH_FAILURE_MESSAGES[context.authFailure ?? 'missing']),
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
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
builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('JSONObject', JSONObjectResolver);

/** Every field of Query and Mutation needs a signed-in viewer unless it opts out with `skipTypeScopes`. */
builder.queryType({ authScopes: { authenticated: true } });
builder.mutationType({ authScopes: { authenticated: true } });

/** The signed-in account; only called from fields behind the `authenticated` scope. */
export function viewerOf(context: Context) {
  if (!context.viewer) throw unauthenticated(AUTH_FAILURE_MESSAGES[context.authFailure ?? 'missing']);
  return context.viewer;
}
