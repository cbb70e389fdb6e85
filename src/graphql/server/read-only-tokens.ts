// A read-only access token (docs/security.md) runs queries and subscriptions only: a mutation is refused with
// FORBIDDEN before anything executes, on every door (GraphQL, WebSocket, REST and MCP all execute through yoga's
// enveloped pipeline).
import { GraphQLError, getOperationAST, OperationTypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../schema/context.js';

export const READ_ONLY_MESSAGE =
  'This access token is read-only: it cannot run mutations. For write access use a token made without readOnly ' +
  '(accessTokenCreate), or, for an agent connected by OAuth, authorize again with scope "mcp:read mcp:write"';

export const readOnlyTokens: Plugin<Context> = {
  onExecute({ args, setResultAndStopExecution }) {
    const context = args.contextValue as Partial<Context>;
    if (!context.readOnly) return;
    if (getOperationAST(args.document, args.operationName)?.operation !== OperationTypeNode.MUTATION) return;
    setResultAndStopExecution({
      errors: [new GraphQLError(READ_ONLY_MESSAGE, { extensions: { code: 'FORBIDDEN' } })],
    });
  },
};
