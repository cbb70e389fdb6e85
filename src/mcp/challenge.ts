// The MCP door's answer to a request without a valid token (RFC 6750, RFC 9728 §5.1): the challenge names the
// protected resource metadata, where a hosted agent finds the authorisation server it signs the user in with — when
// there is one for the origin the request came to (src/core/oauth-issuer.ts); otherwise it names none, rather than
// point agents at a document that answers 404.
import type { Config } from '../core/config.js';
import { oauthIssuer } from '../core/oauth-issuer.js';
import type { AuthFailure } from '../authentication.js';

/** RFC 9728 §3.1: the metadata of resource https://host/mcp lives at /.well-known/oauth-protected-resource/mcp. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

export function mcpBearerChallenge(
  config: Pick<Config, 'MCP_OAUTH' | 'PUBLIC_BASE_URL'>,
  request: Request,
  failure: AuthFailure,
): string {
  const issuer = oauthIssuer(config, request.headers.get('host') ?? new URL(request.url).host);
  const parts = ['realm="campaign-gateway"'];
  if (issuer) parts.push(`resource_metadata="${issuer}${PROTECTED_RESOURCE_METADATA_PATH}"`);
  if (failure === 'invalid') parts.push('error="invalid_token"', 'error_description="The token is not valid"');
  return `Bearer ${parts.join(', ')}`;
}

/** The scope a token needs for the tools that change something (a read-only token has mcp:read alone). */
export const WRITE_SCOPE = 'mcp:read mcp:write';

/**
 * The step-up challenge (RFC 6750 §3.1, MCP authorization "Scope challenge handling"): a read-only token called a tool
 * that changes something. The client can ask its user for the scope named and call again.
 */
export function mcpScopeChallenge(config: Pick<Config, 'MCP_OAUTH' | 'PUBLIC_BASE_URL'>, request: Request): string {
  const issuer = oauthIssuer(config, request.headers.get('host') ?? new URL(request.url).host);
  const parts = ['realm="campaign-gateway"', 'error="insufficient_scope"', `scope="${WRITE_SCOPE}"`];
  if (issuer) parts.push(`resource_metadata="${issuer}${PROTECTED_RESOURCE_METADATA_PATH}"`);
  parts.push('error_description="This token is read-only; this tool needs mcp:write"');
  return `Bearer ${parts.join(', ')}`;
}
