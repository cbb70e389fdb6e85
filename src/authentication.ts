// Who is calling (docs/decisions.md §14): the bearer token of a request, verified once and read into an account, for
// every door (GraphQL, REST, MCP, WebSocket) and the rate limiter alike.
import { type AccessTokenCredential, accessTokenMatches } from './domain/access-tokens.js';
import type { Account } from './domain/accounts.js';
import type { AccountCache } from './domain/account-cache.js';
import type { TokenIssuer, VerifiedToken } from './security/tokens.js';

/** What authentication needs of the app's services (src/services.ts). */
export interface AuthServices {
  tokens: TokenIssuer;
  accounts: AccountCache;
  accessTokens: AccountCache<AccessTokenCredential>;
}

/** Why a request has no viewer: no usable Authorization header, or a token that does not check out. */
export type AuthFailure = 'missing' | 'invalid';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token of `Authorization: Bearer <token>`, read the way FastAPI's OAuth2PasswordBearer reads it. */
export function bearerToken(authorization: string | null): string | undefined {
  return authorization ? BEARER.exec(authorization)?.[1] : undefined;
}

export interface Authentication {
  viewer: Account | null;
  authFailure: AuthFailure | null;
  tokenExpiresAt?: number;
  readOnly?: boolean;
  accessTokenId?: string;
}

/**
 * Who is calling, worked out once per request (docs/decisions.md §14): the token is verified once, its claims serve
 * the rate limiter, and the account is read (or found in the account cache) once, by whichever door asks first.
 */
export interface RequestAuth {
  /** The bearer token's claims when its signature and expiry check out; the account is not read yet. */
  readonly claims: VerifiedToken | null;
  /** The caller, with the account as the database has it now (a revoked token is `invalid`). */
  authentication(): Promise<Authentication>;
}

export function requestAuth(services: AuthServices, authorization: string | null): RequestAuth {
  const token = bearerToken(authorization);
  const claims = token ? services.tokens.verify(token) : null;
  let answer: Promise<Authentication> | undefined;
  return {
    claims,
    authentication: () => (answer ??= authenticate(services, token, claims)),
  };
}

async function authenticate(
  services: AuthServices,
  token: string | undefined,
  claims: VerifiedToken | null,
): Promise<Authentication> {
  if (!token) return { viewer: null, authFailure: 'missing' };
  if (claims?.accessTokenId) {
    const credential = await services.accessTokens.find(claims.accessTokenId);
    if (!credential || credential.account.id !== claims.accountId || !accessTokenMatches(credential, token)) {
      return { viewer: null, authFailure: 'invalid' };
    }
    return {
      viewer: credential.account,
      authFailure: null,
      readOnly: credential.readOnly,
      accessTokenId: credential.tokenId,
      ...(credential.expiresAt ? { tokenExpiresAt: Date.parse(credential.expiresAt) } : {}),
    };
  }
  const viewer = claims ? await services.accounts.find(claims.accountId) : null;
  // A token of an older version was issued before the API key was rotated or the password changed: revoked.
  if (!claims || !viewer || viewer.tokenVersion !== claims.version) return { viewer: null, authFailure: 'invalid' };
  return { viewer, authFailure: null, tokenExpiresAt: claims.expiresAt };
}

/** Reads `Authorization: Bearer <token>` (a login's JWT or a named access token) the way FastAPI's OAuth2PasswordBearer does. */
export function authenticateRequest(services: AuthServices, authorization: string | null): Promise<Authentication> {
  return requestAuth(services, authorization).authentication();
}

export const AUTH_FAILURE_MESSAGES: Record<AuthFailure, string> = {
  missing: 'Not authenticated',
  invalid: 'Could not validate credentials',
};
