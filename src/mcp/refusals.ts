// A request refused before it reaches the MCP door (the rate limit, the body limit, the large-body budget) is answered
// in the door's own shape: a JSON-RPC error, with the same status and headers (Retry-After) and the GraphQL error code
// in `data.code`, rather than the `{"errors": […]}` body of /graphql.
import type { Config } from '../core/config.js';
import { Response } from '../core/fetch-api.js';
import { withCors } from './browser-origins.js';

/** JSON-RPC's range for errors a server defines itself. */
const SERVER_ERROR = -32000;

export async function asJsonRpcRefusal(
  response: Response,
  request: Request,
  config: Pick<Config, 'PUBLIC_BASE_URL' | 'MCP_ALLOWED_ORIGINS'>,
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
      id: null,
    }),
    { status: response.status, headers },
  );
}
