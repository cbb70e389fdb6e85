// The bearer-token verifier (src/security/tokens.ts): a session token it has verified (and remembers) stops being
// accepted at its expiry; a validly signed one with a claim missing or malformed, or signed with another algorithm, is
// refused; a named access token is accepted only in its exact shape and with its MAC.
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

/** A JWT signed with the issuer's own secret (so only the claims or the algorithm can make it wrong). */
const signed = (payload: string | object, options: jwt.SignOptions = {}) =>
  jwt.sign(payload, SECRET, { algorithm: 'HS256', ...options });

/** A JWT with any header and claims, signed (HMAC-SHA256) with the issuer's secret. */
const hs256 = (header: object, payload: object) => {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part(header)}.${part(payload)}`;
  return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;
};

describe('a validly signed session token is refused unless its claims are all there and well formed', () => {
  const issuer = createTokenIssuer(SECRET, 60);

  it('accepts the claims issue() writes, and a token without `ver` as version 0', () => {
    expect(issuer.verify(signed({ ver: 2 }, { subject: 'acc_1', expiresIn: 60 }))).toMatchObject({
      accountId: 'acc_1',
      version: 2,
    });
    const claims = issuer.verify(signed({}, { subject: 'acc_1', expiresIn: 60 }));
    expect(claims).toEqual({ accountId: 'acc_1', version: 0, expiresAt: expect.any(Number) });
    expect(claims).not.toHaveProperty('accessTokenId');
  });

  it('without `exp` (a token that would never expire)', () => {
    expect(issuer.verify(signed({ ver: 0 }, { subject: 'acc_1' }))).toBeNull();
    const exp = String(Math.floor(Date.now() / 1000) + 60); // jsonwebtoken will not sign this one
    const header = { alg: 'HS256', typ: 'JWT' };
    expect(issuer.verify(hs256(header, { sub: 'acc_1', ver: 0, exp: Number(exp) }))?.accountId).toBe('acc_1');
    expect(issuer.verify(hs256(header, { sub: 'acc_1', ver: 0, exp }))).toBeNull();
  });

  it('without `sub`, or with one that is not a string', () => {
    expect(issuer.verify(signed({ ver: 0 }, { expiresIn: 60 }))).toBeNull();
    expect(issuer.verify(signed({ ver: 0, sub: 42 }, { expiresIn: 60 }))).toBeNull();
  });

  it.each([
    ['a NUL', 'acc_1\u0000'],
    ['a NUL alone', '\u0000'],
    ['a control character', 'acc\u001f1'],
    ['a space', 'acc 1'],
    ['DEL', 'acc_1\u007f'],
    ['a non-ASCII letter', 'acc_é'],
    ['nothing', ''],
    ['129 characters', 'a'.repeat(129)],
  ])('with %s in `sub`', (_what, sub) => {
    expect(issuer.verify(signed({ ver: 0 }, { subject: sub, expiresIn: 60 }))).toBeNull();
  });

  it.each([
    ['the lowest and highest printable characters', '!~'],
    ['a single character', 'a'],
    ['128 characters', 'a'.repeat(128)],
  ])('accepts %s in `sub`', (_what, sub) => {
    expect(issuer.verify(signed({ ver: 0 }, { subject: sub, expiresIn: 60 }))?.accountId).toBe(sub);
  });

  it.each([
    ['a string', '1'],
    ['a fraction', 1.5],
    ['null', null],
  ])('with %s for `ver`', (_what, ver) => {
    expect(issuer.verify(signed({ ver }, { subject: 'acc_1', expiresIn: 60 }))).toBeNull();
  });

  it('whose payload is not a JSON object', () => {
    expect(issuer.verify(signed('acc_1'))).toBeNull();
  });

  it.each(['HS384', 'HS512'] as const)('signed with %s and the same secret (only HS256 is accepted)', (algorithm) => {
    const token = signed({ ver: 0 }, { algorithm, subject: 'acc_1', expiresIn: 60 });
    expect(jwt.verify(token, SECRET)).toMatchObject({ sub: 'acc_1' }); // a valid signature of its kind
    expect(issuer.verify(token)).toBeNull();
  });

  it('unsigned (alg "none")', () => {
    expect(
      issuer.verify(jwt.sign({ ver: 0 }, null, { algorithm: 'none', subject: 'acc_1', expiresIn: 60 })),
    ).toBeNull();
  });

  it('refused the same way when asked again (a refusal is never remembered as an acceptance)', () => {
    const token = signed({ ver: 0 }, { subject: 'acc_1\u0000' });
    expect(issuer.verify(token)).toBeNull();
    expect(issuer.verify(token)).toBeNull();
  });
});

describe('verified session tokens are remembered, boundedly', () => {
  it('the same claims come back for a token verified before, until 10,000 others are remembered', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const issuer = createTokenIssuer(SECRET, 60);
    // A token remembered, then refused past its expiry: it is forgotten, and takes no room any more.
    const expired = issuer.issue('acc_expired', 0).token;
    expect(issuer.verify(expired)).not.toBeNull();
    vi.setSystemTime(new Date('2026-01-01T00:01:00Z'));
    expect(issuer.verify(expired)).toBeNull();

    const first = issuer.issue('acc_first', 0).token;
    const claims = issuer.verify(first);
    expect(issuer.verify(first)).toBe(claims); // remembered, not verified anew
    expect(issuer.verify(issuer.issue('acc_other', 0).token)).not.toBeNull();
    expect(issuer.verify(first)).toBe(claims); // another token does not push it out
    for (let i = 2; i < 10_000; i += 1) issuer.verify(signed({ ver: i }, { subject: `acc_${i}`, expiresIn: 60 }));
    expect(issuer.verify(first)).toBe(claims); // 10,000 remembered: still there
    issuer.verify(signed({ ver: 0 }, { subject: 'acc_10000', expiresIn: 60 })); // one more: memory starts over
    const again = issuer.verify(first);
    expect(again).toEqual(claims);
    expect(again).not.toBe(claims);
  });
});

describe('named access tokens', () => {
  const issuer = createTokenIssuer(SECRET, 60);
  /** A token of the documented form, its MAC (HMAC-SHA256 with the secret, 16 bytes) made here over any parts. */
  const withMac = (accountId: string, tokenId: string, secret: string) => {
    const body = `${accountId}.${tokenId}.${secret}`;
    const mac = createHmac('sha256', SECRET).update(`access-token:${body}`).digest().subarray(0, 16);
    return `cgat_${body}.${mac.toString('base64url')}`;
  };
  const SECRET_PART = 'AZaz09_-'.repeat(5) + 'xyz'; // 43 characters, the alphabet's edges among them

  it('a minted token verifies as its account and token id, without expiry or version', () => {
    const token = issuer.mintAccessToken('acc_1', 'tok_1');
    expect(token).toMatch(/^cgat_acc_1\.tok_1\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{22}$/);
    expect(issuer.verify(token)).toEqual({
      accountId: 'acc_1',
      version: 0,
      expiresAt: Number.POSITIVE_INFINITY,
      accessTokenId: 'tok_1',
    });
    expect(issuer.mintAccessToken('acc_1', 'tok_1')).not.toBe(token); // a fresh secret each time
  });

  it('my own MAC is the issuer’s (the forged tokens below differ from a minted one only where each says)', () => {
    const token = issuer.mintAccessToken('acc_1', 'tok_1');
    const secret = token.split('.')[2] ?? '';
    expect(withMac('acc_1', 'tok_1', secret)).toBe(token);
  });

  it.each([
    ['every printable character but the dot in the account id', '!"#$%&\'()*+,-/09:;<=>?@AZ[\\]^_`az{|}~', 'tok'],
    ['a one-character account id and token id', 'a', 'b'],
    ['a 128-character account id and a 64-character token id', 'a'.repeat(128), 'b'.repeat(64)],
    ['the edges of the token id alphabet', 'acc_1', 'AZaz09_-'],
  ])('accepts %s', (_what, accountId, tokenId) => {
    expect(issuer.verify(withMac(accountId, tokenId, SECRET_PART))).toEqual({
      accountId,
      version: 0,
      expiresAt: Number.POSITIVE_INFINITY,
      accessTokenId: tokenId,
    });
  });

  it('accepts MACs whatever characters of base64url they use', () => {
    const macs = new Set<string>();
    for (let i = 0; i < 64; i += 1) {
      const token = withMac('acc_1', `tok_${i}`, SECRET_PART);
      expect(issuer.verify(token)?.accessTokenId).toBe(`tok_${i}`);
      for (const c of token.slice(token.lastIndexOf('.') + 1)) macs.add(c);
    }
    for (const edge of 'AZaz09_-') expect(macs).toContain(edge); // the test above saw each edge of the alphabet
  });

  it.each([
    ['a 129-character account id', withMac('a'.repeat(129), 'tok', SECRET_PART)],
    ['an empty account id', withMac('', 'tok', SECRET_PART)],
    ['a space in the account id', withMac('acc 1', 'tok', SECRET_PART)],
    ['a NUL in the account id', withMac('acc\u00001', 'tok', SECRET_PART)],
    ['DEL in the account id', withMac('acc\u007f', 'tok', SECRET_PART)],
    ['a non-ASCII account id', withMac('accé', 'tok', SECRET_PART)],
    ['a 65-character token id', withMac('acc_1', 'b'.repeat(65), SECRET_PART)],
    ['an empty token id', withMac('acc_1', '', SECRET_PART)],
    ['a token id outside base64url', withMac('acc_1', 'tok!', SECRET_PART)],
    ['a 42-character secret', withMac('acc_1', 'tok', SECRET_PART.slice(1))],
    ['a 44-character secret', withMac('acc_1', 'tok', `${SECRET_PART}A`)],
    ['a secret outside base64url', withMac('acc_1', 'tok', `${SECRET_PART.slice(1)}+`)],
    ['something before it', ` ${withMac('acc_1', 'tok', SECRET_PART)}`],
    ['anything after it', `${withMac('acc_1', 'tok', SECRET_PART)}A`],
  ])('refuses one with a valid MAC but %s', (_what, token) => {
    expect(issuer.verify(token)).toBeNull();
  });

  it('refuses a valid token after a prefix of its own kind, and one with a line break after it', () => {
    const token = withMac('acc_1', 'tok', SECRET_PART);
    expect(issuer.verify(`cgat_ ${token}`)).toBeNull();
    expect(issuer.verify(`cgat_.${token}`)).toBeNull();
    expect(issuer.verify(`${token}\n`)).toBeNull();
  });

  it('refuses a wrong MAC, one of another secret, and a changed part', () => {
    const token = issuer.mintAccessToken('acc_1', 'tok_1');
    const [prefixAndAccount = '', tokenId = '', secret = '', mac = ''] = token.split('.');
    const flipped = (text: string) => (text.startsWith('A') ? `B${text.slice(1)}` : `A${text.slice(1)}`);
    expect(issuer.verify([prefixAndAccount, tokenId, secret, flipped(mac)].join('.'))).toBeNull();
    expect(issuer.verify([prefixAndAccount, tokenId, flipped(secret), mac].join('.'))).toBeNull();
    expect(issuer.verify([prefixAndAccount, 'tok_2', secret, mac].join('.'))).toBeNull();
    expect(issuer.verify(['cgat_acc_2', tokenId, secret, mac].join('.'))).toBeNull();
    expect(createTokenIssuer('another-secret-of-at-least-thirty-two!', 60).verify(token)).toBeNull();
    expect(issuer.verify(token)).not.toBeNull();
  });

  it('is not taken for a session token, nor a session token for one', () => {
    const { token } = issuer.issue('acc_1', 0);
    expect(issuer.verify(`cgat_${token}`)).toBeNull();
    expect(issuer.verify(issuer.mintAccessToken('acc_1', 'tok_1').slice('cgat_'.length))).toBeNull();
  });
});
