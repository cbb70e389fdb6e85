// The per-request context every resolver sees: the app's services and who is calling.
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DatabaseAvailability } from '../db/availability.js';
import type { Database } from '../db/types.js';
import type { LiveStreams } from './live-streams.js';
import type { CampaignEventBus } from '../events/pubsub.js';
import { type Account, findAccountById } from '../domain/accounts.js';
import type { Logger } from '../logger.js';
import type { RateLimits } from '../security/rate-limits.js';
import type { SecretBox } from '../security/secrets.js';
import type { TokenIssuer } from '../security/tokens.js';

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
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token of `Authorization: Bearer <token>`, read the way FastAPI's OAuth2PasswordBearer reads it. */
export function bearerToken(authorization: string | null): string | undefined {
  return authorization ? BEARER.exec(authorization)?.[1] : undefined;
}

/** Reads `Authorization: Bearer <jwt>` the way FastAPI's OAuth2PasswordBearer does. */
export async function authenticateRequest(
  services: Services,
  authorization: string | null,
): Promise<{ viewer: Account | null; authFailure: AuthFailure | null; tokenExpiresAt?: number }> {
  const token = bearerToken(authorization);
  if (!token) return { viewer: null, authFailure: 'missing' };
  const claims = services.tokens.verify(token);
  const viewer = claims ? await findAccountById(services.db, claims.accountId) : null;
  // A token of an older version was issued before the API key was rotated or the password changed: revoked.
  if (!claims || !viewer || viewer.tokenVersion !== claims.version) return { viewer: null, authFailure: 'invalid' };
  return { viewer, authFailure: null, tokenExpiresAt: claims.expiresAt };
}

export const AUTH_FAILURE_MESSAGES: Record<AuthFailure, string> = {
  missing: 'Not authenticated',
  invalid: 'Could not validate credentials',
};
