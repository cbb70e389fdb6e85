// Per-account request rate, per-client-address rate of unauthenticated requests, and login throttling per e-mail and
// client address, with a slow-down per e-mail across addresses (docs/limits.md), by rate-limiter-flexible: counted in
// memory, or in Redis when REDIS_URL is set so that every instance shares the counts. While Redis is away (or a
// command to it fails) an in-memory limiter stands in, per instance, rather than refusing, waving everything through
// or making the request wait (docs/decisions.md §15).
import type { RedisLink } from '../core/redis.js';
import { offLoop } from '../core/request-context.js';
import { RateLimiterMemory, type RateLimiterAbstract, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitSettings {
  requestsPerMinute: number;
  anonymousPerMinute: number;
  callbacksPerMinute: number;
  largeBodyMiBPerMinute: number;
  /** Requests to the OAuth token and revocation endpoints per client ID (OAUTH_CLIENT_REQUESTS_PER_MINUTE). */
  oauthClientPerMinute: number;
  loginMaxFailures: number;
  loginWindowSeconds: number;
  /**
   * ms a refusal is held before it is answered (REFUSAL_DELAY_MS; 0: at once): a refused login attempt, and a 429
   * for a spent request rate, work budget or body budget (holdRefusal).
   */
  refusalDelayMs: number;
  /** Refusals held at once, at most (REFUSALS_HELD_AT_ONCE by default); the rest are answered at once. */
  refusalsHeldAtOnce?: number;
}

export interface RateLimits {
  /** Counts one request of the account: null when allowed, else the seconds to wait. */
  request(accountId: string): Promise<number | null>;
  /** Counts one request without a valid bearer token from this client address; the same answer as `request`. */
  anonymousRequest(address: string): Promise<number | null>;
  /** Counts one signed provider callback of the account, once its signature is verified; the same answer. */
  callback(accountId: string): Promise<number | null>;
  /**
   * Counts one callback that carried a signature header but was not verified (a wrong signature, an unknown key, a
   * body refused), against its address and the API key it named together (ANONYMOUS_RATE_LIMIT_PER_MINUTE of them):
   * what one tenant's wrong token costs never refuses another tenant's callbacks from the provider's shared address.
   */
  failedCallback(address: string, apiKey: string): Promise<number | null>;
  /** Whether this address and key have spent that budget, without counting: the seconds to wait, or null. */
  failedCallbacksSpent(address: string, apiKey: string): Promise<number | null>;
  /**
   * Counts a request body of `bytes` against the tenant's budget of large bodies (those over LARGE_BODY_BYTES; the
   * rest are free); the same answer as `request`.
   */
  bodyBytes(tenant: string, bytes: number): Promise<number | null>;
  /**
   * Counts one token request from this address as it arrives (ANONYMOUS_RATE_LIMIT_PER_MINUTE of them, held against
   * it until it succeeds: `oauthTokenGranted`); the same answer as `request`. Only what fails stays counted against
   * the address, so that a platform's backend, which exchanges and refreshes the tokens of all its users from a few
   * addresses, is limited by its client's budget instead.
   */
  oauthTokenAttempt(address: string): Promise<number | null>;
  /**
   * A token request that succeeded: its point is given back to its address, and it counts against its client's
   * budget (OAUTH_CLIENT_REQUESTS_PER_MINUTE) — which only tokens granted spend, so that nobody can spend a client's
   * budget with requests that merely name it.
   */
  oauthTokenGranted(address: string, clientId: string): Promise<void>;
  /** Whether this client has spent its budget, without counting: the seconds to wait, or null. */
  oauthClientSpent(clientId: string): Promise<number | null>;
  /**
   * Counts a login attempt for this e-mail from this client address before the password is checked (so parallel
   * guesses count too): null when it may go ahead, else the seconds before it may try again. A success then clears
   * the count. The lock is keyed by both, so that nobody can lock another person out from their own address; across
   * addresses an e-mail is only slowed down (LOGIN_SLOWDOWN_AFTER_ATTEMPTS, LOGIN_SLOWDOWN_INTERVAL_SECONDS), never
   * locked. A refusal is answered after REFUSAL_DELAY_MS (see REFUSALS_HELD_AT_ONCE).
   */
  loginAttempt(email: string, address: string): Promise<number | null>;
  /**
   * Waits REFUSAL_DELAY_MS before a refusal is answered (at once past REFUSALS_HELD_AT_ONCE held): a client that
   * sends its next request as soon as the last is answered is slowed to a few a second, not as many as the event
   * loop can refuse. Off the loop meanwhile (the request holds nothing but its connection).
   */
  holdRefusal(): Promise<void>;
  loginSucceeded(email: string, address: string): Promise<void>;
}

/**
 * Login attempts of one e-mail, from any addresses, within LOGIN_FAILURE_WINDOW_SECONDS after which that e-mail is
 * slowed down: a guesser spread over many addresses (each locked only for itself) gets no more than one guess every
 * LOGIN_SLOWDOWN_INTERVAL_SECONDS, while the owner, elsewhere, waits seconds rather than the window.
 */
export const LOGIN_SLOWDOWN_AFTER_ATTEMPTS = 10;
/** Once an e-mail is slowed down, at most one attempt for it goes ahead per this many seconds (429 with the rest). */
export const LOGIN_SLOWDOWN_INTERVAL_SECONDS = 2;
/**
 * An address the e-mail signed up or logged in from successfully is known to it for this long (20 days: the memory
 * store keeps each key with a timer, and Node's timers hold at most 24.8 days): its attempts
 * are never slowed down by the e-mail's slow-down — a guesser spread over many addresses cannot keep the owner out
 * from where the owner usually logs in — though its own lock (LOGIN_MAX_FAILURES from that address) still holds.
 */
export const LOGIN_KNOWN_ADDRESS_SECONDS = 20 * 24 * 3600;

/**
 * A refusal — a refused login attempt, a 429 for a spent rate or budget — is answered only after REFUSAL_DELAY_MS,
 * holding nothing but its connection (the request is off the event loop meanwhile): a client that sends its next
 * request when the last is answered — a guesser from a new address each time, so that no per-address limit ever
 * applies; a flood of 0.9 MB bodies, each refused 429 — gets a few answers a second per connection, rather than as
 * many as the event loop can refuse, which took a third of it from every other tenant (issue 52's login-lockout and
 * bodies cases). At most this many are held at once, so that holding cannot itself be what runs out: past it,
 * refusals are answered at once.
 */
export const REFUSALS_HELD_AT_ONCE = 1000;

/** Bodies up to this size are not counted against the large-body budget. */
export const LARGE_BODY_BYTES = 64 * 1024;
/** The large-body budget is counted in units of this many bytes. */
const BODY_UNIT = 16 * 1024;

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** null when the point was granted, else the seconds before the next one. */
async function consume(limiter: RateLimiterAbstract, key: string, points = 1): Promise<number | null> {
  try {
    await limiter.consume(key, points);
    return null;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return secondsOf(rejection.msBeforeNext);
    throw rejection;
  }
}

/** The limiter to ask now: Redis's while it is there (the memory one insures a command that fails), else memory's. */
function limiter(
  redis: RedisLink | null,
  keyPrefix: string,
  points: number,
  duration: number,
): () => RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration });
  if (!redis) return () => memory;
  const shared = new RateLimiterRedis({
    storeClient: redis.command,
    keyPrefix: `gateway:${keyPrefix}`,
    points,
    duration,
    insuranceLimiter: memory,
  });
  return () => (redis.available ? shared : memory);
}

