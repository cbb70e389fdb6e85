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
