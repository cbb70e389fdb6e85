// /oauth/token and /oauth/revoke are counted per OAuth client, not per address (issue 53, item 11; docs/limits.md): a
// platform's backend exchanges and refreshes the tokens of all its users from a few addresses, so an address's
// anonymous budget would refuse it at scale. Each client ID has OAUTH_CLIENT_REQUESTS_PER_MINUTE; requests that name
// no client the server knows, or the wrong secret (answered 401 `invalid_client`), count against their address as
// well (ANONYMOUS_RATE_LIMIT_PER_MINUTE of them), so that made-up client IDs, each with a budget of its own, buy an
// address nothing; so do those that name no client at all, or are refused before they reach the provider (a control
// character, a body too large). An address that has spent that budget is refused before its body is read.
import type { IncomingMessage } from 'node:http';
import type { RateLimits } from '../security/rate-limits.js';
import { OAUTH_ROUTES } from './endpoints.js';
import type { BodyKind } from './hostile-input.js';

/** Longer client IDs are not this server's (its own are 43 characters): counted under their first characters. */
const MAX_CLIENT_ID_KEY = 256;

/** Whether a request to this path and method is counted per client rather than per address. */
export const countedPerClient = (pathname: string, method: string | undefined): boolean =>
  method === 'POST' && (pathname === OAUTH_ROUTES.token || pathname === OAUTH_ROUTES.revocation);

/**
 * The client ID a token or revocation request names: HTTP Basic's user name (RFC 6749 §2.3.1: form-urlencoded) or the
 * body's `client_id`; null when it names none (or the body does not parse: the provider refuses it).
 */
export function clientIdOf(req: IncomingMessage, kind: BodyKind | undefined, body: Buffer | undefined): string | null {
  const basic = /^basic\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic) {
    const user = Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '';
    try {
      const id = decodeURIComponent(user.replaceAll('+', ' '));
      if (id) return id.slice(0, MAX_CLIENT_ID_KEY);
    } catch {
      return null;
    }
  }
  if (!body || !kind) return null;
  let id: unknown;
  try {
    id =
      kind === 'form'
        ? new URLSearchParams(body.toString('utf8')).get('client_id')
        : (JSON.parse(body.toString('utf8')) as { client_id?: unknown } | null)?.client_id;
  } catch {
    return null;
  }
  return typeof id === 'string' && id !== '' ? id.slice(0, MAX_CLIENT_ID_KEY) : null;
}

/**
 * Counts a token or revocation request once its body is read: the seconds to wait (429) or null. Per client when it
 * names one; one of the address's failed ones when it names none.
 */
export function clientRequestWait(
  limits: RateLimits,
  address: string,
  clientId: string | null,
): Promise<number | null> {
  return clientId === null ? limits.failedOAuthClient(address) : limits.oauthClientRequest(clientId);
}

/** After the provider answered a request that named a client: a 401 (unknown, or a wrong secret) counts as failed. */
export async function noteClientAnswer(
  limits: RateLimits,
  address: string,
  clientId: string | null,
  status: number,
): Promise<void> {
  if (clientId !== null && status === 401) await limits.failedOAuthClient(address);
}
