// /oauth/token is counted per OAuth client for what succeeds, and per address for what does not (issue 53, item 11;
// docs/limits.md): a platform's backend exchanges and refreshes the tokens of all its users from a few addresses, so
// an address's anonymous budget would refuse it at scale. Every token request is counted against its address as it
// arrives (ANONYMOUS_RATE_LIMIT_PER_MINUTE), before its body is read; one that is granted gives that point back and
// counts against its client instead (OAUTH_CLIENT_REQUESTS_PER_MINUTE), whose budget, once spent, refuses the
// client's next requests from any address. Only tokens granted spend a client's budget: requests that merely name a
// client — a made-up grant, a popular client's ID — spend their own address's, so nobody can use up another's, and
// made-up client IDs buy nothing. The revocation endpoint (which answers 200 whatever the token) stays counted per
// address like any anonymous request.
import type { IncomingMessage } from 'node:http';
import { OAUTH_ROUTES } from './endpoints.js';
import type { BodyKind } from './hostile-input.js';

/** Longer client IDs are not this server's (its own are 43 characters): counted under their first characters. */
const MAX_CLIENT_ID_KEY = 256;

/** Whether a request to this path and method is a token request (counted as above). */
export const isTokenRequest = (pathname: string, method: string | undefined): boolean =>
  method === 'POST' && pathname === OAUTH_ROUTES.token;

/**
 * The client ID a token request names: HTTP Basic's user name (RFC 6749 §2.3.1: form-urlencoded) or the body's
 * `client_id`; null when it names none (or the body does not parse: the provider refuses it).
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
