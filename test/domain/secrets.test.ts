// Integration secrets at rest (docs/decisions.md §8): AES-256-GCM under a 32-byte key, a fresh IV per value, tamper-evident
// envelopes, and the one way a secret is ever shown.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, maskSecret } from '../../src/security/secrets.js';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 9);

/** The envelope's payload bytes (after the version prefix), to tamper with. */
function payloadOf(envelope: string): { prefix: string; bytes: Buffer } {
  const dot = envelope.indexOf('.');
  return { prefix: envelope.slice(0, dot + 1), bytes: Buffer.from(envelope.slice(dot + 1), 'base64url') };
}

function withFlippedByte(envelope: string, index: number): string {
  const { prefix, bytes } = payloadOf(envelope);
  const copy = Buffer.from(bytes);
  const at = index < 0 ? copy.length + index : index;
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return prefix + copy.toString('base64url');
}

describe('createSecretBox', () => {
  it.each([
    ['ascii', 'test-auth-token-0123456789abcdef'],
    ['unicode', 'mot de passe: café ☕ 東京 🚀 Ωμέγα'],
    ['empty', ''],
    ['long', 'x'.repeat(10_000)],
    ['JSON', JSON.stringify({ telephonyAuthToken: 'abc', appSecret: null })],
  ])('seal then open round-trips %s text', (_name, text) => {
    const box = createSecretBox(KEY);
    const sealed = box.seal(text);
    expect(typeof sealed).toBe('string');
    expect(box.open(sealed)).toBe(text);
  });

  it('opens with a second box made from the same key', () => {
    const sealed = createSecretBox(Buffer.from(KEY)).seal('shared');
    expect(createSecretBox(Buffer.from(KEY)).open(sealed)).toBe('shared');
  });

  it('the envelope does not contain the text, in clear or in base64', () => {
    const secret = 'a-very-distinctive-secret-value-42';
    const sealed = createSecretBox(KEY).seal(secret);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(Buffer.from(secret).toString('base64'));
    expect(sealed).not.toContain(Buffer.from(secret).toString('base64url'));
    expect(sealed).not.toContain(Buffer.from(secret).toString('hex'));
  });

  it('two seals of the same text differ (a fresh IV each time) and both open', () => {
    const box = createSecretBox(KEY);
    const envelopes = new Set(Array.from({ length: 20 }, () => box.seal('same text')));
    expect(envelopes.size).toBe(20);
    for (const envelope of envelopes) expect(box.open(envelope)).toBe('same text');
    // The IVs themselves differ, not just the ciphertexts.
    const ivs = new Set([...envelopes].map((envelope) => payloadOf(envelope).bytes.subarray(0, 12).toString('hex')));
    expect(ivs.size).toBe(20);
  });

  it('an envelope sealed under another key does not open', () => {
    const sealed = createSecretBox(KEY).seal('secret');
    expect(() => createSecretBox(OTHER_KEY).open(sealed)).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
  });

  describe('a tampered envelope does not open', () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal('tamper with me');
    const length = payloadOf(sealed).bytes.length;

    it.each([
      ['the IV', 0],
      ['the auth tag', 12],
      ['the end of the auth tag', 27],
      ['the ciphertext', 28],
      ['the last ciphertext byte', length - 1],
    ])('a flipped bit in %s', (_where, index) => {
      const tampered = withFlippedByte(sealed, index);
      expect(tampered).not.toBe(sealed);
      expect(() => box.open(tampered)).toThrow();
    });

    it('a truncated envelope', () => {
      const { prefix, bytes } = payloadOf(sealed);
      expect(() => box.open(prefix + bytes.subarray(0, bytes.length - 1).toString('base64url'))).toThrow();
      expect(() => box.open(prefix + bytes.subarray(0, 20).toString('base64url'))).toThrow();
      expect(() => box.open(prefix)).toThrow();
    });

    it('an envelope whose auth tag is cut short, even when what is left of it is right', () => {
      // A sealed empty text is the IV and the tag alone: cut short, the tag's first bytes are still the right ones.
      const { prefix, bytes } = payloadOf(box.seal(''));
      expect(bytes).toHaveLength(28);
      expect(box.open(prefix + bytes.toString('base64url'))).toBe('');
      for (const length of [27, 24, 20, 16]) {
        expect(() => box.open(prefix + bytes.subarray(0, length).toString('base64url'))).toThrow();
      }
    });

    it('an extended envelope', () => {
      const { prefix, bytes } = payloadOf(sealed);
      expect(() => box.open(prefix + Buffer.concat([bytes, Buffer.from([0])]).toString('base64url'))).toThrow();
    });

    it('another envelope version, or not an envelope at all', () => {
      const { bytes } = payloadOf(sealed);
      expect(() => box.open(`v2.${bytes.toString('base64url')}`)).toThrow('unknown secret envelope');
      expect(() => box.open(bytes.toString('base64url'))).toThrow();
      expect(() => box.open('tamper with me')).toThrow();
      expect(() => box.open('')).toThrow();
    });

    it('the untouched envelope still opens', () => {
      expect(box.open(sealed)).toBe('tamper with me');
    });
  });

  it.each([0, 16, 24, 31, 33, 64])('a %s-byte key is refused', (size) => {
    expect(() => createSecretBox(Buffer.alloc(size, 1))).toThrow('SECRETS_KEY must be 32 bytes');
  });
});

describe('maskSecret', () => {
  it('shows "****" and the last 4 characters', () => {
    expect(maskSecret('abcdef123456')).toBe('****3456');
    expect(maskSecret('test-auth-token-0123456789abcdef')).toBe('****cdef');
  });

  it('shows nothing of a secret shorter than 8 characters, so a short one is never shown whole', () => {
    for (const secret of ['', 'a', 'abcd', 'abcde', 'abcdefg']) expect(maskSecret(secret)).toBe('****');
    expect(maskSecret('abcdefgh')).toBe('****efgh');
  });
});
