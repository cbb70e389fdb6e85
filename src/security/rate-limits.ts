// Per-account request rate and per-e-mail login throttling (DESIGN.md §4, §11), by rate-limiter-flexible: counted in
// memory, or in Redis when REDIS_URL is set so that every instance shares the counts. Should Redis fail, an in-memory
// limiter stands in (per instance) rather than refusing or waving everything through.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, type RateLimiterAbstract, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitSettings {
  requestsPerMinute: number;
  loginMaxFailures: number;
  loginWindowSeconds: number;
}

export interface RateLimits {
  /** Counts one request of the account: null when allowed, else the seconds to wait. */
  request(accountId: string): Promise<number | null>;
  /**
   * Counts a login attempt for this e-mail before the password is checked (so parallel guesses count too): null when
   * it may go ahead, else the seconds before it may try again. A success then clears the count.
   */
  loginAttempt(email: string): Promise<number | null>;
  loginSucceeded(email: string): Promise<void>;
}

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

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
  const logins = limiter(redis, 'login-failures', settings.loginMaxFailures, settings.loginWindowSeconds);
  const key = (email: string) => email.trim().toLowerCase();

  return {
    async request(accountId) {
      try {
        await requests.consume(accountId);
        return null;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return secondsOf(rejection.msBeforeNext);
        throw rejection;
      }
    },
    async loginAttempt(email) {
      try {
        await logins.consume(key(email));
        return null;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return secondsOf(rejection.msBeforeNext);
        throw rejection;
      }
    },
    async loginSucceeded(email) {
      await logins.delete(key(email));
    },
  };
}
