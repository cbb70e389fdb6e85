// The MCP door's answer to a request without a valid token (RFC 6750, RFC 9728 §5.1): the challenge names the
// protected resource metadata, where a hosted agent finds the authorisation server it signs the user in with.
import type { Config } from '../core/config.js';
import type { AuthFailure } from '../authentication.js';

/** The gateway's public origin: PUBLIC_BASE_URL when set, else the origin the request came to. */
export const publicOrigin = (config: Pick<Config, 'PUBLIC_BASE_URL'>, request: Request): string =>
  new URL(config.PUBLIC_BASE_URL ?? request.url).origin;

/** RFC 9728 §3.1: the metadata of resource https://host/mcp lives at /.well-known/oauth-protected-resource/mcp. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

export function mcpBearerChallenge(
  config: Pick<Config, 'PUBLIC_BASE_URL'>,
  request: Request,
  failure: AuthFailure,
): string {
  const metadata = `${publicOrigin(config, request)}${PROTECTED_RESOURCE_METADATA_PATH}`;
  const parts = ['realm="campaign-gateway"', `resource_metadata="${metadata}"`];
  if (failure === 'invalid') parts.push('error="invalid_token"', 'error_description="The token is not valid"');
  return `Bearer ${parts.join(', ')}`;
}
