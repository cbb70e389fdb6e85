// Browser origins at the GraphQL endpoints (docs/security.md "Browsers and CORS"): CORS_ALLOWED_ORIGINS. By default
// (`*`) any page may call /graphql with a bearer token — the header a page sets itself, never a cookie the browser
// adds — so no origin is told it may send credentials. A list instead: only those origins get CORS headers, with
// credentials allowed; the same list reaches /subgraph (no browser origin by default: gateways are not browsers) and
// /mcp (beside MCP_ALLOWED_ORIGINS, src/mcp/browser-origins.ts).
import type { Config } from '../../core/config.js';

/** What a page may send and read at /graphql. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Request-Id'];
const EXPOSED_HEADERS = ['X-Request-Id', 'ETag', 'Retry-After'];

/** yoga's (and the prepared lane's) CORS options for one request: false, no CORS headers at all. */
export interface GraphQLCorsOptions {
  origin: string | string[];
  allowedHeaders: string[];
  exposedHeaders: string[];
  credentials: boolean;
}

export type CorsFor = (request: Request) => GraphQLCorsOptions | false;

/** `*` (any origin, no credentials) or the origins listed. */
export type AllowedOrigins = '*' | readonly string[];

/**
 * The CORS rule of a GraphQL endpoint: `anyOrigin` — whether `*` applies to it (/graphql; not /subgraph, which only
 * listed origins reach).
 */
export function graphqlCors(allowed: Config['CORS_ALLOWED_ORIGINS'], anyOrigin: boolean): CorsFor {
  const options = (origin: string | string[], credentials: boolean): GraphQLCorsOptions => ({
    origin,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials,
  });
  if (allowed === '*') {
    // whatwg-node answers `*` with the request's origin and `Vary: Origin`; credentials stay off.
    const any = options('*', false);
    return anyOrigin ? () => any : () => false;
  }
  const listed = new Set(allowed);
  return (request) => {
    const origin = request.headers.get('origin');
    // Given twice: whatwg-node echoes an origin found in a list with `Vary: Origin` (a list of one it would answer
    // whatever the request's origin).
    return origin !== null && listed.has(origin) ? options([origin, origin], true) : false;
  };
}
