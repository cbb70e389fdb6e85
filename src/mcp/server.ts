// One MCP server instance per request (docs/mcp.md): the SDK's `createMcpHandler` builds one for every POST, of the
// 2026-07-28 revision (stateless, `_meta` on each request) or of the 2025 family (the stateless fallback answering the
// `initialize` handshake and the calls after it), from this one factory, so the two revisions serve the same tools.
import {
  type CacheHint,
  type McpServerFactory,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import { type DocumentNode, type ExecutionResult, GraphQLError, OperationTypeNode } from 'graphql';
import { printSortedSchema, schema } from '../graphql/schema/schema.js';
import type { Yoga } from '../graphql/server/yoga.js';
import type { Services } from '../services.js';
import { jsonShapeProblem, MAX_LIST_LENGTH } from '../validation/json-limits.js';
import { GRAPHQL_TOOL, graphqlToolResult } from './graphql-tool.js';
import { withEveryMistake } from './argument-check.js';
import { serverRuleIssues } from './server-rules.js';
import { askFirst, type ConfirmationContext, confirmationOf } from './confirmations.js';
import { wireAllowance } from './answer-budget.js';
import { singleValuesForLists } from './list-arguments.js';
import { MCP_OPERATIONS } from './operations.js';
import { badArguments, type Caller, toolResult } from './tool-results.js';
import { buildTools, type McpTool, withToolDefaults } from './tools.js';
import { type RunOperation, TEXT_READ_TOOL, textReadResult } from './text-tool.js';
import { ACCOUNT_GET_TOOL, accountGetResult } from './identity-tool.js';
import { toolChoiceOf } from './toolsets.js';
import { completedArgument, type Completed, completionValues, PROMPT_DEFINITIONS, promptMessage } from './prompts.js';
import { readResource, RESOURCE_TEMPLATES, resourceOf, SCHEMA_RESOURCE, unknownResource } from './resources.js';

export { SCHEMA_RESOURCE } from './resources.js';
const SERVER_INFO = { name: 'campaign-gateway', version: '0.1.0' };
const INSTRUCTIONS =
  'Run AI calling campaigns: campaigns, voices, text pipelines, integrations, call logs, meetings and webhooks of ' +
  'the account your token belongs to. Lists are pages of `items`: while `hasMore`, pass `nextCursor` as `after` for the next one. The ' +
  'resource ' +
  SCHEMA_RESOURCE +
  ' holds the GraphQL schema the tools run on; resource templates read a campaign, a call and its transcript.';

/**
 * How long a 2026-07-28 client may keep `tools/list`, `resources/list`, the templates and the schema resource
 * (`ttlMs`): they change only when the gateway is upgraded. Private: a read-only token is offered fewer tools than a
 * full one. A campaign, a call or a transcript read is the account's data of the moment: not to be kept (`ttlMs` 0).
 */
export const LIST_CACHE_HINT: CacheHint = { ttlMs: 300_000, cacheScope: 'private' };

/** The caller of a request, handed to the factory through the SDK's pass-through `authInfo.extra`. */
const CALLER = 'campaignGatewayCaller';

export const authInfoFor = (caller: Caller) => ({
  token: '',
  clientId: caller.auth.viewer?.id ?? '',
  scopes: caller.auth.readOnly ? ['read'] : ['read', 'write'],
  extra: { [CALLER]: caller },
});

const callerOf = (extra: Record<string, unknown> | undefined): Caller => {
  const caller = extra?.[CALLER] as Caller | undefined;
  if (!caller) throw new Error('mcp: a request reached the server factory without its caller');
  return caller;
};

/** The list methods answer one page: a cursor was never handed out, so any cursor is an invalid parameter. */
const refuseCursor = (params: { cursor?: string | undefined } | undefined) => {
  if (params?.cursor !== undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: this list has a single page');
  }
};

/** A read of the account's data: a 2026-07-28 client does not keep it. */
const NOT_KEPT: CacheHint = { ttlMs: 0, cacheScope: 'private' };

/** The argument of a resource template a completion asks about: a campId or a callId. */
function completedTemplateArgument(uri: string, argument: string): Completed | null {
  const template = RESOURCE_TEMPLATES.find((candidate) => candidate.uriTemplate === uri);
  if (!template?.uriTemplate.includes(`{${argument}}`)) return null;
  return argument === 'campId' || argument === 'callId' ? argument : null;
}

type ListedTool = Pick<McpTool, 'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations'>;
const listedOf = (tool: ListedTool): ListedTool => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.inputSchema,
  outputSchema: tool.outputSchema,
  annotations: tool.annotations,
});

/** The tools of the declared operations, built once (parsing, validating and describing them is start-up work). */
const TOOLS = buildTools(schema, MCP_OPERATIONS);

