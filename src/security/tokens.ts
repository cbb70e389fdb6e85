// Access tokens: HS256 JWTs whose subject is the account id and whose `ver` is the account's token version (a
// rotated API key or a changed password bumps the version, and older tokens are then refused).
import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface VerifiedToken {
  accountId: string;
  /** The account's token version when the token was issued (tokens from before versions count as 0). */
  version: number;
  /** When the token expires, ms since the epoch. */
  expiresAt: number;
}

export interface TokenIssuer {
  issue(accountId: string, version: number): { token: string; expiresIn: number };
  /** The token's claims, or null for a token that is malformed, badly signed or expired. */
  verify(token: string): VerifiedToken | null;
}

/** Verified tokens remembered (until they expire), so a client's repeated requests skip the HMAC. */
const MAX_REMEMBERED = 10_000;

/** What an account id can look like (`acc_` and base64url today): printable ASCII, at most 128 characters. */
const ACCOUNT_ID_SHAPE = /^[\x21-\x7e]{1,128}$/;

export function createTokenIssuer(secret: string, ttlSeconds: number): TokenIssuer {
  // A KeyObject made once: given a string, jsonwebtoken builds a key object on every call.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const verified = new Map<string, VerifiedToken>();
  return {
    issue(accountId, version) {
      const token = jwt.sign({ ver: version }, key, { algorithm: 'HS256', subject: accountId, expiresIn: ttlSeconds });
      return { token, expiresIn: ttlSeconds };
    },
    verify(token) {
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
