// The Pothos builder alone: plugins, context, scalars, error conventions. Types live in ./types/.
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
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

builder.addScalarType('DateTime', DateTimeResolver);
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
