// What a tool call answers (docs/mcp.md): a GraphQL result as structured content, or its errors as a tool error; and
// who is calling. Shared by the door's named tools (src/mcp/door.ts) and its `graphql` tool (src/mcp/graphql-tool.ts).
import { flatAnswer } from './flat-answers.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { InputIssue } from '../core/errors.js';
import { noteErrorCode } from '../core/request-context.js';
import { CALENDAR_NOT_CONNECTED } from '../core/preconditions.js';
import { fitAnswer } from './answer-budget.js';
import { patternsInWords } from './pattern-words.js';
import type { Authentication } from '../authentication.js';

/** Refusals whose precondition a tool fixes: the message names the tool. */
const PRECONDITION_HINTS = new Map([
  [CALENDAR_NOT_CONNECTED, `${CALENDAR_NOT_CONNECTED}: connect it with calendar_connect first`],
]);

/**
 * Where the server's words name each door's way to a list — "(MCP voice_list, GraphQL voices, REST
 * get_supported_voices)" — an agent is told its tool only (issue 53, item 3: errors speak of tools).
 */
const EVERY_DOOR = / \(MCP ([a-z_]+), GraphQL [^,)]*, REST [^)]*\)/g;

/** A message of the server in an agent's words: its patterns said in words, other doors' names left out. */
const inToolWords = (message: string): string => patternsInWords(message).replace(EVERY_DOOR, ' ($1 lists them)');

/** The default budget of an answer on the wire (MCP_ANSWER_MAX_KB; docs/mcp.md "Answer sizes"). */
export const DEFAULT_ANSWER_BYTES = 64 * 1024;

/**
 * A tool's answer to a GraphQL result: `data` as structured content (and as text), fitted to `budgetBytes` on the wire
 * (src/mcp/answer-budget.ts), or every error as a tool error.
 */
export function toolResult(
  result: ExecutionResult,
  budgetBytes = DEFAULT_ANSWER_BYTES,
  {
    omitNulls = true,
    flat = false,
  }: {
    omitNulls?: boolean;
    /** Lists as `items`, `hasMore`, `nextCursor` (src/mcp/flat-answers.ts): the named tools' answers. */
    flat?: boolean;
  } = {},
): CallToolResult {
  const errors = result.errors ?? [];
  for (const error of errors) noteErrorCode(codeOf(error));
  if (errors.length > 0) {
    // In an agent's words (inToolWords): patterns said in words, tools named rather than every door.
    const described = errors.map((error) => ({
      message: PRECONDITION_HINTS.get(error.message) ?? inToolWords(error.message),
      code: codeOf(error),
      ...(error.path ? { path: error.path } : {}),
      ...(error.extensions?.issues ? { issues: issuesInWords(error.extensions.issues as InputIssue[]) } : {}),
    }));
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ errors: described }) }] };
  }
  const fitted = fitAnswer(result.data ?? {}, budgetBytes, { omitNulls });
  if ('refusal' in fitted) {
    return toolResult({ errors: [new GraphQLError(fitted.refusal, { extensions: { code: 'BAD_USER_INPUT' } })] });
  }
  if (flat) {
    // Never longer than the page it flattens: the budget holds.
    const data = flatAnswer(fitted.data as Parameters<typeof flatAnswer>[0]) as Record<string, unknown>;
    return { structuredContent: data, content: [{ type: 'text', text: JSON.stringify(data) }] };
  }
  return { structuredContent: fitted.data, content: [{ type: 'text', text: fitted.text }] };
}

/** Issues with their patterns in words: the message rewritten, and the expression (pydantic's `ctx.pattern`) left out. */
const issuesInWords = (issues: InputIssue[]): InputIssue[] =>
  issues.map(({ ctx, ...issue }) => {
    const { pattern: _pattern, ...rest } = ctx ?? {};
    const kept = Object.keys(rest).length > 0 ? { ctx: rest } : {};
    return { ...issue, ...kept, message: inToolWords(issue.message) };
  });

/** A tool error for arguments refused before anything runs, each mistake an issue at its path. */
export const badArguments = (message: string, issues?: InputIssue[]): CallToolResult =>
  toolResult({
    errors: [new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...(issues ? { issues } : {}) } })],
  });

export const codeOf = (error: GraphQLError): string =>
  typeof error.extensions?.code === 'string' ? error.extensions.code : 'INTERNAL_SERVER_ERROR';

export interface Caller {
  /** The HTTP request the call came in (for yoga's context: headers, the request id). */
  request: Request;
  clientAddress: string;
  auth: Authentication;
}
