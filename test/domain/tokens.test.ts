// The access-token verifier: a token it has verified (and remembers) stops being accepted at its expiry.
import { afterEach, expect, it, vi } from 'vitest';
import { createTokenIssuer } from '../../src/security/tokens.js';

afterEach(() => vi.useRealTimers());

it('a verified, remembered token is refused once past its exp', () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  const issuer = createTokenIssuer('a-secret-of-at-least-thirty-two-chars!', 60);
  const { token } = issuer.issue('acc_1', 3);
  expect(issuer.verify(token)).toMatchObject({ accountId: 'acc_1', version: 3 });
  vi.setSystemTime(new Date('2026-01-01T00:00:59Z'));
  expect(issuer.verify(token)?.accountId).toBe('acc_1'); // from memory
  vi.setSystemTime(new Date('2026-01-01T00:01:01Z'));
  expect(issuer.verify(token)).toBeNull();
  expect(issuer.verify(token)).toBeNull();
});

it('refuses tokens signed with another secret, and garbage', () => {
  const issuer = createTokenIssuer('a-secret-of-at-least-thirty-two-chars!', 60);
  const other = createTokenIssuer('another-secret-of-at-least-thirty-two!', 60);
  expect(issuer.verify(other.issue('acc_1', 0).token)).toBeNull();
  expect(issuer.verify('not.a.token')).toBeNull();
});
