// Password hashing with node:crypto scrypt, a per-user salt and a constant-time comparison.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { offLoop } from '../core/request-context.js';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;
/** scrypt's CPU/memory cost N; PASSWORD_HASH_COST (log2 N) changes it for new hashes. */
export const DEFAULT_COST = 14;
const PARAMS = { r: 8, p: 1, maxmem: 256 * 1024 * 1024 };
const KEY_LENGTH = 64;

/** Returns `scrypt$N$r$p$salt$hash`: each hash carries its parameters, so the cost can change without breaking old ones. */
export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  // Hashed in libuv's pool: the request waits off the event loop meanwhile (src/security/work-budget.ts).
  const hash = await offLoop(scryptAsync(password, salt, KEY_LENGTH, { ...PARAMS, N }));
  return ['scrypt', N, PARAMS.r, PARAMS.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await offLoop(
    scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: PARAMS.maxmem,
    }),
  );
  return timingSafeEqual(actual, expected);
}

/** log2 of the N a stored hash was made with, or null for something that is not one of our hashes. */
export function costOf(stored: string): number | null {
  const [scheme, n] = stored.split('$');
  const cost = Math.log2(Number(n));
  return scheme === 'scrypt' && Number.isInteger(cost) ? cost : null;
}

const dummyHashes = new Map<number, Promise<string>>();

/** A hash of a random password at `cost`, verified against when an account does not exist, so timing does not tell. */
export function dummyPasswordHash(cost = DEFAULT_COST): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (!hash) {
    hash = hashPassword(randomBytes(16).toString('hex'), cost);
    dummyHashes.set(cost, hash);
  }
  return hash;
}
