// The MCP door (docs/mcp.md): the Model Context Protocol over Streamable HTTP at /mcp, stateless (every POST is
// answered on its own, by any instance: no session, no sticky routing), with the same bearer tokens as the other
// doors. It speaks revision 2026-07-28 (every request carries its `_meta`; the official SDK 2.x's `createMcpHandler`)
// and, for 2025-era clients, the 2025-11-25 family (an `initialize` handshake answered statelessly, JSON answers).
// Its tools are the named operations of src/mcp/operations.ts, run through yoga's enveloped pipeline on the public
// graph, as the REST door runs its own: one set of validation, tenancy, limits, error masking and traces.
import {
  createMcpHandler,
  isLegacyRequest,
  type McpServerFactory,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { Response } from '../core/fetch-api.js';
import type { RequestAuth } from '../authentication.js';
import type { Services } from '../services.js';
import { AUTH_FAILURE_MESSAGES } from '../authentication.js';
import { noteErrorCode } from '../core/request-context.js';
import type { Yoga } from '../graphql/server/yoga.js';
import { jsonTooDeepAt, jsonValuesOverAt, MAX_JSON_VALUES } from '../validation/json-limits.js';
import { decodeBody } from '../core/body-text.js';
import { originAllowed, preflightHeaders, withCors } from './browser-origins.js';
import { mcpBearerChallenge, mcpScopeChallenge } from './challenge.js';
import { messageIdOf } from './refusals.js';
import { authInfoFor, mcpServerFactory, WRITE_TOOL_NAMES } from './server.js';
import type { Caller } from './tool-results.js';

export { SCHEMA_RESOURCE } from './server.js';
export { MCP_PATH } from './refusals.js';

export type McpDoor = (request: Request, clientAddress: string, auth: RequestAuth) => Promise<Response>;

/** A JSON-RPC error answer outside of any request (bad credentials, an unreadable body, a method not served). */
function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: string | number | null = null,
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * 2025-era requests: one stateless Streamable HTTP exchange answered with a JSON body (the SDK's own fallback would
 * answer with a one-event stream), from the same factory as the 2026-07-28 requests.
 */
async function serveLegacy(factory: McpServerFactory, request: Request, caller: Caller, parsedBody: unknown) {
  const authInfo = authInfoFor(caller);
  const server = await factory({ era: 'legacy', authInfo, requestInfo: request });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request, { parsedBody, authInfo });
  } finally {
    void server.close();
  }
}

/**
 * Every protocol revision this door serves: the modern ones of the SDK's handler (2026-07-28), which it lists, and the
 * 2025-era family it negotiates in `initialize` (serveLegacy), which the SDK leaves out of `server/discover` and of
 * the -32022 error.
 */
const everyRevision = (modern: unknown[]): string[] => [
  ...new Set([
    ...modern.filter((version): version is string => typeof version === 'string'),
    ...SUPPORTED_PROTOCOL_VERSIONS,
  ]),
];

/** A modern answer that names the revisions served (server/discover, -32022) names all of them. */
async function withEveryRevision(response: Response): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) return response;
  const body = (await response.json()) as {
    result?: { supportedVersions?: unknown };
    error?: { code?: number; data?: { supported?: unknown } };
  };
  if (Array.isArray(body.result?.supportedVersions)) {
    body.result.supportedVersions = everyRevision(body.result.supportedVersions);
  }
  if (body.error?.code === UNSUPPORTED_REVISION && Array.isArray(body.error.data?.supported)) {
    body.error.data.supported = everyRevision(body.error.data.supported);
  }
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers });
}

/** -32022: the request's revision is not one the server speaks. */
const UNSUPPORTED_REVISION = -32022;

/** The string parameters of the methods served (the SDK reports a wrong type as an internal error, -32603). */
const STRING_PARAMS: Record<string, ReadonlyArray<{ name: string; required: boolean }>> = {
  'tools/list': [{ name: 'cursor', required: false }],
  'resources/list': [{ name: 'cursor', required: false }],
  'resources/templates/list': [{ name: 'cursor', required: false }],
  'tools/call': [{ name: 'name', required: true }],
  'resources/read': [{ name: 'uri', required: true }],
};

/** What is wrong with a request's parameters' types, as an invalid-params message (undefined when nothing is). */
function paramsProblem(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { method, params } = body as { method?: unknown; params?: unknown };
  const expected = typeof method === 'string' ? STRING_PARAMS[method] : undefined;
  if (!expected) return undefined;
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    return 'Invalid params: params must be an object';
  }
  const given = (params ?? {}) as Record<string, unknown>;
  for (const { name, required } of expected) {
    const value = given[name];
    if (value === undefined ? required : typeof value !== 'string') {
      return `Invalid params: params.${name} must be a string${required ? '' : ' when given'}`;
    }
  }
  if (method === 'tools/call' && given.arguments !== undefined) {
    const args = given.arguments;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return 'Invalid params: params.arguments must be an object';
    }
  }
  return undefined;
}

