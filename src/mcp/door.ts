// The MCP door (docs/mcp.md): the Model Context Protocol over Streamable HTTP at /mcp, stateless (every POST is
// answered on its own, by any instance: no session, no sticky routing), with the same bearer tokens as the other
// doors. Its tools are the named operations of src/mcp/operations.ts, run through yoga's enveloped pipeline on the
// public graph, as the REST door runs its own: one set of validation, tenancy, limits, error masking and traces.
import { Response } from '../core/fetch-api.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { InputIssue } from '../core/errors.js';
import type { RequestAuth } from '../authentication.js';
import type { Services } from '../services.js';
import { AUTH_FAILURE_MESSAGES } from '../authentication.js';
import { noteErrorCode } from '../core/request-context.js';
import { printSortedSchema, schema } from '../graphql/schema.js';
import type { Yoga } from '../graphql/yoga.js';
import { jsonShapeProblem, jsonTextTooDeepAt, MAX_LIST_LENGTH } from '../validation/json-limits.js';
import { MCP_OPERATIONS } from './operations.js';
import { buildTools, type McpTool } from './tools.js';
import { GRAPHQL_TOOL, graphqlToolResult } from './graphql-tool.js';
import { type Caller, toolResult } from './tool-results.js';

export const MCP_PATH = '/mcp';
export const SCHEMA_RESOURCE = 'campaign-gateway://schema.graphql';
const SERVER_INFO = { name: 'campaign-gateway', version: '0.1.0' };
const INSTRUCTIONS =
  'Run AI calling campaigns: campaigns, voices, text pipelines, integrations, call logs, meetings and webhooks of ' +
  'the account your token belongs to. Lists are pages: pass pageInfo.endCursor as `after` for the next one. The ' +
  'resource ' +
  SCHEMA_RESOURCE +
  ' holds the GraphQL schema the tools run on.';

export type McpDoor = (request: Request, clientAddress: string, auth: RequestAuth) => Promise<Response>;

/** A JSON-RPC error answer outside of any request (bad credentials, an unreadable body, a method not served). */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A tool error for arguments refused before anything runs. */
const badArguments = (message: string, issues?: InputIssue[]): CallToolResult =>
  toolResult({
    errors: [new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...(issues ? { issues } : {}) } })],
  });

export function createMcpDoor(yoga: Yoga, services: Services): McpDoor {
  const tools = buildTools(schema, MCP_OPERATIONS);
  // Listed as schema/mcp-tools.json has them (src/mcp/tool-list.ts), then the optional graphql tool.
  const withGraphqlTool = services.config.MCP_GRAPHQL_TOOL;
  const sorted = [...tools.values()].sort((a, b) => a.name.localeCompare(b.name));
  const listed = [...sorted, ...(withGraphqlTool ? [GRAPHQL_TOOL] : [])].map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  }));
  const sdl = printSortedSchema();
  // One validator for every request's Server (each would otherwise build an Ajv instance of its own).
  const jsonSchemaValidator = new AjvJsonSchemaValidator();

  const run = async (tool: McpTool, args: Record<string, unknown>, request: Request, caller: Caller) => {
    const { contextFactory, execute } = yoga.getEnveloped({
      request,
      clientAddress: caller.clientAddress,
      ...caller.auth,
    });
    const contextValue = await contextFactory();
    return (await execute({
      schema,
      document: tool.document,
      operationName: tool.operationName,
      contextValue,
      variableValues: args,
    })) as ExecutionResult;
  };

  const serverFor = (request: Request, caller: Caller): Server => {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed as never }));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const args = params.arguments ?? {};
      const problem = jsonShapeProblem(args, { maxListLength: MAX_LIST_LENGTH });
      if (problem) return badArguments(`The arguments are refused: ${problem}.`);
      if (withGraphqlTool && params.name === GRAPHQL_TOOL.name) {
        return graphqlToolResult(yoga, args, request, caller);
      }
      const tool = tools.get(params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
      // GraphQL would ignore a variable the operation does not declare: the input schema says none may be sent.
      const declared = tool.inputSchema.properties as Record<string, unknown>;
      const unknown = Object.keys(args).filter((name) => !Object.hasOwn(declared, name));
      if (unknown.length > 0) {
        return badArguments(
          `Unknown arguments: ${unknown.join(', ')}`,
          unknown.map((name) => ({ path: [name], type: 'extra_forbidden', message: 'Extra inputs are not permitted' })),
        );
      }
      return toolResult(await run(tool, args, request, caller));
    });
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [
        {
          uri: SCHEMA_RESOURCE,
          name: 'GraphQL schema',
          description: 'The public GraphQL schema (SDL) the tools run on; its descriptions say what each field means.',
          mimeType: 'application/graphql',
        },
      ],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => {
      if (params.uri !== SCHEMA_RESOURCE)
        throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${params.uri}`);
      return { contents: [{ uri: SCHEMA_RESOURCE, mimeType: 'application/graphql', text: sdl }] };
    });
    return server;
  };

  return async (request, clientAddress, auth) => {
    const authentication = await auth.authentication();
    if (!authentication.viewer) {
      const failure = authentication.authFailure ?? 'missing';
      const challenge =
        failure === 'invalid'
          ? 'Bearer realm="campaign-gateway", error="invalid_token", error_description="The token is not valid"'
          : 'Bearer realm="campaign-gateway"';
      noteErrorCode('UNAUTHENTICATED');
      return jsonRpcError(401, -32001, AUTH_FAILURE_MESSAGES[failure], { 'www-authenticate': challenge });
    }
    // Stateless: nothing to resume (GET) or end (DELETE).
    if (request.method !== 'POST') {
      return jsonRpcError(
        405,
        ErrorCode.ConnectionClosed,
        'Method Not Allowed: this MCP server is stateless; POST only',
        {
          allow: 'POST',
        },
      );
    }
    const text = await request.text();
    if (jsonTextTooDeepAt(text) >= 0) return jsonRpcError(400, ErrorCode.ParseError, 'Parse error: nested too deeply');
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return jsonRpcError(400, ErrorCode.ParseError, 'Parse error: the body is not JSON');
    }
    // JSON-RPC batches left MCP in revision 2025-06-18: one message per request, so that the per-account request
    // limit counts every tool call (a batch of 100 calls would be 100 operations for the price of one request).
    if (Array.isArray(parsedBody)) {
      return jsonRpcError(
        400,
        ErrorCode.InvalidRequest,
        'Invalid Request: batches are not accepted; send one message per request',
      );
    }
    const caller: Caller = { clientAddress, auth: authentication };
    const server = serverFor(request, caller);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      return await transport.handleRequest(request, { parsedBody });
    } finally {
      void server.close();
    }
  };
}
