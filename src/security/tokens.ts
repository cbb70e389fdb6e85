// Access tokens: HS256 JWTs whose subject is the account id.
import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface TokenIssuer {
  issue(accountId: string): { token: string; expiresIn: number };
  /** The account id, or null for a token that is malformed, badly signed or expired. */
  verify(token: string): string | null;
}

/** Verified tokens remembered (until they expire), so a client's repeated requests skip the HMAC. */
const MAX_REMEMBERED = 10_000;

export function createTokenIssuer(secret: string, ttlSeconds: number): TokenIssuer {
  // A KeyObject made once: given a string, jsonwebtoken builds a key object on every call.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const verified = new Map<string, { accountId: string; expiresAt: number }>();
  return {
    issue(accountId) {
      const token = jwt.sign({}, key, { algorithm: 'HS256', subject: accountId, expiresIn: ttlSeconds });
      return { token, expiresIn: ttlSeconds };
    },
    verify(token) {
      const known = verified.get(token);
      if (known) {
        if (known.expiresAt > Date.now()) return known.accountId;
        verified.delete(token);
        return null;
      }
      try {
        const payload = jwt.verify(token, key, { algorithms: ['HS256'] });
        if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.exp !== 'number') {
          return null;
        }
        if (verified.size >= MAX_REMEMBERED) verified.clear();
        verified.set(token, { accountId: payload.sub, expiresAt: payload.exp * 1000 });
        return payload.sub;
      } catch {
        return null;
      }
    },
  };
}
