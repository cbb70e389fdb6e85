// Per-account request rate, per-client-address rate of unauthenticated requests, and login throttling per e-mail and
// client address (README "Limits"), by rate-limiter-flexible: counted in
// memory, or in Redis when REDIS_URL is set so that every instance shares the counts. Should Redis fail, an in-memory
// limiter stands in (per instance) rather than refusing or waving everything through.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, type RateLimiterAbstract, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitSettings {
  requestsPerMinute: number;
  anonymousPerMinute: number;
  loginMaxFailures: number;
  loginWindowSeconds: number;
}

export interface RateLimits {
  /** Counts one request of the account: null when allowed, else the seconds to wait. */
  request(accountId: string): Promise<number | null>;
  /** Counts one request without a valid bearer token from this client address; the same answer as `request`. */
  anonymousRequest(address: string): Promise<number | null>;
  /**
   * Counts a login attempt for this e-mail from this client address before the password is checked (so parallel
   * guesses count too): null when it may go ahead, else the seconds before it may try again. A success then clears
   * the count. Keyed by both, so that nobody can lock another person out from their own address.
   */
  loginAttempt(email: string, address: string): Promise<number | null>;
  loginSucceeded(email: string, address: string): Promise<void>;
}

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** null when the point was granted, else the seconds before the next one. */
async function consume(limiter: RateLimiterAbstract, key: string): Promise<number | null> {
  try {
    await limiter.consume(key);
    return null;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return secondsOf(rejection.msBeforeNext);
    throw rejection;
  }
}

function limiter(redis: Redis | null, keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration });
  return redis
    ? new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `gateway:${keyPrefix}`,
        points,
        duration,
        insuranceLimiter: memory,
      })
    : memory;
}

export function createRateLimits(settings: RateLimitSettings, redis: Redis | null): RateLimits {
  const requests = limiter(redis, 'requests', settings.requestsPerMinute, 60);
  const anonymous = limiter(redis, 'anonymous', settings.anonymousPerMinute, 60);
  const logins = limiter(redis, 'login-failures', settings.loginMaxFailures, settings.loginWindowSeconds);
  const key = (email: string, address: string) => JSON.stringify([email.trim().toLowerCase(), address]);

  return {
    request: (accountId) => consume(requests, accountId),
    anonymousRequest: (address) => consume(anonymous, address),
    loginAttempt: (email, address) => consume(logins, key(email, address)),
    async loginSucceeded(email, address) {
      await logins.delete(key(email, address));
    },
  };
}
