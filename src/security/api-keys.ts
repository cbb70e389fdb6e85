// API keys (`ck_` + 32 random bytes, base64url) and random ids. Only a key's SHA-256 is stored.
import { createHash, randomBytes } from 'node:crypto';

export function newApiKey(): string {
  return `ck_${randomBytes(32).toString('base64url')}`;
}

/** Lookups go by this digest, so comparing keys never happens byte by byte in our code. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export function apiKeyHint(apiKey: string): string {
  return `****${apiKey.slice(-4)}`;
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
