// The rate limits' arithmetic and keys (src/security/rate-limits.ts): what a refusal says to wait, which bodies count
// against the large-body budget and in what units, and the Redis keys the counts live under (instances of different
// builds share them, so they are part of the contract).
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.js';
import { connectRedis, type RedisLink } from '../../src/core/redis.js';
import {
  createRateLimits,
  LARGE_BODY_BYTES,
  LOGIN_KNOWN_ADDRESS_SECONDS,
  LOGIN_SLOWDOWN_AFTER_ATTEMPTS,
  LOGIN_SLOWDOWN_INTERVAL_SECONDS,
  type RateLimitSettings,
} from '../../src/security/rate-limits.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Attempts for `email` from `count` addresses never seen before (`prefix` keeps them apart from other tests'). */
async function attemptsFromNewAddresses(
  limits: ReturnType<typeof createRateLimits>,
  email: string,
  prefix: string,
  count: number,
): Promise<Array<number | null>> {
  const answers: Array<number | null> = [];
  for (let i = 0; i < count; i += 1) answers.push(await limits.loginAttempt(email, `${prefix}.${i}`));
  return answers;
}

const SETTINGS: RateLimitSettings = {
  requestsPerMinute: 2,
  anonymousPerMinute: 2,
  callbacksPerMinute: 100,
  largeBodyMiBPerMinute: 1,
  oauthClientPerMinute: 3,
  loginMaxFailures: 2,
  loginWindowSeconds: 300,
  refusalDelayMs: 0,
};

