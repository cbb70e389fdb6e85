// A request refused before it reaches the MCP door (the rate limit, the body limit, the large-body budget) is answered
// in the door's own shape: a JSON-RPC error, with the same status and headers (Retry-After) and the GraphQL error code
// in `data.code`, rather than the `{"errors": […]}` body of /graphql, and the id of the request when its body was read
// (or is small enough to read).
import { Response } from '../core/fetch-api.js';
import { type OriginSettings, withCors } from './browser-origins.js';

/** JSON-RPC's range for errors a server defines itself. */
const SERVER_ERROR = -32000;

/** Where the MCP door answers (src/mcp/door.ts). */
export const MCP_PATH = '/mcp';

/** A refused request's body is read for its id only when it declares itself this small (or was read already). */
export const ID_READ_MAX_BYTES = 64 * 1024;

/** The id of a parsed JSON-RPC message, when it has one (null otherwise: a notification, a batch, no object). */
export function messageIdOf(message: unknown): string | number | null {
  const id =
    message && typeof message === 'object' && !Array.isArray(message) ? (message as { id?: unknown }).id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** The JSON-RPC id of a request body, when it has one (null otherwise, or when it is no JSON). */
export function jsonRpcIdOf(body: string | null): string | number | null {
  if (body === null) return null;
  try {
    return messageIdOf(JSON.parse(body));
  } catch {
    return null;
  }
}

/**
 * The id of a request refused before the door read it: its body is read when it says it is small (a refusal carries
 * the id the client can match it with, JSON-RPC 2.0 §5), else the refusal's id is null.
 */
export async function refusedRequestId(request: Request): Promise<string | number | null> {
  const length = Number(request.headers.get('content-length') ?? Number.NaN);
  if (!(length > 0 && length <= ID_READ_MAX_BYTES) || request.bodyUsed) return null;
  return jsonRpcIdOf(await request.text().catch(() => null));
}

/** The MCP door's refusals before it reads a request, as the HTTP room's stages ask for them (src/http/doors.ts). */
export interface McpRefusals {
  /** A method no door serves (405, naming the door's own: GET, POST, DELETE). */
  unknownMethod(request: Request): Promise<Response>;
  /** A refusal of the stages (rate, body limits) reshaped, with the request's id when its body is small. */
  refusal(response: Response, request: Request): Promise<Response>;
}

export function mcpRefusals(config: OriginSettings): McpRefusals {
  return {
    unknownMethod: (request) =>
      asJsonRpcRefusal(
        new Response(
          JSON.stringify({ errors: [{ message: 'Method Not Allowed', extensions: { code: 'METHOD_NOT_ALLOWED' } }] }),
          { status: 405, headers: { allow: 'GET, POST, DELETE' } },
        ),
        request,
        config,
      ),
    refusal: async (response, request) => asJsonRpcRefusal(response, request, config, await refusedRequestId(request)),
  };
}

export async function asJsonRpcRefusal(
  response: Response,
  request: Request,
  config: OriginSettings,
  id: string | number | null = null,
): Promise<Response> {
  const body = (await response.json().catch(() => null)) as {
    errors?: Array<{ message?: string; extensions?: { code?: string } }>;
  } | null;
  const error = body?.errors?.[0];
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  // An allowed browser origin reads the refusal (and its Retry-After) as it reads the door's own answers.
  withCors(headers, request, config);
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: {
        code: SERVER_ERROR,
        message: error?.message ?? response.statusText,
        ...(error?.extensions?.code ? { data: { code: error.extensions.code } } : {}),
      },
      id,
    }),
    { status: response.status, headers },
  );
}
