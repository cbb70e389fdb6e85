// The per-request context every resolver sees: the app's services and who is calling.
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DatabaseAvailability } from '../db/availability.js';
import type { Database } from '../db/types.js';
import type { LiveStreams } from './live-streams.js';
import type { CampaignEventBus } from '../events/pubsub.js';
import type { AccountCache } from '../domain/account-cache.js';
import { type AccessTokenCredential, accessTokenMatches } from '../domain/access-tokens.js';
import type { Account } from '../domain/accounts.js';
import type { Logger } from '../logger.js';
import type { RateLimits } from '../security/rate-limits.js';
import type { SecretBox } from '../security/secrets.js';
import type { TokenIssuer, VerifiedToken } from '../security/tokens.js';

export interface Services {
  db: Kysely<Database>;
  config: Config;
  tokens: TokenIssuer;
  secrets: SecretBox;
  logger: Logger;
  /** Live campaign events for subscriptions. */
  events: CampaignEventBus;
  limits: RateLimits;
  /** Live subscription streams, ended on token expiry or revocation and at shutdown. */
  streams: LiveStreams;
  /** Whether the database answers (503s while it does not). */
  availability: DatabaseAvailability;
  /** Accounts by id, read once per change (src/domain/account-cache.ts). */
  accounts: AccountCache;
  /** Named access tokens with their accounts, by token id, under the same rules. */
  accessTokens: AccountCache<AccessTokenCredential>;
}

/** Why a request has no viewer: no usable Authorization header, or a token that does not check out. */
export type AuthFailure = 'missing' | 'invalid';

export interface Context extends Services {
  viewer: Account | null;
  authFailure: AuthFailure | null;
  /** Where the request comes from (README "Limits": TRUST_PROXY), for throttles keyed by client address. */
  clientAddress: string;
  /** When the caller's access token expires (ms since the epoch); live streams end then. */
  tokenExpiresAt?: number;
  /** The caller's named access token is read-only: mutations are refused (src/graphql/read-only-tokens.ts). */
  readOnly?: boolean;
  /** The id of the caller's named access token, when that is the credential (live streams end when it is revoked). */
  accessTokenId?: string;
}

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

export function requestAuth(services: Services, authorization: string | null): RequestAuth {
  const token = bearerToken(authorization);
  const claims = token ? services.tokens.verify(token) : null;
  let answer: Promise<Authentication> | undefined;
  return {
    claims,
    authentication: () => (answer ??= authenticate(services, token, claims)),
  };
}

async function authenticate(
  services: Services,
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
export function authenticateRequest(services: Services, authorization: string | null): Promise<Authentication> {
  return requestAuth(services, authorization).authentication();
}

export const AUTH_FAILURE_MESSAGES: Record<AuthFailure, string> = {
  missing: 'Not authenticated',
  invalid: 'Could not validate credentials',
};