/** The tool a tools/call request names, and the request's id. */
function toolCallOf(body: unknown): { name: string; id: string | number | null } | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  return { name: params.name, id: messageIdOf(body) };
}

export function createMcpDoor(yoga: Yoga, services: Services): McpDoor {
  const factory = mcpServerFactory(yoga, services);
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    // No tool sends anything before its result, so every answer is one JSON body ('json' would only add a warning).
    responseMode: 'auto',
    onerror: (error) => services.logger.info({ err: error.message }, 'mcp: request refused'),
  });

  const answer = async (request: Request, clientAddress: string, auth: RequestAuth): Promise<Response> => {
    const authentication = await auth.authentication();
    if (!authentication.viewer) {
      const failure = authentication.authFailure ?? 'missing';
      noteErrorCode('UNAUTHENTICATED');
      return jsonRpcError(401, -32001, AUTH_FAILURE_MESSAGES[failure], {
        'www-authenticate': mcpBearerChallenge(services.config, request, failure),
      });
    }
    // Stateless: nothing to resume (GET) or end (DELETE).
    if (request.method !== 'POST') {
      return jsonRpcError(405, -32000, 'Method Not Allowed: this MCP server is stateless; POST only', {
        allow: 'POST',
      });
    }
    const bytes = await request.bytes();
    if (jsonTooDeepAt(bytes) >= 0) {
      return jsonRpcError(400, ProtocolErrorCode.ParseError, 'Parse error: nested too deeply');
    }
    // Counted on its bytes before it is decoded and parsed (docs/limits.md): no tool takes more, and walking 100 000
    // keys would cost the loop.
    if (jsonValuesOverAt(bytes) >= 0) {
      return jsonRpcError(
        400,
        ProtocolErrorCode.InvalidRequest,
        `Invalid Request: a message may hold at most ${MAX_JSON_VALUES} object keys and list items in all`,
      );
    }
    const text = decodeBody(bytes);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return jsonRpcError(400, ProtocolErrorCode.ParseError, 'Parse error: the body is not JSON');
    }
    // JSON-RPC batches left MCP in revision 2025-06-18: one message per request, so that the per-account request
    // limit counts every tool call (a batch of 100 calls would be 100 operations for the price of one request).
    if (Array.isArray(parsedBody)) {
      return jsonRpcError(
        400,
        ProtocolErrorCode.InvalidRequest,
        'Invalid Request: batches are not accepted; send one message per request',
      );
    }
    const problem = paramsProblem(parsedBody);
    if (problem) return jsonRpcError(400, ProtocolErrorCode.InvalidParams, problem, {}, messageIdOf(parsedBody));
    // Step-up (MCP authorization, "Scope challenge handling"): a read-only token calling a tool that changes something
    // is answered 403 insufficient_scope, so that the client can ask its user for mcp:write and call again.
    const call = toolCallOf(parsedBody);
    if (call && authentication.readOnly && WRITE_TOOL_NAMES.has(call.name)) {
      noteErrorCode('FORBIDDEN');
      return jsonRpcError(
        403,
        ProtocolErrorCode.InvalidRequest,
        `Forbidden: ${call.name} changes data and this token is read-only. An agent connected through OAuth asks its ` +
          'user again for scope "mcp:read mcp:write" (the consent page offers "Read and change"); a pasted token must ' +
          'be one made without readOnly.',
        { 'www-authenticate': mcpScopeChallenge(services.config, request) },
        call.id,
      );
    }
    const caller: Caller = { request, clientAddress, auth: authentication };
    if (await isLegacyRequest(request, parsedBody)) return serveLegacy(factory, request, caller, parsedBody);
    const answered = await modern.fetch(request, { authInfo: authInfoFor(caller), parsedBody });
    const method = (parsedBody as { method?: unknown } | null)?.method;
    return method === 'server/discover' || answered.status === 400 ? withEveryRevision(answered) : answered;
  };

  return async (request, clientAddress, auth) => {
    const origin = request.headers.get('origin');
    if (origin === null) return answer(request, clientAddress, auth);
    if (!originAllowed(origin, request, services.config)) {
      noteErrorCode('FORBIDDEN');
      return jsonRpcError(403, ProtocolErrorCode.InvalidRequest, 'Forbidden: this Origin may not call /mcp');
    }
    // A browser's preflight, before any credential: the answer says what the real request may carry.
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: preflightHeaders(origin) });
    const response = await answer(request, clientAddress, auth);
    const headers = new Headers(response.headers);
    withCors(headers, request, services.config);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