describe('in memory', () => {
  it('a refused request is told to wait the rest of the window, in whole seconds (at least 1)', async () => {
    const limits = createRateLimits(SETTINGS, null);
    expect(await limits.request('acc_1')).toBeNull();
    expect(await limits.request('acc_1')).toBeNull();
    const wait = await limits.request('acc_1');
    expect(wait).toBeGreaterThanOrEqual(59);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await limits.request('acc_2')).toBeNull(); // per account
  });

  it('login attempts are counted per e-mail (however it is spelt) and address, over their own window', async () => {
    const limits = createRateLimits(SETTINGS, null);
    expect(await limits.loginAttempt('alice@example.com', '10.0.0.1')).toBeNull();
    expect(await limits.loginAttempt(' ALICE@example.com ', '10.0.0.1')).toBeNull();
    const wait = await limits.loginAttempt('Alice@Example.com', '10.0.0.1');
    expect(wait).toBeGreaterThan(290);
    expect(wait).toBeLessThanOrEqual(300);
    expect(await limits.loginAttempt('alice@example.com', '10.0.0.2')).toBeNull(); // another address
    await limits.loginSucceeded('ALICE@EXAMPLE.COM', '10.0.0.1');
    expect(await limits.loginAttempt('alice@example.com', '10.0.0.1')).toBeNull(); // a success clears the count
  });

  it('a refused login attempt is answered after the delay, but never more than so many are held at once', async () => {
    const limits = createRateLimits({ ...SETTINGS, refusalDelayMs: 300, refusalsHeldAtOnce: 2 }, null);
    const timedAttempt = async () => {
      const began = performance.now();
      const wait = await limits.loginAttempt('alice@example.com', '10.0.0.1');
      return { wait, ms: performance.now() - began };
    };
    // Allowed attempts are not held.
    for (let i = 0; i < SETTINGS.loginMaxFailures; i += 1) {
      const allowed = await timedAttempt();
      expect(allowed.wait).toBeNull();
      expect(allowed.ms).toBeLessThan(250);
    }
    // Locked now: three refusals at once; two are held for the delay, the third (past the cap) answered at once.
    const refused = await Promise.all([timedAttempt(), timedAttempt(), timedAttempt()]);
    for (const { wait } of refused) expect(wait).toBeGreaterThan(290);
    const times = refused.map(({ ms }) => ms).sort((a, b) => a - b);
    expect(times[0]).toBeLessThan(250);
    expect(times[1]).toBeGreaterThanOrEqual(290);
    expect(times[2]).toBeGreaterThanOrEqual(290);
    // Once they are answered, the next refusal is held again.
    expect((await timedAttempt()).ms).toBeGreaterThanOrEqual(290);
  });

  it('with no delay, a refused login is answered at once: before a timer set just before it fires', async () => {
    const limits = createRateLimits(SETTINGS, null);
    for (let i = 0; i < SETTINGS.loginMaxFailures; i += 1) await limits.loginAttempt('bob@example.com', '10.0.0.1');
    const timer = new Promise((resolve) => setTimeout(() => resolve('timer'), 0));
    const first = await Promise.race([limits.loginAttempt('bob@example.com', '10.0.0.1'), timer]);
    expect(first).toBeGreaterThan(290);
  });

  it("the e-mail's slow-down counts the e-mail however it is spelt, from any address", async () => {
    const limits = createRateLimits(SETTINGS, null);
    const spellings = ['carol@example.com', ' CAROL@example.com', 'Carol@Example.Com '];
    for (let i = 0; i < LOGIN_SLOWDOWN_AFTER_ATTEMPTS; i += 1) {
      expect(await limits.loginAttempt(spellings[i % 3]!, `10.1.0.${i}`)).toBeNull();
    }
    // Slowed down now: one attempt per interval goes ahead, whatever the spelling; the next is told to wait.
    expect(await limits.loginAttempt('CAROL@EXAMPLE.COM', '10.1.1.1')).toBeNull();
    const wait = await limits.loginAttempt('carol@example.com', '10.1.1.2');
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(LOGIN_SLOWDOWN_INTERVAL_SECONDS);
  });

  it("an address locked for the e-mail takes no slot of the e-mail's pace", async () => {
    const limits = createRateLimits(SETTINGS, null);
    const email = 'dave@example.com';
    // Locked from 10.2.0.1 (2 failures), and slowed down across addresses (10 attempts in all).
    await attemptsFromNewAddresses(limits, email, '10.2.1', LOGIN_SLOWDOWN_AFTER_ATTEMPTS - SETTINGS.loginMaxFailures);
    for (let i = 0; i < SETTINGS.loginMaxFailures; i += 1)
      expect(await limits.loginAttempt(email, '10.2.0.1')).toBeNull();
    expect(await limits.loginAttempt(email, '10.2.0.1')).toBeGreaterThan(290);
    // The locked address's refusal left the pace's slot to the next address.
    expect(await limits.loginAttempt(email, '10.2.2.1')).toBeNull();
  });

  it('an attempt let through by the pace counts towards its address’s lock', async () => {
    const limits = createRateLimits(SETTINGS, null);
    const email = 'erin@example.com';
    await attemptsFromNewAddresses(limits, email, '10.3.1', LOGIN_SLOWDOWN_AFTER_ATTEMPTS);
    expect(await limits.loginAttempt(email, '10.3.0.1')).toBeNull();
    await sleep(LOGIN_SLOWDOWN_INTERVAL_SECONDS * 1000 + 50);
    expect(await limits.loginAttempt(email, '10.3.0.1')).toBeNull();
    // Two failures from 10.3.0.1: locked for the window, not merely paced.
    expect(await limits.loginAttempt(email, '10.3.0.1')).toBeGreaterThan(290);
  });

  it("the owner's success (or sign-up) does not bring the slow-down closer", async () => {
    const limits = createRateLimits(SETTINGS, null);
    const email = 'frank@example.com';
    // Signed up from 10.4.0.1: known there, and nothing counted against the e-mail (never below nothing either).
    await limits.loginSucceeded(email, '10.4.0.1');
    await attemptsFromNewAddresses(limits, email, '10.4.1', LOGIN_SLOWDOWN_AFTER_ATTEMPTS - 1);
    // The owner logs in (an attempt, then its success): the e-mail's count stays where it was.
    expect(await limits.loginAttempt(email, '10.4.0.2')).toBeNull();
    await limits.loginSucceeded(email, '10.4.0.2');
    // One more attempt reaches the threshold (not slowed yet); the next is the pace's; the one after waits.
    expect(await attemptsFromNewAddresses(limits, email, '10.4.2', 2)).toEqual([null, null]);
    expect(await limits.loginAttempt(email, '10.4.3.1')).toBeGreaterThanOrEqual(1);
  });

  it('failed callbacks count per address and API key; asking whether they are spent counts nothing', async () => {
    const limits = createRateLimits(SETTINGS, null);
    for (let i = 0; i < 5; i += 1) expect(await limits.failedCallbacksSpent('10.5.0.1', 'key-a')).toBeNull();
    expect(await limits.failedCallback('10.5.0.1', 'key-a')).toBeNull();
    expect(await limits.failedCallbacksSpent('10.5.0.1', 'key-a')).toBeNull();
    expect(await limits.failedCallback('10.5.0.1', 'key-a')).toBeNull();
    // Spent (2 a minute in these settings): for this address and key only.
    const wait = await limits.failedCallbacksSpent('10.5.0.1', 'key-a');
    expect(wait).toBeGreaterThanOrEqual(59);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await limits.failedCallbacksSpent('10.5.0.1', 'key-b')).toBeNull();
    expect(await limits.failedCallbacksSpent('10.5.0.2', 'key-a')).toBeNull();
    expect(await limits.failedCallback('10.5.0.1', 'key-a')).toBeGreaterThanOrEqual(59);
  });

  it('OAuth token requests count against their address until granted, then against their client', async () => {
    const limits = createRateLimits(SETTINGS, null); // 2 anonymous a minute per address, 3 granted per client
    expect(await limits.oauthTokenAttempt('10.6.0.1')).toBeNull();
    expect(await limits.oauthTokenAttempt('10.6.0.1')).toBeNull();
    const wait = await limits.oauthTokenAttempt('10.6.0.1');
    expect(wait).toBeGreaterThanOrEqual(59);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await limits.oauthTokenAttempt('10.6.0.2')).toBeNull(); // per address
    // Granted: the address gets its point back (one more attempt goes through), the client spends one of its 3.
    await limits.oauthTokenGranted('10.6.0.3', 'client-a');
    expect(await limits.oauthTokenAttempt('10.6.0.3')).toBeNull();
    expect(await limits.oauthTokenAttempt('10.6.0.3')).toBeNull();
    await limits.oauthTokenGranted('10.6.0.3', 'client-a');
    expect(await limits.oauthTokenAttempt('10.6.0.3')).toBeNull();
    expect(await limits.oauthTokenAttempt('10.6.0.3')).toBeGreaterThanOrEqual(59);
    expect(await limits.oauthClientSpent('client-a')).toBeNull();
    await limits.oauthTokenGranted('10.6.0.4', 'client-a');
    const spent = await limits.oauthClientSpent('client-a');
    expect(spent).toBeGreaterThanOrEqual(59);
    expect(spent).toBeLessThanOrEqual(60);
    expect(await limits.oauthClientSpent('client-b')).toBeNull();
    // Asking counts nothing; attempts that merely name a client never spend it.
    for (let i = 0; i < 5; i += 1) expect(await limits.oauthClientSpent('client-b')).toBeNull();
    // Not the address's anonymous budget either.
    expect(await limits.anonymousRequest('10.6.0.1')).toBeNull();
  });

  it('a token granted gives its point back, never below nothing', async () => {
    const limits = createRateLimits(SETTINGS, null); // 2 a minute per address
    expect(await limits.oauthTokenAttempt('10.6.1.1')).toBeNull();
    await limits.oauthTokenGranted('10.6.1.1', 'client-c');
    // Nothing left to give back: a second grant (its attempt counted in an earlier minute) gives nothing.
    await limits.oauthTokenGranted('10.6.1.1', 'client-c');
    expect(await limits.oauthTokenAttempt('10.6.1.1')).toBeNull();
    expect(await limits.oauthTokenAttempt('10.6.1.1')).toBeNull();
    expect(await limits.oauthTokenAttempt('10.6.1.1')).toBeGreaterThanOrEqual(59);
  });

  it("the owner's successes never take the e-mail's count below nothing", async () => {
    const limits = createRateLimits(SETTINGS, null);
    const email = 'gina@example.com';
    expect(await limits.loginAttempt(email, '10.7.0.1')).toBeNull();
    await limits.loginSucceeded(email, '10.7.0.1');
    await limits.loginSucceeded(email, '10.7.0.1');
    await attemptsFromNewAddresses(limits, email, '10.7.1', LOGIN_SLOWDOWN_AFTER_ATTEMPTS);
    // Slowed down now: the next attempt from a new address takes the pace's slot, the one after waits.
    expect(await limits.loginAttempt(email, '10.7.2.1')).toBeNull();
    expect(await limits.loginAttempt(email, '10.7.2.2')).toBeGreaterThanOrEqual(1);
  });

  it('bodies up to LARGE_BODY_BYTES are free', async () => {
    const limits = createRateLimits({ ...SETTINGS, largeBodyMiBPerMinute: 0.25 }, null);
    for (let i = 0; i < 100; i += 1) expect(await limits.bodyBytes('acc_1', LARGE_BODY_BYTES)).toBeNull();
    expect(await limits.bodyBytes('acc_1', LARGE_BODY_BYTES + 1)).toBeNull(); // the first that counts
  });

  it('larger ones count in units of 16 KiB, rounded up, against the budget in MiB per minute', async () => {
    const limits = createRateLimits(SETTINGS, null); // 1 MiB: 64 units
    // 64 KiB + 1 byte is 5 units: 12 such bodies (60 units) pass, the 13th (65) does not.
    for (let i = 0; i < 12; i += 1) expect(await limits.bodyBytes('acc_1', LARGE_BODY_BYTES + 1)).toBeNull();
    expect(await limits.bodyBytes('acc_1', LARGE_BODY_BYTES + 1)).toBeGreaterThanOrEqual(59);
    // A whole MiB is the whole budget: nothing more fits after it.
    expect(await limits.bodyBytes('acc_2', 1024 * 1024)).toBeNull();
    expect(await limits.bodyBytes('acc_2', LARGE_BODY_BYTES + 1)).not.toBeNull();
  });
});

