// Browsers at /mcp (docs/mcp.md "Origin"): the transport's rule against DNS rebinding, and CORS for the origins that
// pass it. A request without `Origin` (an agent, a server) is not a browser's and is not concerned.
import type { Config } from '../core/config.js';

/** What decides which browser origins reach /mcp. */
export type OriginSettings = Pick<Config, 'PUBLIC_BASE_URL' | 'MCP_ALLOWED_ORIGINS'> &
  Partial<Pick<Config, 'CORS_ALLOWED_ORIGINS'>>;

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);
const isLoopbackHost = (hostname: string) => LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);

/**
 * Whether a browser `Origin` may call /mcp: one MCP_ALLOWED_ORIGINS or CORS_ALLOWED_ORIGINS lists (its `*` is not
 * for /mcp: DNS rebinding), PUBLIC_BASE_URL's origin, or — when
 * PUBLIC_BASE_URL is not set — the origin the request came to if that is a loopback address. The request's own origin
 * is not trusted otherwise: it comes from the Host header, which a DNS-rebinding page controls along with `Origin`.
 */
export function originAllowed(origin: string, request: Request, config: OriginSettings): boolean {
  if (config.MCP_ALLOWED_ORIGINS.includes(origin)) return true;
  if (Array.isArray(config.CORS_ALLOWED_ORIGINS) && config.CORS_ALLOWED_ORIGINS.includes(origin)) return true;
  if (config.PUBLIC_BASE_URL) return origin === new URL(config.PUBLIC_BASE_URL).origin;
  const own = new URL(request.url);
  return origin === own.origin && isLoopbackHost(own.hostname);
}

/** What a browser may send and read (the 2026-07-28 routing headers; the 401's challenge). */
const ALLOWED_HEADERS = 'authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name';
const EXPOSED_HEADERS = 'www-authenticate, x-request-id';

/** The CORS headers of an answer to an allowed origin. */
export const corsHeaders = (origin: string): Record<string, string> => ({
  'access-control-allow-origin': origin,
  'access-control-expose-headers': EXPOSED_HEADERS,
  vary: 'Origin',
});

/** Adds the CORS headers to an answer's `headers` when the request comes from an allowed browser origin. */
export function withCors(headers: Headers, request: Request, config: OriginSettings): void {
  const origin = request.headers.get('origin');
  if (origin === null || !originAllowed(origin, request, config)) return;
  for (const [name, value] of Object.entries(corsHeaders(origin))) {
    if (name === 'vary') headers.append(name, value);
    else headers.set(name, value);
  }
}

/** The answer to a preflight (OPTIONS) from an allowed origin: POST, with the headers an MCP client sends. */
export const preflightHeaders = (origin: string): Record<string, string> => ({
  ...corsHeaders(origin),
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': ALLOWED_HEADERS,
  'access-control-max-age': '600',
});
