// Masking secrets in error messages (src/security/redact.ts): whole quoted strings only, in one scan of the text.
import { describe, expect, test } from 'vitest';
import { redactSecrets, secretScrubber, secretValues } from '../../src/security/redact.js';

const SECRET_NAMES = new Set(['password', 'telephonyAuthToken']);

describe('secretScrubber', () => {
  test('masks each secret where the text quotes it, JSON-escaped too, and nothing else', () => {
    const secrets = ['hunter2-secret', 'q"uo\\te\nd-secret', 'a'];
    const scrub = secretScrubber(secrets);
    const text = `got "hunter2-secret" and ${JSON.stringify('q"uo\\te\nd-secret')}; a plain a, a quoted "a", "other"`;
    expect(scrub(text)).toBe('got "****" and "****"; a plain a, a quoted "****", "other"');
  });

  test('no secrets: the text as it is; many secrets: still one scan', () => {
    expect(secretScrubber([])('"x"')).toBe('"x"');
    const many = Array.from({ length: 100_000 }, (_, i) => `secret-${i}`);
    const scrub = secretScrubber(many);
    expect(scrub('"secret-99999" and "secret-x"')).toBe('"****" and "secret-x"');
  });
});

describe('secretValues and redactSecrets', () => {
  test('find and mask the strings under secret names, at any depth', () => {
    const input = { a: { password: 'pw-123456', list: [{ telephonyAuthToken: 'tok-abcdef' }] }, note: 'plain' };
    expect(secretValues(input, SECRET_NAMES).sort()).toEqual(['pw-123456', 'tok-abcdef']);
    expect(redactSecrets(input, SECRET_NAMES)).toEqual({
      a: { password: '****', list: [{ telephonyAuthToken: '****' }] },
      note: 'plain',
    });
  });
});

describe('what is not a secret string, and how deep inputs are walked', () => {
  /** `levels` objects, each under the key `a` of the one before, the innermost holding `leaf`. */
  const nested = (levels: number, leaf: object): object => {
    let value: object = leaf;
    for (let i = 0; i < levels; i += 1) value = { a: value };
    return value;
  };
  const nestedArrays = (levels: number, leaf: unknown): unknown => {
    let value = leaf;
    for (let i = 0; i < levels; i += 1) value = [value];
    return value;
  };

  test('numbers, booleans, null and undefined are kept as they are, under secret names too', () => {
    const input = {
      n: 5,
      b: false,
      z: null,
      u: undefined,
      password: 7,
      list: [1, null, true],
      telephonyAuthToken: null,
    };
    expect(redactSecrets(input, SECRET_NAMES)).toEqual(input);
    expect(secretValues(input, SECRET_NAMES)).toEqual([]);
    expect(redactSecrets(null, SECRET_NAMES)).toBeNull();
    expect(redactSecrets(42, SECRET_NAMES, true)).toBe(42);
  });

  test('only non-empty strings under secret names are secret values', () => {
    expect(secretValues({ password: '', note: 'plain', list: ['x'] }, SECRET_NAMES)).toEqual([]);
    expect(secretValues({ password: ['a', ''] }, SECRET_NAMES)).toEqual(['a']);
    expect(secretValues('top-level', SECRET_NAMES, true)).toEqual(['top-level']);
  });

  test("an array's positions are not field names, whatever the secret names are", () => {
    const names = new Set(['0']);
    expect(secretValues({ list: ['first', 'second'] }, names)).toEqual([]);
    expect(redactSecrets({ list: ['first-item'] }, names)).toEqual({ list: ['first-item'] });
    expect(secretValues({ 0: 'by name' }, names)).toEqual(['by name']);
  });

  test('objects are walked 32 levels deep: a secret under 31 levels is found and masked, one under 32 is not', () => {
    const at31 = nested(31, { password: 'secret-at-31' });
    const at32 = nested(32, { password: 'secret-at-32' });
    expect(secretValues(at31, SECRET_NAMES)).toEqual(['secret-at-31']);
    expect(secretValues(at32, SECRET_NAMES)).toEqual([]);
    expect(redactSecrets(at31, SECRET_NAMES)).toEqual(nested(31, { password: '****' }));
    expect(redactSecrets(at32, SECRET_NAMES)).toEqual(nested(32, '…' as unknown as object));
  });

  test('arrays count as levels too, and what is not an object deep down is kept', () => {
    expect(secretValues({ password: nestedArrays(31, 'deep-secret') }, SECRET_NAMES)).toEqual(['deep-secret']);
    expect(secretValues({ password: nestedArrays(32, 'deep-secret') }, SECRET_NAMES)).toEqual([]);
    expect(redactSecrets(nestedArrays(31, [5]), SECRET_NAMES)).toEqual(nestedArrays(31, [5]));
    expect(redactSecrets(nestedArrays(32, [5]), SECRET_NAMES)).toEqual(nestedArrays(32, '…'));
    expect(redactSecrets(nestedArrays(40, null), SECRET_NAMES)).toEqual(nestedArrays(32, '…'));
    for (const leaf of [null, 5, 'text', true]) {
      expect(redactSecrets(nestedArrays(32, leaf), SECRET_NAMES)).toEqual(nestedArrays(32, leaf));
      expect(redactSecrets(nested(40, { x: leaf }), SECRET_NAMES)).toEqual(nested(32, '…' as unknown as object));
    }
  });
});
