// The access-token verifier: a token it has verified (and remembers) stops being accepted at its expiry.
import { afterEach, expect, it, vi } from 'vitest';
import { createTokenIssuer } from '../../src/security/tokens.js';

const SECRET = 'a-secret-of-at-least-thirty-two-chars!';

afterEach(() => vi.useRealTimers());

it('a verified, remembered token is refused once past its exp', () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  const issuer = createTokenIssuer(SECRET, 60);
  const { token, expiresIn } = issuer.issue('acc_1', 3);
  expect(expiresIn).toBe(60);
  expect(issuer.verify(token)).toEqual({
    accountId: 'acc_1',
    version: 3,
    expiresAt: Date.parse('2026-01-01T00:01:00Z'),
  });
  vi.setSystemTime(new Date('2026-01-01T00:00:59.999Z'));
  expect(issuer.verify(token)?.accountId).toBe('acc_1'); // from memory
  vi.setSystemTime(new Date('2026-01-01T00:01:00Z')); // exactly exp: expired, as jsonwebtoken counts it
  expect(issuer.verify(token)).toBeNull();
  vi.setSystemTime(new Date('2026-01-01T00:01:01Z'));
  expect(issuer.verify(token)).toBeNull();
  expect(issuer.verify(token)).toBeNull();
});

it('a token used many times is still refused past exp (memory does not outlive the token)', () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  const issuer = createTokenIssuer(SECRET, 60);
  const { token } = issuer.issue('acc_1', 0);
  for (let second = 0; second < 60; second += 10) {
    vi.setSystemTime(new Date(Date.parse('2026-01-01T00:00:00Z') + second * 1000));
    expect(issuer.verify(token)?.accountId).toBe('acc_1');
  }
  vi.setSystemTime(new Date('2026-01-01T01:00:00Z'));
  expect(issuer.verify(token)).toBeNull();
});

it('a token never verified before is refused past exp too', () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  const issuer = createTokenIssuer(SECRET, 60);
  const { token } = issuer.issue('acc_1', 0);
  vi.setSystemTime(new Date('2026-01-01T00:01:01Z'));
  expect(issuer.verify(token)).toBeNull();
});

it('refuses tokens signed with another secret, and garbage', () => {
  const issuer = createTokenIssuer(SECRET, 60);
  const other = createTokenIssuer('another-secret-of-at-least-thirty-two!', 60);
  expect(issuer.verify(other.issue('acc_1', 0).token)).toBeNull();
  expect(issuer.verify('not.a.token')).toBeNull();
});
