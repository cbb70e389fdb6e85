// Bearer tokens, two kinds (docs/security.md):
//   - session tokens from login: HS256 JWTs whose subject is the account id and whose `ver` is the account's token
//     version (a rotated API key or a changed password bumps the version, and older tokens are then refused);
//   - named access tokens (src/domain/access-tokens.ts): `cgat_<account id>.<token id>.<random>.<mac>`, long-lived,
//     stored as a SHA-256 digest. The MAC (HMAC-SHA256 with JWT_SECRET) lets the account be known before any
//     database read (the rate limiter keys on it) and cannot be forged; the stored digest decides whether the token
//     still exists.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface VerifiedToken {
  accountId: string;
  /** The account's token version when the token was issued (tokens from before versions count as 0). */
  version: number;
  /** When the token expires, ms since the epoch (Infinity for an access token: its row says when). */
  expiresAt: number;
  /** Set for a named access token: its id (the row that must still exist). */
  accessTokenId?: string;
}

export interface TokenIssuer {
  issue(accountId: string, version: number): { token: string; expiresIn: number };
  /** The token's claims, or null for a token that is malformed, badly signed or expired. */
  verify(token: string): VerifiedToken | null;
  /** A new named access token of the account (its id is `tokenId`); shown once, stored as its digest. */
  mintAccessToken(accountId: string, tokenId: string): string;
}

/** What every named access token starts with (secret scanners can look for it). */
export const ACCESS_TOKEN_PREFIX = 'cgat_';
const ACCESS_TOKEN_SHAPE =
  /^cgat_([\x21-\x2d\x2f-\x7e]{1,128})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{22})$/;

/** Verified tokens remembered (until they expire), so a client's repeated requests skip the HMAC. */
const MAX_REMEMBERED = 10_000;

/** What an account id can look like (`acc_` and base64url today): printable ASCII, at most 128 characters. */
const ACCOUNT_ID_SHAPE = /^[\x21-\x7e]{1,128}$/;

export function createTokenIssuer(secret: string, ttlSeconds: number): TokenIssuer {
  // A KeyObject made once: given a string, jsonwebtoken builds a key object on every call.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const verified = new Map<string, VerifiedToken>();
  const mac = (body: string) =>
    createHmac('sha256', key).update(`access-token:${body}`).digest().subarray(0, 16).toString('base64url');
  const verifyAccessToken = (token: string): VerifiedToken | null => {
    const parts = ACCESS_TOKEN_SHAPE.exec(token);
    if (!parts) return null;
    const [, accountId = '', tokenId = '', secret = '', given = ''] = parts;
    const expected = Buffer.from(mac(`${accountId}.${tokenId}.${secret}`));
    if (!timingSafeEqual(expected, Buffer.from(given))) return null;
    return { accountId, version: 0, expiresAt: Number.POSITIVE_INFINITY, accessTokenId: tokenId };
  };
  return {
    mintAccessToken(accountId, tokenId) {
      const body = `${accountId}.${tokenId}.${randomBytes(32).toString('base64url')}`;
      return `${ACCESS_TOKEN_PREFIX}${body}.${mac(body)}`;
    },
    issue(accountId, version) {
      const token = jwt.sign({ ver: version }, key, { algorithm: 'HS256', subject: accountId, expiresIn: ttlSeconds });
      return { token, expiresIn: ttlSeconds };
    },
    verify(token) {
      if (token.startsWith(ACCESS_TOKEN_PREFIX)) return verifyAccessToken(token);
      const known = verified.get(token);
      if (known) {
        if (known.expiresAt > Date.now()) return known;
        verified.delete(token);
        return null;
      }
      try {
        const payload = jwt.verify(token, key, { algorithms: ['HS256'] });
        if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.exp !== 'number') {
          return null;
        }
        // Account ids are short printable ASCII; a subject with a NUL or other control character (which PostgreSQL
        // cannot even compare against text) names no account.
        if (!ACCOUNT_ID_SHAPE.test(payload.sub)) {
          return null;
        }
        const version = payload.ver === undefined ? 0 : payload.ver;
        if (typeof version !== 'number' || !Number.isInteger(version)) return null;
        if (verified.size >= MAX_REMEMBERED) verified.clear();
        const claims = { accountId: payload.sub, version, expiresAt: payload.exp * 1000 };
        verified.set(token, claims);
        return claims;
      } catch {
        return null;
      }
    },
  };
}
