// The rate limits' arithmetic and keys (src/security/rate-limits.ts): what a refusal says to wait, which bodies count
// against the large-body budget and in what units, and the Redis keys the counts live under (instances of different
// builds share them, so they are part of the contract).
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.js';
import { connectRedis, type RedisLink } from '../../src/core/redis.js';
import { createRateLimits, LARGE_BODY_BYTES, type RateLimitSettings } from '../../src/security/rate-limits.js';

const SETTINGS: RateLimitSettings = {
  requestsPerMinute: 2,
  anonymousPerMinute: 2,
  callbacksPerMinute: 100,
  largeBodyMiBPerMinute: 1,
  loginMaxFailures: 2,
  loginWindowSeconds: 300,
  loginRefusalDelayMs: 0,
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
    const limits = createRateLimits({ ...SETTINGS, loginRefusalDelayMs: 300, loginRefusalsHeldAtOnce: 2 }, null);
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
    const keys = [
      `gateway:requests:${id}`,
      `gateway:anonymous:addr-${id}`,
      `gateway:large-bodies:tenant-${id}`,
      `gateway:login-failures:${JSON.stringify([email, '10.0.0.1'])}`,
    ];
    for (const key of keys) expect(await redis.command.get(key), key).toBe(key.includes('large-bodies') ? '5' : '1');
    await redis.command.del(...keys);
  });
});