// Redis runs beside the tests (as for test/http/limits.test.ts).
describe('in Redis', () => {
  let redis: RedisLink | undefined;
  afterAll(async () => {
    await redis?.close();
  });

  it('each count lives under gateway:<limiter>:<key>, the login one keyed by the e-mail in lower case', async () => {
    redis = await connectRedis('redis://127.0.0.1:6379', createLogger('silent'), { commandTimeoutMs: 2000 });
    const limits = createRateLimits(SETTINGS, redis);
    const id = `acc_${randomBytes(6).toString('hex')}`;
    const email = `${id}@example.com`;
    await limits.request(id);
    await limits.anonymousRequest(`addr-${id}`);
    await limits.bodyBytes(`tenant-${id}`, LARGE_BODY_BYTES + 1);
    await limits.loginAttempt(` ${email.toUpperCase()} `, '10.0.0.1');
    await limits.callback(id);
    await limits.failedCallback(`addr-${id}`, `key-${id}`);
    await limits.oauthTokenAttempt(`addr-${id}`);
    await limits.oauthTokenGranted(`other-${id}`, `client-${id}`);
    const keys = [
      `gateway:oauth-clients:client-${id}`,
      `gateway:oauth-token-attempts:addr-${id}`,
      `gateway:requests:${id}`,
      `gateway:anonymous:addr-${id}`,
      `gateway:large-bodies:tenant-${id}`,
      `gateway:login-failures:${JSON.stringify([email, '10.0.0.1'])}`,
      `gateway:login-email-attempts:${email}`,
      `gateway:callbacks:${id}`,
      `gateway:failed-callbacks:${JSON.stringify([`addr-${id}`, `key-${id}`])}`,
    ];
    for (const key of keys) expect(await redis.command.get(key), key).toBe(key.includes('large-bodies') ? '5' : '1');
    // Past the slow-down's threshold, the pace is counted per e-mail too.
    for (let i = 1; i < LOGIN_SLOWDOWN_AFTER_ATTEMPTS; i += 1) await limits.loginAttempt(email, `10.0.1.${i}`);
    await limits.loginAttempt(email.toUpperCase(), '10.0.2.1');
    expect(await redis.command.get(`gateway:login-email-pace:${email}`)).toBe('1');
    // A success makes its address known to the e-mail for LOGIN_KNOWN_ADDRESS_SECONDS (20 days).
    await limits.loginSucceeded(email.toUpperCase(), '10.0.3.1');
    const known = `gateway:login-known-addresses:${JSON.stringify([email, '10.0.3.1'])}`;
    expect(await redis.command.get(known)).toBe('1');
    expect(LOGIN_KNOWN_ADDRESS_SECONDS).toBe(20 * 24 * 3600);
    expect(await redis.command.ttl(known)).toBeGreaterThan(LOGIN_KNOWN_ADDRESS_SECONDS - 60);
    await redis.command.del(
      ...keys,
      `gateway:login-email-pace:${email}`,
      known,
      ...Array.from({ length: LOGIN_SLOWDOWN_AFTER_ATTEMPTS }, (_, i) => [
        `gateway:login-failures:${JSON.stringify([email, `10.0.1.${i}`])}`,
      ]).flat(),
      `gateway:login-failures:${JSON.stringify([email, '10.0.2.1'])}`,
    );
  });
});
