// The MCP door's `graphql` tool (docs/mcp.md), offered only with MCP_GRAPHQL_TOOL=true: any query or mutation on the
// public graph, parsed and validated by yoga's enveloped pipeline, so the token, depth, alias and cost limits of
// /graphql (docs/decisions.md §11) apply as they do there. Subscriptions are not offered (a tool call answers once).
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type DocumentNode, type ExecutionResult, GraphQLError, getOperationAST, OperationTypeNode } from 'graphql';
import { schema as publicSchema } from '../graphql/schema/schema.js';
import type { Yoga } from '../graphql/server/yoga.js';
import { usesIncrementalDelivery } from '../graphql/server/incremental-delivery.js';
import { type Caller, toolResult } from './tool-results.js';

/** Longer documents are refused before parsing (the token limit would refuse them anyway). */
const MAX_DOCUMENT_LENGTH = 100_000;

export const GRAPHQL_TOOL = {
  name: 'graphql',
  title: 'GraphQL',
  description:
    'Runs one GraphQL query or mutation on the public schema (read the schema resource first), under the limits of ' +
    '/graphql: depth, aliases, tokens and cost. Prefer the other tools; this one is for what they do not cover.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: MAX_DOCUMENT_LENGTH, description: 'The GraphQL document.' },
      variables: { anyOf: [{ type: 'object' }, { type: 'null' }], description: 'Its variables.' },
      operationName: {
        anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }],
        description: 'Which operation, if it holds several.',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    description: 'The operation’s `data`, as /graphql answers it.',
    additionalProperties: true,
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
};

const refused = (message: string, code = 'BAD_USER_INPUT'): CallToolResult =>
  toolResult({ errors: [new GraphQLError(message, { extensions: { code } })] });

export async function graphqlToolResult(
  yoga: Yoga,
  args: Record<string, unknown>,
  caller: Caller,
  budgetBytes?: number,
): Promise<CallToolResult> {
  const { query, variables, operationName } = args;
  if (typeof query !== 'string' || query.length === 0 || query.length > MAX_DOCUMENT_LENGTH) {
    return refused(`query: a GraphQL document of 1 to ${MAX_DOCUMENT_LENGTH} characters is required`);
  }
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return refused('variables: an object is expected');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return refused('operationName: a string is expected');
  }
  const name = typeof operationName === 'string' ? operationName : undefined;
  // `params`, as yoga's own parse hooks read them (which operation of several runs).
  const { parse, validate, contextFactory, execute, schema } = yoga.getEnveloped({
    request: caller.request,
    // A tool answers once, though its HTTP request accepts text/event-stream: a @live query is refused by the live
    // queries themselves (src/graphql/live/live-queries.ts), as at /graphql without a stream.
    transport: 'once',
    params: { query, operationName: name, variables },
    clientAddress: caller.clientAddress,
    ...caller.auth,
  });
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    if (error instanceof GraphQLError) return toolResult({ errors: [error] });
    throw error;
  }
  // graphql-armor's limits throw their refusal (propagateOnRejection), graphql-js returns its own.
  let errors: readonly GraphQLError[];
  try {
    errors = validate(schema ?? publicSchema, document);
  } catch (error) {
    if (error instanceof GraphQLError) return toolResult({ errors: [error] });
    throw error;
  }
  if (errors.length > 0) return toolResult({ errors });
  const operation = getOperationAST(document, name);
  if (!operation) {
    return refused(
      name
        ? `operationName: the document has no operation named ${name}`
        : 'operationName: the document holds several operations; name one',
    );
  }
  if (operation.operation === OperationTypeNode.SUBSCRIPTION) {
    return refused('Subscriptions are not offered through MCP: use /graphql (SSE or WebSocket)', 'BAD_REQUEST');
  }
  // A tool answers once: the parts of @defer/@stream have nowhere to go.
  if (usesIncrementalDelivery(document)) {
    return refused('@defer and @stream are not offered through MCP: a tool answers once', 'BAD_REQUEST');
  }
  const contextValue = await contextFactory();
  return toolResult(
    (await execute({
      schema: schema ?? publicSchema,
      document,
      operationName: name,
      contextValue,
      variableValues: (variables ?? {}) as Record<string, unknown>,
    })) as ExecutionResult,
    budgetBytes,
    // As /graphql answers it: nulls included.
    { omitNulls: false },
  );
}
