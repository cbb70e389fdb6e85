// Runs a document on the internal graph, as the REST router does: yoga's enveloped pipeline (context, plugins,
// masking) with the internal schema. For tests of the REST door's own fields (campaignList, callLogList, provider
// callbacks), which `/graphql` does not serve (docs/graphql.md#two-graphs).
import { type ExecutionResult, parse, validate } from 'graphql';
import { internalSchema } from '../../src/graphql/schema/schema.js';
import type { TestApp } from './app.js';

/** As `TestApp.gql`'s body: errors are loosely typed, tests read their extensions freely. */
export interface InternalReply<T> {
  data?: T;
  errors?: any[];
}

export async function internalGql<T = any>(
  t: TestApp,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<InternalReply<T>> {
  const document = parse(query);
  const invalid = validate(internalSchema, document);
  if (invalid.length > 0) return JSON.parse(JSON.stringify({ errors: invalid })) as InternalReply<T>;
  const request = new Request('http://internal.test/', {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const { contextFactory, execute } = t.app.yoga.getEnveloped({ request });
  const contextValue = await contextFactory();
  const result = (await execute({
    schema: internalSchema,
    document,
    contextValue,
    variableValues: variables,
  })) as ExecutionResult;
  // As a client would see it: errors and values in their JSON form.
  return JSON.parse(JSON.stringify(result)) as InternalReply<T>;
}