/** The tools that change something (mutations): a read-only token calling one gets the step-up challenge. */
export const WRITE_TOOL_NAMES: ReadonlySet<string> = new Set(
  [...TOOLS.values()].filter((tool) => tool.kind !== OperationTypeNode.QUERY).map((tool) => tool.name),
);

export function mcpServerFactory(yoga: Yoga, services: Services): McpServerFactory {
  const tools = TOOLS;
  const withGraphqlTool = services.config.MCP_GRAPHQL_TOOL;
  // Listed as schema/mcp-tools.json has them (src/mcp/tool-list.ts), then the optional graphql tool. A read-only token
  // is offered the queries only: every mutation would be refused with FORBIDDEN (docs/mcp.md "Read-only tokens").
  // text_read (src/mcp/text-tool.ts) is listed among them, by name.
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  const sorted = [...tools.values()].sort(byName);
  const everyTool = [
    ...[...sorted.map(listedOf), TEXT_READ_TOOL, ACCOUNT_GET_TOOL].sort(byName),
    ...(withGraphqlTool ? [GRAPHQL_TOOL] : []),
  ];
  const readTools = [
    ...sorted.filter((tool) => tool.kind === OperationTypeNode.QUERY).map(listedOf),
    TEXT_READ_TOOL,
    ACCOUNT_GET_TOOL,
  ].sort(byName);
  const sdl = printSortedSchema();
  const wholeBudget = services.config.MCP_ANSWER_MAX_KB * 1024;

  const runDocument = async (
    document: DocumentNode,
    operationName: string | undefined,
    args: Record<string, unknown>,
    caller: Caller,
  ) => {
    const { contextFactory, execute } = yoga.getEnveloped({
      request: caller.request,
      // A tool answers once, though its HTTP request accepts text/event-stream (src/graphql/schema/context.ts).
      transport: 'once',
      clientAddress: caller.clientAddress,
      ...caller.auth,
    });
    const contextValue = await contextFactory();
    return (await execute({
      schema,
      document,
      operationName,
      contextValue,
      variableValues: args,
    })) as ExecutionResult;
  };
  const run = (tool: McpTool, args: Record<string, unknown>, caller: Caller) =>
    runDocument(tool.document, tool.operationName, args, caller);

  return ({ authInfo, era }) => {
    const connected = callerOf(authInfo?.extra);
    // The areas the client chose when it connected, and whether it asked for the read tools only (toolsets.ts): a
    // read-only choice makes the caller read-only on every path (the optional graphql tool's mutations included).
    const choice = toolChoiceOf(connected.request);
    const readOnlyChosen = !('problem' in choice) && choice.readOnly;
    const caller = readOnlyChosen ? { ...connected, auth: { ...connected.auth, readOnly: true } } : connected;
    /** A document of the door's own (text_read, account_get, completions, resources), run as the caller. */
    const runAsCaller: RunOperation = (document, variables) => runDocument(document, undefined, variables, caller);
    const server = new Server(SERVER_INFO, {
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
      },
      instructions: INSTRUCTIONS,
      cacheHints: {
        'tools/list': LIST_CACHE_HINT,
        'resources/list': LIST_CACHE_HINT,
        'resources/templates/list': LIST_CACHE_HINT,
        // The account's data of the moment; the schema's answer says it may be kept (LIST_CACHE_HINT).
        'resources/read': NOT_KEPT,
      },
    });
    const chosen = () => {
      if ('problem' in choice)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid toolsets: ${choice.problem}`);
      return choice;
    };
    server.setRequestHandler('tools/list', ({ params }) => {
      refuseCursor(params);
      const { lists } = chosen();
      const offered = caller.auth.readOnly ? readTools : everyTool;
      return { tools: offered.filter((tool) => tool.name === GRAPHQL_TOOL.name || lists(tool.name)) } as never;
    });
    server.setRequestHandler('tools/call', async ({ params }, ctx) => {
      const args = params.arguments ?? {};
      if (chosen().readOnly && WRITE_TOOL_NAMES.has(params.name)) {
        const message =
          `${params.name} changes something, and this connection asked for the read tools only (readonly=true): ` +
          'connect again without it to use it';
        return toolResult({ errors: [new GraphQLError(message, { extensions: { code: 'FORBIDDEN' } })] });
      }
      // The answer's budget on the wire, less what this request's envelope takes there (its id, the revision's keys).
      const budget = wholeBudget - wireAllowance(ctx.mcpReq.id, SERVER_INFO);
      const problem = jsonShapeProblem(args, { maxListLength: MAX_LIST_LENGTH });
      if (problem) return badArguments(`The arguments are refused: ${problem}.`);
      if (withGraphqlTool && params.name === GRAPHQL_TOOL.name) {
        return graphqlToolResult(yoga, args, caller, budget);
      }
      if (params.name === ACCOUNT_GET_TOOL.name) {
        const unknown = Object.keys(args).slice(0, 20);
        if (unknown.length > 0) {
          return badArguments(
            `account_get takes no arguments: ${unknown.join(', ').slice(0, 200)}`,
            unknown.map((name) => ({
              path: [name],
              type: 'extra_forbidden',
              message: 'Extra inputs are not permitted',
            })),
          );
        }
        return accountGetResult(caller, runAsCaller, budget);
      }
      if (params.name === TEXT_READ_TOOL.name) {
        return textReadResult(args, runAsCaller, budget);
      }
      const tool = tools.get(params.name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name.slice(0, 100)}`);
      // GraphQL would ignore a variable the operation does not declare: the input schema says none may be sent.
      const declared = tool.inputSchema.properties as Record<string, unknown>;
      const unknown = Object.keys(args).filter((name) => !Object.hasOwn(declared, name));
      if (unknown.length > 0) {
        return badArguments(
          `Unknown arguments: ${unknown.join(', ')}`,
          unknown.map((name) => ({ path: [name], type: 'extra_forbidden', message: 'Extra inputs are not permitted' })),
        );
      }
      // A campaign's status changes through its own tools, never campaign_update: say which.
      const input = (args as { input?: unknown }).input;
      if (tool.name === 'campaign_update' && input && typeof input === 'object' && 'status' in input) {
        return badArguments(
          'campaign_update does not change the status: use campaign_pause, campaign_resume or campaign_complete',
          [
            {
              path: ['input', 'status'],
              type: 'extra_forbidden',
              message: 'The status changes through campaign_pause, campaign_resume and campaign_complete',
            },
          ],
        );
      }
      const singles = singleValuesForLists(tool.inputSchema, args);
      if (singles.length > 0) return badArguments('A list is expected where a single value was given', singles);

      const filled = withToolDefaults(tool, args);
      // A call that places real calls or deletes for good: the user confirms first, where the client can ask them.
      const question = confirmationOf(tool.name, filled);
      if (question) {
        const asked = askFirst(question, ctx.mcpReq as ConfirmationContext);
        if (asked) return asked;
      }
      const result = await run(tool, filled, caller);
      return server.projectCallToolResult(
        toolResult(
          withEveryMistake(result, tool.inputSchema, args, (named) =>
            serverRuleIssues(schema, tool.document, filled, named),
          ),
          budget,
          { flat: true },
        ),
        tool.outputSchema,
      );
    });
    // Prompts for the work agents do here, and completions of their arguments (src/mcp/prompts.ts).
    server.setRequestHandler('prompts/list', ({ params }) => {
      refuseCursor(params);
      return { prompts: [...PROMPT_DEFINITIONS] };
    });
    server.setRequestHandler('prompts/get', ({ params }) => {
      const made = promptMessage(params.name, params.arguments);
      if ('problem' in made) throw new ProtocolError(ProtocolErrorCode.InvalidParams, made.problem);
      return {
        description: made.description,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: made.text } }],
      };
    });
    server.setRequestHandler('completion/complete', async ({ params }) => {
      const which: Completed | null =
        params.ref.type === 'ref/prompt'
          ? completedArgument(params.ref.name, params.argument.name)
          : completedTemplateArgument(params.ref.uri, params.argument.name);
      if (!which) return { completion: { values: [], hasMore: false } };
      const { values, hasMore } = await completionValues(which, String(params.argument.value ?? ''), runAsCaller);
      return { completion: { values, hasMore } };
    });
    server.setRequestHandler('resources/list', ({ params }) => {
      refuseCursor(params);
      return {
        resources: [
          {
            uri: SCHEMA_RESOURCE,
            name: 'GraphQL schema',
            description:
              'The public GraphQL schema (SDL) the tools run on; its descriptions say what each field means.',
            mimeType: 'application/graphql',
          },
        ],
      };
    });
    // The caller's own campaigns and calls, by id (src/mcp/resources.ts).
    server.setRequestHandler('resources/templates/list', ({ params }) => {
      refuseCursor(params);
      return { resourceTemplates: RESOURCE_TEMPLATES.map((template) => ({ ...template })) };
    });
    server.setRequestHandler('resources/read', async ({ params }, ctx) => {
      const ref = resourceOf(params.uri);
      if (!ref) throw unknownResource(params.uri);
      if (ref.kind === 'schema') {
        const contents = [{ uri: SCHEMA_RESOURCE, mimeType: 'application/graphql', text: sdl }];
        // The hint rides the answer on 2026-07-28 only (the revisions before it have no such keys).
        return { contents, ...(era === 'legacy' ? {} : LIST_CACHE_HINT) };
      }
      const budget = wholeBudget - wireAllowance(ctx.mcpReq.id, SERVER_INFO);
      const content = await readResource(params.uri, ref, runAsCaller, budget);
      return { contents: [content] };
    });
    return server;
  };
}