export function createRateLimits(settings: RateLimitSettings, redis: RedisLink | null): RateLimits {
  const requests = limiter(redis, 'requests', settings.requestsPerMinute, 60);
  const anonymous = limiter(redis, 'anonymous', settings.anonymousPerMinute, 60);
  const callbacks = limiter(redis, 'callbacks', settings.callbacksPerMinute, 60);
  const failedCallbacks = limiter(redis, 'failed-callbacks', settings.anonymousPerMinute, 60);
  const oauthClients = limiter(redis, 'oauth-clients', settings.oauthClientPerMinute, 60);
  const oauthAttempts = limiter(redis, 'oauth-token-attempts', settings.anonymousPerMinute, 60);
  const bodies = limiter(redis, 'large-bodies', (settings.largeBodyMiBPerMinute * 1024 * 1024) / BODY_UNIT, 60);
  const logins = limiter(redis, 'login-failures', settings.loginMaxFailures, settings.loginWindowSeconds);
  const key = (email: string, address: string) => JSON.stringify([email.trim().toLowerCase(), address]);
  // Across addresses: the attempts of one e-mail in the window, and once past LOGIN_SLOWDOWN_AFTER_ATTEMPTS a pace of
  // one attempt per interval. The counter is never refused by itself: only its count is read.
  const emailAttempts = limiter(redis, 'login-email-attempts', Number.MAX_SAFE_INTEGER, settings.loginWindowSeconds);
  const emailPace = limiter(redis, 'login-email-pace', 1, LOGIN_SLOWDOWN_INTERVAL_SECONDS);
  const emailKey = (email: string) => email.trim().toLowerCase();
  const knownAddresses = limiter(redis, 'login-known-addresses', 1, LOGIN_KNOWN_ADDRESS_SECONDS);
  const heldAtOnce = settings.refusalsHeldAtOnce ?? REFUSALS_HELD_AT_ONCE;
  let held = 0;
  /** After the delay (at once when the delay is 0 or too many are held already). */
  const holdRefusal = async (): Promise<void> => {
    if (settings.refusalDelayMs <= 0 || held >= heldAtOnce) return;
    held += 1;
    try {
      await offLoop(new Promise((resolve) => setTimeout(resolve, settings.refusalDelayMs)));
    } finally {
      held -= 1;
    }
  };
  /** The refusal `wait`, answered after the delay. */
  const refusedAfterDelay = async (wait: number): Promise<number> => {
    await holdRefusal();
    return wait;
  };
  /** Seconds left of a count that has reached `max` points, else null (a limiter that fails answers null). */
  const spent = async (counter: RateLimiterAbstract, key: string, max: number) => {
    const counted = await counter.get(key).catch(() => undefined);
    return counted && counted.consumedPoints >= max ? secondsOf(counted.msBeforeNext) : null;
  };

  return {
    holdRefusal,
    request: (accountId) => consume(requests(), accountId),
    anonymousRequest: (address) => consume(anonymous(), address),
    callback: (accountId) => consume(callbacks(), accountId),
    failedCallback: (address, apiKey) => consume(failedCallbacks(), JSON.stringify([address, apiKey])),
    failedCallbacksSpent: (address, apiKey) =>
      spent(failedCallbacks(), JSON.stringify([address, apiKey]), settings.anonymousPerMinute),
    oauthTokenAttempt: (address) => consume(oauthAttempts(), address),
    async oauthTokenGranted(address, clientId) {
      // Never below nothing: a point counted in a window that has ended since is not given back into the next one.
      const attempts = oauthAttempts();
      const counted = await attempts.get(address).catch(() => undefined);
      if (counted && counted.consumedPoints > 0) await attempts.reward(address).catch(() => undefined);
      // Counted even past the budget (a token granted is granted): the client's next request is refused instead.
      await consume(oauthClients(), clientId).catch(() => undefined);
    },
    oauthClientSpent: (clientId) => spent(oauthClients(), clientId, settings.oauthClientPerMinute),
    bodyBytes: (tenant, bytes) =>
      bytes > LARGE_BODY_BYTES ? consume(bodies(), tenant, Math.ceil(bytes / BODY_UNIT)) : Promise.resolve(null),
    async loginAttempt(email, address) {
      // In this order, so that an attempt refused for one reason spends nothing of another: an address locked for
      // this e-mail takes no slot of the e-mail's pace, and an attempt refused by the pace does not count towards the
      // address's lock (an owner retrying during a slow-down is not locked out by it).
      const locked = await spent(logins(), key(email, address), settings.loginMaxFailures);
      if (locked !== null) return refusedAfterDelay(locked);
      const slowed = (await spent(emailAttempts(), emailKey(email), LOGIN_SLOWDOWN_AFTER_ATTEMPTS)) !== null;
      if (slowed && (await spent(knownAddresses(), key(email, address), 1)) === null) {
        const wait = await consume(emailPace(), emailKey(email));
        if (wait !== null) return refusedAfterDelay(wait);
      }
      const wait = await consume(logins(), key(email, address));
      if (wait !== null) return refusedAfterDelay(wait);
      await consume(emailAttempts(), emailKey(email));
      return null;
    },
    async loginSucceeded(email, address) {
      await logins()
        .delete(key(email, address))
        .catch(() => undefined);
      // Known from now on (again for LOGIN_KNOWN_ADDRESS_SECONDS): never slowed down by the e-mail's slow-down.
      await knownAddresses()
        .set(key(email, address), 1, LOGIN_KNOWN_ADDRESS_SECONDS)
        .catch(() => undefined);
      // The owner's own successful attempt does not bring the slow-down closer (nor push it further off: never below 0).
      const attempts = emailAttempts();
      const counted = await attempts.get(emailKey(email)).catch(() => undefined);
      if (counted && counted.consumedPoints > 0) await attempts.reward(emailKey(email)).catch(() => undefined);
    },
  };
}
