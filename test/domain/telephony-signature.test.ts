// The telephony providers' call-status signature (docs/decisions.md §7): base64(HMAC-SHA1(auth token, URL + each POST
// parameter's name and value in parameter-name order)), checked against the providers' published test vector.
import { describe, expect, it } from 'vitest';
import { telephonySignature, verifyTelephonySignature } from '../../src/security/telephony-signature.js';

const AUTH_TOKEN = '12345';
const URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const PARAMS: Record<string, string> = {
  CallSid: 'CA1234567890ABCDE',
  Caller: '+14158675309',
  Digits: '1234',
  From: '+14158675309',
  To: '+18005551212',
};
const EXPECTED = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';

describe('telephonySignature', () => {
  it('gives the published test vector', () => {
    expect(telephonySignature(AUTH_TOKEN, URL, PARAMS)).toBe(EXPECTED);
  });

  it('does not depend on the order the parameters were inserted in', () => {
    const reversed = Object.fromEntries(Object.entries(PARAMS).reverse());
    expect(Object.keys(reversed)).not.toEqual(Object.keys(PARAMS));
    expect(telephonySignature(AUTH_TOKEN, URL, reversed)).toBe(EXPECTED);
    const shuffled = {
      To: PARAMS.To,
      CallSid: PARAMS.CallSid,
      From: PARAMS.From,
      Digits: PARAMS.Digits,
      Caller: PARAMS.Caller,
    };
    expect(telephonySignature(AUTH_TOKEN, URL, shuffled as Record<string, string>)).toBe(EXPECTED);
  });

  it('changes with the token, the URL and every parameter', () => {
    expect(telephonySignature('54321', URL, PARAMS)).not.toBe(EXPECTED);
    expect(telephonySignature(AUTH_TOKEN, `${URL}&baz=3`, PARAMS)).not.toBe(EXPECTED);
    for (const name of Object.keys(PARAMS)) {
      expect(telephonySignature(AUTH_TOKEN, URL, { ...PARAMS, [name]: `${PARAMS[name]}0` })).not.toBe(EXPECTED);
    }
  });
});

describe('verifyTelephonySignature', () => {
  it('accepts the published test vector, whatever the parameter order', () => {
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, EXPECTED)).toBe(true);
    const reversed = Object.fromEntries(Object.entries(PARAMS).reverse());
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, reversed, EXPECTED)).toBe(true);
  });

  it('rejects a changed parameter value', () => {
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, { ...PARAMS, Digits: '1235' }, EXPECTED)).toBe(false);
  });

  it('rejects an added or removed parameter', () => {
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, { ...PARAMS, CallStatus: 'completed' }, EXPECTED)).toBe(false);
    const { Digits: _digits, ...withoutDigits } = PARAMS;
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, withoutDigits, EXPECTED)).toBe(false);
  });

  it('rejects a changed URL', () => {
    expect(verifyTelephonySignature(AUTH_TOKEN, 'https://mycompany.com/myapp.php?foo=1&bar=3', PARAMS, EXPECTED)).toBe(
      false,
    );
    expect(verifyTelephonySignature(AUTH_TOKEN, 'http://mycompany.com/myapp.php?foo=1&bar=2', PARAMS, EXPECTED)).toBe(
      false,
    );
  });

  it('rejects a signature made with another token', () => {
    expect(verifyTelephonySignature('54321', URL, PARAMS, EXPECTED)).toBe(false);
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, telephonySignature('54321', URL, PARAMS))).toBe(false);
  });

  it('rejects an empty, null or undefined signature', () => {
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, '')).toBe(false);
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, undefined)).toBe(false);
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, null)).toBe(false);
  });

  it('rejects a signature of a different length without throwing', () => {
    expect(() => verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, EXPECTED.slice(0, -1))).not.toThrow();
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, EXPECTED.slice(0, -1))).toBe(false);
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, `${EXPECTED}A`)).toBe(false);
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, 'x')).toBe(false);
  });

  it('rejects a signature of the same character count but more bytes without throwing', () => {
    const multibyte = `${EXPECTED.slice(0, -1)}é`;
    expect(multibyte).toHaveLength(EXPECTED.length);
    expect(() => verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, multibyte)).not.toThrow();
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, multibyte)).toBe(false);
  });

  it('rejects a same-length signature that differs in one character', () => {
    const tampered = `${EXPECTED.slice(0, 5)}${EXPECTED[5] === 'A' ? 'B' : 'A'}${EXPECTED.slice(6)}`;
    expect(tampered).toHaveLength(EXPECTED.length);
    expect(verifyTelephonySignature(AUTH_TOKEN, URL, PARAMS, tampered)).toBe(false);
  });
});
