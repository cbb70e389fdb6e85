// Masking secrets in error messages (src/security/redact.ts): whole quoted strings only, in one scan of the text.
import { describe, expect, test } from 'vitest';
import { redactSecrets, secretScrubber, secretValues } from '../../src/security/redact.js';

const SECRET_NAMES = new Set(['password', 'telephonyAuthToken']);

describe('secretScrubber', () => {
  test('masks each secret where the text quotes it, JSON-escaped too, and nothing else', () => {
    const secrets = ['hunter2-secret', 'q"uo\\te\nd-secret', 'a'];
    const scrub = secretScrubber(secrets);
    const text = `got "hunter2-secret" and ${JSON.stringify('q"uo\\te\nd-secret')}; a plain a, a quoted "a", "other"`;
    expect(scrub(text)).toBe('got "****cret" and "****cret"; a plain a, a quoted "****", "other"');
  });

  test('no secrets: the text as it is; many secrets: still one scan', () => {
    expect(secretScrubber([])('"x"')).toBe('"x"');
    const many = Array.from({ length: 100_000 }, (_, i) => `secret-${i}`);
    const scrub = secretScrubber(many);
    expect(scrub('"secret-99999" and "secret-x"')).toBe('"****9999" and "secret-x"');
  });
});

describe('secretValues and redactSecrets', () => {
  test('find and mask the strings under secret names, at any depth', () => {
    const input = { a: { password: 'pw-123456', list: [{ telephonyAuthToken: 'tok-abcdef' }] }, note: 'plain' };
    expect(secretValues(input, SECRET_NAMES).sort()).toEqual(['pw-123456', 'tok-abcdef']);
    expect(redactSecrets(input, SECRET_NAMES)).toEqual({
      a: { password: '****3456', list: [{ telephonyAuthToken: '****cdef' }] },
      note: 'plain',
    });
  });
});
