// The credential check a hot read carries (src/db/credential-check.ts): the values its placeholders take, and how its
// column's answer is read on either database. The statement itself is tested where it runs
// (test/http/provisional-credentials.test.ts, test/domain/reusable-query.test.ts).
import { describe, expect, it } from 'vitest';
import type { CredentialCheck } from '../../src/core/request-context.js';
import { credentialStood, credentialValue } from '../../src/db/credential-check.js';

describe('credentialValue', () => {
  it("gives each placeholder the check's own value", () => {
    const check: CredentialCheck = {
      accountId: 'acc_1',
      tokenVersion: 3,
      accessToken: { tokenId: 'tok_1', tokenHash: 'ab'.repeat(32) },
    };
    expect(credentialValue(check, 'accountId')).toBe('acc_1');
    expect(credentialValue(check, 'tokenVersion')).toBe(3);
    expect(credentialValue(check, 'tokenId')).toBe('tok_1');
    expect(credentialValue(check, 'tokenHash')).toBe('ab'.repeat(32));
  });

  it('has no token values for a login token', () => {
    const check: CredentialCheck = { accountId: 'acc_1', tokenVersion: 0 };
    expect(credentialValue(check, 'tokenVersion')).toBe(0);
    expect(credentialValue(check, 'tokenId')).toBeUndefined();
    expect(credentialValue(check, 'tokenHash')).toBeUndefined();
  });
});

describe('credentialStood', () => {
  it('is true for what PostgreSQL (true) and SQLite (1) answer when the credential stands', () => {
    expect(credentialStood(true)).toBe(true);
    expect(credentialStood(1)).toBe(true);
  });

  it.each([false, 0, null, undefined, '1', 't', 'true', 2])('is false for %j', (value) => {
    expect(credentialStood(value)).toBe(false);
  });
});
