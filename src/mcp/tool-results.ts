// What a tool call answers (docs/mcp.md): a GraphQL result as structured content, or its errors as a tool error; and
// who is calling. Shared by the door's named tools (src/mcp/door.ts) and its `graphql` tool (src/mcp/graphql-tool.ts).
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type ExecutionResult, GraphQLError } from 'graphql';
import { noteErrorCode } from '../core/request-context.js';
import type { Authentication } from '../authentication.js';

/**
 * The most a tool answers (docs/mcp.md "Answer sizes"): `data` of at most 2 MiB as JSON, which the answer carries twice
 * (structured content and its text copy). A campaign_get of a campaign whose every text is at its longest fits; a page
 * of call logs with every text (`withTexts`) may not: it is refused, saying to ask for fewer.
 */
export const MAX_TOOL_DATA_BYTES = 2 * 1024 * 1024;

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
  const text = JSON.stringify(result.data ?? {});
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_TOOL_DATA_BYTES) {
    const megabytes = (bytes / 1024 / 1024).toFixed(1);
    return toolResult({
      errors: [
        new GraphQLError(
          `The answer would be ${megabytes} MiB, over the 2 MiB a tool answers: ask for fewer items (first) or ` +
            'leave out the long texts (withTexts)',
          { extensions: { code: 'BAD_USER_INPUT' } },
        ),
      ],
    });
  }
  return { structuredContent: JSON.parse(text) as Record<string, unknown>, content: [{ type: 'text', text }] };
}

const codeOf = (error: GraphQLError) =>
  typeof error.extensions?.code === 'string' ? error.extensions.code : 'INTERNAL_SERVER_ERROR';

export interface Caller {
  /** The HTTP request the call came in (for yoga's context: headers, the request id). */
  request: Request;
  clientAddress: string;
  auth: Authentication;
}
