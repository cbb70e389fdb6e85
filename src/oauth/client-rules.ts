// What a client may declare (docs/mcp-oauth.md "Clients"), for registered clients and client ID metadata documents
// alike (oidc-provider's extraClientMetadata validator runs for both, and again when a stored client is loaded):
// redirect URIs that are https, http on a loopback host, or a native app's private-use scheme (OAuth 2.1 §2.3.1, §8.4), at most MAX_REDIRECT_URIS of at most
// MAX_URI_LENGTH characters; short names and URIs; few contacts.
import { errors } from 'oidc-provider';
import { isLoopbackHostname } from '../core/oauth-issuer.js';

export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 2000;
export const MAX_CLIENT_NAME_LENGTH = 200;
export const MAX_CONTACTS = 10;
/** contacts, scope, and any other short string a client may declare. */
const MAX_SHORT_STRING = 500;

/** The URI-valued client metadata (besides the redirect URIs): at most MAX_URI_LENGTH characters each. */
const URI_METADATA = [
  'client_uri',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'jwks_uri',
  'initiate_login_uri',
  'sector_identifier_uri',
] as const;
const isUriMetadata = (key: string) => (URI_METADATA as readonly string[]).includes(key);

/** The client metadata checked here (oidc-provider's own checks of them still run afterwards). */
export const CHECKED_CLIENT_METADATA = ['redirect_uris', 'client_name', ...URI_METADATA, 'contacts', 'scope'] as const;

/** Schemes that are never a native app's own (they run, show or fetch something, or are plain web). */
const NOT_PRIVATE_USE = new Set([
  'http:',
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'ws:',
  'wss:',
  'ftp:',
]);

/**
 * Whether a redirect URI is one an agent may use: https, plain http on a loopback host, or a native app's private-use
 * scheme (RFC 8252 §7.1, OAuth 2.1 §8.4.1: `cursor://…`, `com.example.app:/callback`; PKCE protects the code).
 */
export function allowedRedirectUri(uri: string): boolean {
  const url = URL.parse(uri);
  if (!url) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return isLoopbackHostname(url.hostname);
  return !NOT_PRIVATE_USE.has(url.protocol);
}

/** oidc-provider's `extraClientMetadata.validator`: throws invalid_redirect_uri or invalid_client_metadata. */
export function validateClientMetadata(key: string, value: unknown): void {
  if (value === undefined || value === null) return;
  const invalid = (message: string) => {
    throw new errors.InvalidClientMetadata(message);
  };
  if (key === 'redirect_uris') {
    if (!Array.isArray(value)) return; // oidc-provider refuses a non-array itself
    if (value.length > MAX_REDIRECT_URIS) {
      throw new errors.InvalidRedirectUri(`at most ${MAX_REDIRECT_URIS} redirect_uris`);
    }
    for (const uri of value) {
      if (typeof uri !== 'string') continue; // refused by oidc-provider
      if (uri.length > MAX_URI_LENGTH) {
        throw new errors.InvalidRedirectUri(`redirect_uris must be at most ${MAX_URI_LENGTH} characters long`);
      }
      if (!allowedRedirectUri(uri)) {
        throw new errors.InvalidRedirectUri(
          'redirect_uris must be https, http on a loopback host (localhost, 127.0.0.1, [::1]), or a native app’s own scheme',
        );
      }
    }
    return;
  }
  if (key === 'contacts') {
    if (!Array.isArray(value)) return;
    if (value.length > MAX_CONTACTS) invalid(`at most ${MAX_CONTACTS} contacts`);
    if (value.some((contact) => typeof contact === 'string' && contact.length > MAX_SHORT_STRING)) {
      invalid(`contacts must be at most ${MAX_SHORT_STRING} characters long`);
    }
    return;
  }
  if (typeof value !== 'string') return;
  const max = key === 'client_name' ? MAX_CLIENT_NAME_LENGTH : isUriMetadata(key) ? MAX_URI_LENGTH : MAX_SHORT_STRING;
  if (value.length > max) invalid(`${key} must be at most ${max} characters long`);
}

/** The grant types a client may have: what it asks for beyond them is left out (RFC 7591 §3.2.1). */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

/**
 * Client metadata as this server will honour it, for a registration and a client ID metadata document alike: grant
 * types and response types it does not serve are left out rather than refused (RFC 7591 §3.2.1 lets the server trim;
 * the registration answer shows what was kept), and authorization_code is always kept. Changes `metadata` in place.
 */
export function settleClientMetadata(metadata: Record<string, unknown>): void {
  if (Array.isArray(metadata.grant_types)) {
    const asked = new Set(metadata.grant_types);
    metadata.grant_types = GRANT_TYPES.filter((type) => type === 'authorization_code' || asked.has(type));
  }
  if (Array.isArray(metadata.response_types)) metadata.response_types = ['code'];
}
