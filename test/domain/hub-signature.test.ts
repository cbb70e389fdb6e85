// The social channel's webhook signature (docs/decisions.md §8): X-Hub-Signature-256 = "sha256=" + hex(HMAC-SHA256(app
// secret, raw body)), checked against the published test vector of GitHub's webhook documentation.
import { describe, expect, it } from 'vitest';
import { hubSignature, secretsEqual, verifyHubSignature } from '../../src/security/hub-signature.js';

const SECRET = "It's a Secret to Everybody";
const PAYLOAD = 'Hello, World!';
const EXPECTED = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
const HEX = EXPECTED.slice('sha256='.length);

describe('hubSignature', () => {
  it('gives the published test vector', () => {
    expect(hubSignature(SECRET, PAYLOAD)).toBe(EXPECTED);
  });

  it('gives the same signature for the same bytes as a Buffer', () => {
    expect(hubSignature(SECRET, Buffer.from(PAYLOAD, 'utf8'))).toBe(EXPECTED);
  });

  it('is "sha256=" and 64 lower-case hex digits', () => {
    expect(hubSignature('another', '{"a":1}')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('changes with the body and with the secret', () => {
    expect(hubSignature(SECRET, 'Hello, World?')).not.toBe(EXPECTED);
    expect(hubSignature(SECRET, `${PAYLOAD} `)).not.toBe(EXPECTED);
    expect(hubSignature(`${SECRET}!`, PAYLOAD)).not.toBe(EXPECTED);
  });
});

describe('verifyHubSignature', () => {
  it('accepts the published test vector', () => {
    expect(verifyHubSignature(SECRET, PAYLOAD, EXPECTED)).toBe(true);
    expect(verifyHubSignature(SECRET, Buffer.from(PAYLOAD), EXPECTED)).toBe(true);
  });

  it('accepts an upper-case hex digest', () => {
    expect(verifyHubSignature(SECRET, PAYLOAD, `sha256=${HEX.toUpperCase()}`)).toBe(true);
  });

  it('accepts the header with white space around it', () => {
    expect(verifyHubSignature(SECRET, PAYLOAD, ` ${EXPECTED}\t`)).toBe(true);
    expect(verifyHubSignature(SECRET, PAYLOAD, `sha256= ${HEX}`)).toBe(false);
  });

  it('rejects a changed body', () => {
    expect(verifyHubSignature(SECRET, 'Hello, World?', EXPECTED)).toBe(false);
    expect(verifyHubSignature(SECRET, `${PAYLOAD}\n`, EXPECTED)).toBe(false);
    expect(verifyHubSignature(SECRET, '', EXPECTED)).toBe(false);
  });

  it('rejects a signature made with another secret', () => {
    expect(verifyHubSignature('another secret', PAYLOAD, EXPECTED)).toBe(false);
    expect(verifyHubSignature(SECRET, PAYLOAD, hubSignature('another secret', PAYLOAD))).toBe(false);
  });

  it('rejects a missing or empty header', () => {
    expect(verifyHubSignature(SECRET, PAYLOAD, undefined)).toBe(false);
    expect(verifyHubSignature(SECRET, PAYLOAD, null)).toBe(false);
    expect(verifyHubSignature(SECRET, PAYLOAD, '')).toBe(false);
    expect(() => verifyHubSignature(SECRET, PAYLOAD, '   ')).not.toThrow();
    expect(verifyHubSignature(SECRET, PAYLOAD, '   ')).toBe(false);
  });

  it('rejects a header without the "sha256=" prefix', () => {
    expect(() => verifyHubSignature(SECRET, PAYLOAD, HEX)).not.toThrow();
    expect(verifyHubSignature(SECRET, PAYLOAD, HEX)).toBe(false);
    // Same length as the expected header, but another scheme's prefix.
    expect(verifyHubSignature(SECRET, PAYLOAD, `sha1=12${HEX}`)).toBe(false);
    expect(verifyHubSignature(SECRET, PAYLOAD, `sha512=${HEX}`)).toBe(false);
  });

  it('rejects a header of the wrong length without throwing', () => {
    for (const wrong of [
      EXPECTED.slice(0, -1),
      `${EXPECTED}0`,
      `${EXPECTED}${HEX}`,
      'sha256=',
      'x',
      `${EXPECTED.slice(0, -1)}é`, // the same character count, one byte more
    ]) {
      expect(() => verifyHubSignature(SECRET, PAYLOAD, wrong), wrong).not.toThrow();
      expect(verifyHubSignature(SECRET, PAYLOAD, wrong), wrong).toBe(false);
    }
  });

  it('rejects a same-length header that differs in one digit', () => {
    const last = EXPECTED.at(-1) === '0' ? '1' : '0';
    const tampered = `${EXPECTED.slice(0, -1)}${last}`;
    expect(tampered).toHaveLength(EXPECTED.length);
    expect(verifyHubSignature(SECRET, PAYLOAD, tampered)).toBe(false);
  });
});

describe('secretsEqual', () => {
  it('is true for equal strings', () => {
    expect(secretsEqual('verify-me', 'verify-me')).toBe(true);
    expect(secretsEqual('', '')).toBe(true);
    expect(secretsEqual(SECRET, `It's a Secret to Everybody`)).toBe(true);
  });

  it('is false for different strings of the same length', () => {
    expect(secretsEqual('verify-me', 'verify-mE')).toBe(false);
    expect(secretsEqual('abc', 'abd')).toBe(false);
  });

  it('is false for strings of different lengths, without throwing', () => {
    expect(() => secretsEqual('verify-me', 'verify-me-please')).not.toThrow();
    expect(secretsEqual('verify-me', 'verify-me-please')).toBe(false);
    expect(secretsEqual('verify-me', 'verify-m')).toBe(false);
    expect(secretsEqual('verify-me', '')).toBe(false);
    expect(secretsEqual('', 'verify-me')).toBe(false);
  });
});
