// Where the authorisation server for hosted MCP agents can be served (docs/mcp-oauth.md "Endpoints"): its issuer is
// the gateway's public origin, PUBLIC_BASE_URL's when set, else the origin a request came to. OAuth 2.1 and RFC 8414
// want an https issuer; plain http is only accepted on a loopback host (local use and tests). Elsewhere there is no
// authorisation server: the OAuth paths answer 404 and /mcp's challenge names no metadata (src/oauth/door.ts,
// src/mcp/challenge.ts both ask here, so they always agree).
import type { Config } from './config.js';

/** localhost, 127.0.0.0/8 and [::1], as a URL's `hostname` spells them. */
export const isLoopbackHostname = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);

/** Whether a socket's peer address is a loopback one (127.0.0.0/8, ::1, or 127.x mapped into IPv6). */
export const isLoopbackAddress = (address: string | undefined): boolean =>
  !!address && (address === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/i.test(address));

/** Whether an origin can be an issuer: https, or http on a loopback host. */
export function servableIssuer(origin: string): boolean {
  const url = URL.parse(origin);
  return !!url && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname)));
}

/** The gateway's public origin for a request's Host: PUBLIC_BASE_URL's when set, else `http://<Host>`. */
export function publicOriginFor(
  config: Pick<Config, 'PUBLIC_BASE_URL'>,
  host: string | null | undefined,
): string | null {
  if (config.PUBLIC_BASE_URL) return new URL(config.PUBLIC_BASE_URL).origin;
  const url = host ? URL.parse(`http://${host}`) : null;
  // A Host header that is not a plain host[:port] names no origin.
  return url && host && url.host === host.toLowerCase() ? url.origin : null;
}

/**
 * The issuer of the authorisation server for a request that came to `host`, or null when there is none there:
 * MCP_OAUTH is off, or the origin is neither https nor loopback (without an https PUBLIC_BASE_URL, only loopback
 * hosts get one — which also bounds the providers kept per origin).
 */
export function oauthIssuer(
  config: Pick<Config, 'MCP_OAUTH' | 'PUBLIC_BASE_URL'>,
  host: string | null | undefined,
): string | null {
  if (!config.MCP_OAUTH) return null;
  const origin = publicOriginFor(config, host);
  return origin && servableIssuer(origin) ? origin : null;
}

/** Why there is no authorisation server (the 404's description and the start-up warning). */
export const OAUTH_UNAVAILABLE =
  'OAuth for hosted agents needs an https PUBLIC_BASE_URL (plain http is only served on a loopback address)';

/**
 * The issuer a connection from `remoteAddress` that names `host` is served, or null. Without PUBLIC_BASE_URL the
 * issuer comes from Host, which any client can set to `localhost`: a loopback issuer is then served to a client
 * connected over loopback only.
 */
export function oauthIssuerFor(
  config: Pick<Config, 'MCP_OAUTH' | 'PUBLIC_BASE_URL'>,
  host: string | null | undefined,
  remoteAddress: string | undefined,
): string | null {
  if (!config.PUBLIC_BASE_URL && !isLoopbackAddress(remoteAddress)) return null;
  return oauthIssuer(config, host);
}
