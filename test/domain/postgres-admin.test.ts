// The PostgreSQL test command works on a server where the database TEST_DATABASE_URL names does not exist yet: the run
// creates it (and drops it at the end); an unreachable server is one line saying what to do.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../helpers/app.js';
import { dropDatabase, ensureDatabase } from '../helpers/postgres-admin.js';

describe.runIf(TEST_DATABASE_URL)('the test run on PostgreSQL', () => {
  it('creates the database TEST_DATABASE_URL names when it is missing, and leaves an existing one be', async () => {
    const url = new URL(TEST_DATABASE_URL ?? '');
    url.pathname = `/missing_${randomBytes(4).toString('hex')}`;
    try {
      expect(await ensureDatabase(url.toString())).toBe(true);
      expect(await ensureDatabase(url.toString())).toBe(false);
    } finally {
      await dropDatabase(url.toString());
    }
  });
});

it('an unreachable server is one line naming TEST_DATABASE_URL (password masked) and what to do', async () => {
  await expect(ensureDatabase('postgres://app:s3cret@127.0.0.1:1/test')).rejects.toThrow(
    /^TEST_DATABASE_URL=postgres:\/\/app:\*\*\*\*@127\.0\.0\.1:1\/test: .*Start PostgreSQL/,
  );
});
