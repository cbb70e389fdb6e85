// What a tool call answers (docs/mcp.md): a GraphQL result as structured content, or its errors as a tool error; and
// who is calling. Shared by the door's named tools (src/mcp/door.ts) and its `graphql` tool (src/mcp/graphql-tool.ts).
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { noteErrorCode } from '../core/request-context.js';
import type { Authentication } from '../authentication.js';

/** A tool's answer to a GraphQL result: `data` as structured content (and as text), or every error as a tool error. */
export function toolResult(result: ExecutionResult): CallToolResult {
  const errors = result.errors ?? [];
  for (const error of errors) noteErrorCode(codeOf(error));
  if (errors.length > 0) {
    const described = errors.map((error) => ({
      message: error.message,
      code: codeOf(error),
      ...(error.path ? { path: error.path } : {}),
      ...(error.extensions?.issues ? { issues: error.extensions.issues } : {}),
    }));
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ errors: described }) }] };
  }
  const data = JSON.parse(JSON.stringify(result.data ?? {})) as Record<string, unknown>;
  return { structuredContent: data, content: [{ type: 'text', text: JSON.stringify(data) }] };
}

const codeOf = (error: GraphQLError) =>
  typeof error.extensions?.code === 'string' ? error.extensions.code : 'INTERNAL_SERVER_ERROR';

export interface Caller {
  /** The HTTP request the call came in (for yoga's context: headers, the request id). */
  request: Request;
  clientAddress: string;
  auth: Authentication;
}
