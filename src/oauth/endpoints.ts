// Where the authorisation server for hosted MCP agents lives (docs/mcp-oauth.md "Endpoints"). The issuer is the
// gateway's public origin: PUBLIC_BASE_URL when set, else the origin a request came to (local use and tests), and
// only an https or loopback one (src/core/oauth-issuer.ts).

/** Every path of the authorisation server starts with this (besides the .well-known documents). */
export const OAUTH_PREFIX = '/oauth';

export const OAUTH_ROUTES = {
  authorization: `${OAUTH_PREFIX}/authorize`,
  token: `${OAUTH_PREFIX}/token`,
  registration: `${OAUTH_PREFIX}/register`,
  /** RFC 7009: a client revokes a refresh token or an access token it holds (its "disconnect"). */
  revocation: `${OAUTH_PREFIX}/revoke`,
  jwks: `${OAUTH_PREFIX}/jwks`,
} as const;

/** The interaction (login and consent) page of one authorisation request. */
export const INTERACTION_PATH = `${OAUTH_PREFIX}/interaction/`;

/** RFC 9728 §3.1: the protected resource metadata of https://host/mcp, and of the host as a whole. */
export const PROTECTED_RESOURCE_PATHS = new Set([
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-protected-resource',
]);
/** RFC 8414 and OpenID Connect discovery, both served by the provider (clients try either). */
export const AUTHORIZATION_SERVER_PATHS = new Set([
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
]);

/** Read-only access (queries) and full access (mutations too): the token is read-only without mcp:write. */
export const SCOPES = ['mcp:read', 'mcp:write'] as const;

/** Whether the authorisation server answers this path. */
export function isOAuthPath(pathname: string): boolean {
  return (
    pathname.startsWith(`${OAUTH_PREFIX}/`) ||
    PROTECTED_RESOURCE_PATHS.has(pathname) ||
    AUTHORIZATION_SERVER_PATHS.has(pathname)
  );
}

/** The protected resource a token is bound to (RFC 8707): this gateway's MCP door. */
export const mcpResourceUrl = (issuer: string): string => `${issuer}/mcp`;
