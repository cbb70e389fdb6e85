// Access tokens: HS256 JWTs whose subject is the account id.
import jwt from 'jsonwebtoken';

export interface TokenIssuer {
  issue(accountId: string): { token: string; expiresIn: number };
  /** The account id, or null for a token that is malformed, badly signed or expired. */
  verify(token: string): string | null;
}

export function createTokenIssuer(secret: string, ttlSeconds: number): TokenIssuer {
  return {
    issue(accountId) {
      const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: accountId, expiresIn: ttlSeconds });
      return { token, expiresIn: ttlSeconds };
    },
    verify(token) {
      try {
        const payload = jwt.verify(token, secret, { algorithms: ['HS256'] });
        return typeof payload === 'object' && typeof payload.sub === 'string' ? payload.sub : null;
      } catch {
        return null;
      }
    },
  };
}
