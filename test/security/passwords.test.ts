// Password hashes (src/security/passwords.ts): `scrypt$N$r$p$salt$hash`, verified with the parameters each carries;
// anything else, or one with a part missing, matches no password at all.
import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { costOf, dummyPasswordHash, hashPassword, verifyPassword } from '../../src/security/passwords.js';

const COST = 10; // N = 1024: quick enough for tests

/** A stored hash of the given parts, its digest made here with node:crypto's scrypt. */
function stored(password: string, salt: Buffer, scheme = 'scrypt'): string {
  const hash = scryptSync(password, salt, 64, { N: 1024, r: 8, p: 1 });
  return [scheme, 1024, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

describe('hashPassword and verifyPassword', () => {
  it('write the scheme and every parameter into the hash, and verify against it', async () => {
    const hash = await hashPassword('correct horse', COST);
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horse!', hash)).toBe(false);
    expect(await hashPassword('correct horse', COST)).not.toBe(hash); // a salt of its own
  });

  it('verify a hash made elsewhere with the same parameters (the format is the contract)', async () => {
    expect(await verifyPassword('pw', stored('pw', Buffer.from('0123456789abcdef')))).toBe(true);
  });

  it('refuse a hash of another scheme, even when its parts are a right scrypt digest', async () => {
    const hash = stored('pw', Buffer.from('0123456789abcdef'), 'pbkdf2');
    expect(await verifyPassword('pw', hash)).toBe(false);
  });

  it('refuse a hash without a salt, even when it is the right (unsalted) scrypt digest', async () => {
    expect(await verifyPassword('pw', stored('pw', Buffer.alloc(0)))).toBe(false);
  });

  it('refuse a hash whose digest is empty (which any password would match) or missing', async () => {
    expect(await verifyPassword('pw', 'scrypt$1024$8$1$MDEyMzQ1Njc4OWFiY2RlZg==$')).toBe(false);
    expect(await verifyPassword('pw', 'scrypt$1024$8$1$MDEyMzQ1Njc4OWFiY2RlZg==')).toBe(false);
    expect(await verifyPassword('pw', '')).toBe(false);
  });
});

describe('costOf', () => {
  it('is log2 of the N a hash was made with', async () => {
    expect(costOf(await hashPassword('pw', COST))).toBe(COST);
    expect(costOf('scrypt$16384$8$1$salt$hash')).toBe(14);
  });

  it('is null for a hash of another scheme, or an N that is not a power of two', () => {
    expect(costOf('pbkdf2$1024$8$1$salt$hash')).toBeNull();
    expect(costOf('scrypt$1000$8$1$salt$hash')).toBeNull();
    expect(costOf('scrypt$$8$1$salt$hash')).toBeNull();
    expect(costOf('not a hash')).toBeNull();
  });
});

describe('dummyPasswordHash', () => {
  it('is one hash per cost, made once, that no password is known for', async () => {
    const first = dummyPasswordHash(COST);
    expect(dummyPasswordHash(COST)).toBe(first);
    expect(costOf(await first)).toBe(COST);
    expect(await dummyPasswordHash(COST + 1)).not.toBe(await first);
    expect(costOf(await dummyPasswordHash(COST + 1))).toBe(COST + 1);
  });
});
