// Who is calling (docs/decisions.md §14): the bearer token of a request, verified once and read into an account, for
// every door (GraphQL, REST, MCP, WebSocket) and the rate limiter alike.
import { type CredentialCheck, noteCredentialCheck } from './core/request-context.js';
import { type AccessTokenCredential, accessTokenMatches } from './domain/access-tokens.js';
import type { Account } from './domain/accounts.js';
import type { TokenResource } from './db/types.js';
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
  /**
   * For a read: the caller, taken on PostgreSQL from the account last read for this token without reading it now
   * (docs/decisions.md §14); the request's first hot read checks it in its own statement. Whoever answers on it
   * must call confirm() before the answer leaves. Elsewhere the same as authentication().
   */
  provisional(): Promise<Authentication>;
  /**
   * Null when the answer given by provisional() stands (or none was given): a statement of this request found the
   * credential as it was taken, or the account read now is the same. Otherwise the caller as the database has it
   * now, which the request must be answered with instead.
   */
  confirm(): Promise<Authentication | null>;
  /** Whether provisional() answered without reading the account (confirm() then has work to do). */
  readonly taken: boolean;
}

/**
 * `resource`: the door asking, when it is one a token can be bound to (/mcp); a token bound to a door is refused
 * everywhere else, as an invalid one.
 */
export function requestAuth(
  services: AuthServices,
  authorization: string | null,
  resource: TokenResource | null = null,
): RequestAuth {
  const token = bearerToken(authorization);
  const claims = token ? services.tokens.verify(token) : null;
  let answer: Promise<Authentication> | undefined;
  let taken: { authentication: Authentication; check: CredentialCheck } | null = null;
  let confirmed: Promise<Authentication | null> | undefined;
  const authentication = () => (answer ??= authenticate(services, token, claims, resource));
  // `taken` is a data property set in place, not a getter: an object literal's getter is a new closure that V8
  // records in an old-generation map, which would keep this request's objects alive past young collections
  // (docs/decisions.md §18).
  const auth: { -readonly [K in keyof RequestAuth]: RequestAuth[K] } = {
    claims,
    authentication,
    provisional: () => {
      if (taken) return Promise.resolve(taken.authentication);
      if (answer) return answer;
      const guess = token && claims ? provisionalAuthentication(services, token, claims, resource) : null;
      // Without request state to carry the check (an in-process call), nothing is taken on trust.
      if (!guess || !noteCredentialCheck(guess.check)) return authentication();
      taken = guess;
      auth.taken = true;
      return Promise.resolve(guess.authentication);
    },
    confirm: () => (confirmed ??= taken ? confirmTaken(taken, authentication) : Promise.resolve(null)),
    taken: false,
  };
  return auth;
}

/** Whether a provisional answer stands: checked by a statement of the request already, or by reading now. */
async function confirmTaken(
  taken: { authentication: Authentication; check: CredentialCheck },
  authentication: () => Promise<Authentication>,
): Promise<Authentication | null> {
  const outcome = taken.check.outcome;
  if (outcome === true) return null;
  // Not checked (no hot read, or only empty ones) or refuted (say a named token whose account's key was rotated, which
  // does not revoke the token but changes the account): the account as it is now decides.
  const now = await authentication();
  const stood = outcome === undefined && sameCaller(taken.authentication, now);
  // Settled: later statements of the request need not carry the check any more.
  taken.check.outcome ??= stood;
  return stood ? null : now;
}

function sameCaller(before: Authentication, now: Authentication): boolean {
  return (
    now.authFailure === null &&
    now.viewer !== null &&
    now.viewer.id === before.viewer?.id &&
    now.viewer.tokenVersion === before.viewer.tokenVersion &&
    now.accessTokenId === before.accessTokenId &&
    now.readOnly === before.readOnly &&
    now.tokenExpiresAt === before.tokenExpiresAt
  );
}

/** The answer authenticate() gave last for this token, if the account cache keeps one to be confirmed (PostgreSQL). */
function provisionalAuthentication(
  services: AuthServices,
  token: string,
  claims: VerifiedToken,
  resource: TokenResource | null,
): { authentication: Authentication; check: CredentialCheck } | null {
  if (claims.accessTokenId) {
    const credential = services.accessTokens.recent(claims.accessTokenId);
    if (!namesCredential(credential, claims, token, resource)) return null;
    return {
      authentication: credentialAuthentication(credential),
      check: {
        accountId: credential.account.id,
        tokenVersion: credential.account.tokenVersion,
        accessToken: { tokenId: credential.tokenId, tokenHash: credential.tokenHash },
      },
    };
  }
  const viewer = services.accounts.recent(claims.accountId);
  if (!isCurrentFor(viewer, claims)) return null;
  return {
    authentication: accountAuthentication(viewer, claims),
    check: { accountId: viewer.id, tokenVersion: viewer.tokenVersion },
  };
}

/**
 * Whether a stored named access token is the one this token names (the claims' account, the token's digest) and may
 * be used at this door.
 */
const namesCredential = (
  credential: AccessTokenCredential | null | undefined,
  claims: VerifiedToken,
  token: string,
  resource: TokenResource | null,
): credential is AccessTokenCredential =>
  !!credential && credential.account.id === claims.accountId && accessTokenMatches(credential, token, resource);

/**
 * Whether a login token still stands for this account: one of an older version was issued before the API key was
 * rotated or the password changed, and is revoked.
 */
const isCurrentFor = (viewer: Account | null | undefined, claims: VerifiedToken): viewer is Account =>
  !!viewer && viewer.tokenVersion === claims.version;

const accountAuthentication = (viewer: Account, claims: VerifiedToken): Authentication => ({
  viewer,
  authFailure: null,
  tokenExpiresAt: claims.expiresAt,
});

const credentialAuthentication = (credential: AccessTokenCredential): Authentication => ({
  viewer: credential.account,
  authFailure: null,
  readOnly: credential.readOnly,
  accessTokenId: credential.tokenId,
  ...(credential.expiresAt ? { tokenExpiresAt: Date.parse(credential.expiresAt) } : {}),
});

async function authenticate(
  services: AuthServices,
  token: string | undefined,
  claims: VerifiedToken | null,
  resource: TokenResource | null,
): Promise<Authentication> {
  if (!token) return { viewer: null, authFailure: 'missing' };
  if (claims?.accessTokenId) {
    const credential = await services.accessTokens.find(claims.accessTokenId);
    if (!namesCredential(credential, claims, token, resource)) return { viewer: null, authFailure: 'invalid' };
    return credentialAuthentication(credential);
  }
  const viewer = claims ? await services.accounts.find(claims.accountId) : null;
  if (!claims || !isCurrentFor(viewer, claims)) return { viewer: null, authFailure: 'invalid' };
  return accountAuthentication(viewer, claims);
}

/** Reads `Authorization: Bearer <token>` (a login's JWT or a named access token) the way FastAPI's OAuth2PasswordBearer does. */
export function authenticateRequest(services: AuthServices, authorization: string | null): Promise<Authentication> {
  return requestAuth(services, authorization).authentication();
}

export const AUTH_FAILURE_MESSAGES: Record<AuthFailure, string> = {
  missing: 'Not authenticated',
  invalid: 'Could not validate credentials',
};
