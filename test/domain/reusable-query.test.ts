// A reusable query (src/db/reusable-query.ts) is compiled once per shape and runs with each call's own values.
import { CompiledQuery, sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { type CredentialCheck, noteCredentialCheck, runWithRequestId } from '../../src/core/request-context.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/database.js';
import { reusableQuery } from '../../src/db/reusable-query.js';

const handle = openDatabase('sqlite::memory:');

interface Params {
  name: string | null;
  min: number;
  descending: boolean;
}

let builds = 0;
const numbers = reusableQuery((db, p: Params) => {
  builds += 1;
  const rows = db
    .selectFrom(
      sql<{ n: number; name: string }>`(select 1 as n, 'a' as name union all select 2, 'b' union all select 3, '')`.as(
        't',
      ),
    )
    .select(['n', 'name'])
    .where('n', '>=', p.min);
  const named = p.name !== null ? rows.where('name', '=', p.name) : rows;
  return named.orderBy('n', p.descending ? 'desc' : 'asc');
});

test('one build per shape; every call runs with its own values', async () => {
  const { db } = handle;
  expect(await numbers(db, { name: null, min: 2, descending: false })).toEqual([
    { n: 2, name: 'b' },
    { n: 3, name: '' },
  ]);
  expect(await numbers(db, { name: null, min: 1, descending: false })).toHaveLength(3);
  expect(builds).toBe(1);
  expect((await numbers(db, { name: null, min: 1, descending: true }))[0]).toEqual({ n: 3, name: '' });
  expect(builds).toBe(2);
  expect(await numbers(db, { name: 'a', min: 1, descending: false })).toEqual([{ n: 1, name: 'a' }]);
  expect(await numbers(db, { name: 'b', min: 1, descending: false })).toEqual([{ n: 2, name: 'b' }]);
  expect(builds).toBe(3);
  // An empty string is a shape of its own (a builder may test it), not a placeholder.
  expect(await numbers(db, { name: '', min: 1, descending: false })).toEqual([{ n: 3, name: '' }]);
  expect(await numbers(db, { name: 'a', min: 2, descending: false })).toEqual([]);
  expect(builds).toBe(4);
});

describe('while a credential is provisional (docs/decisions.md §14)', () => {
  const accounts = openDatabase('sqlite::memory:');
  const byN = reusableQuery((db, p: { min: number }) =>
    db
      .selectFrom(sql<{ n: number }>`(select 1 as n union all select 2)`.as('t'))
      .select('n')
      .where('n', '>=', p.min),
  );
  const union = reusableQuery((db, p: { min: number }) =>
    db
      .selectFrom(sql<{ n: number }>`(select 1 as n)`.as('t'))
      .select('n')
      .where('n', '>=', p.min)
      .unionAll(db.selectFrom(sql<{ n: number }>`(select 2 as n)`.as('u')).select('n')),
  );

  test('a select carries the check and its first row settles it; a union carries none', async () => {
    await migrateToLatest(accounts.db, accounts.dialect);
    await accounts.db
      .insertInto('accounts')
      .values({
        id: 'acc_1',
        email: 'a@example.com',
        password_hash: 'x',
        api_key_hash: 'h',
        api_key_hint: '****',
        created_at: new Date(0).toISOString(),
        token_version: 0,
      })
      .execute();
    for (const [tokenVersion, stands] of [
      [0, true],
      [1, false],
    ] as const) {
      const check: CredentialCheck = { accountId: 'acc_1', tokenVersion };
      await runWithRequestId('r', async () => {
        noteCredentialCheck(check);
        expect(await union(accounts.db, { min: 1 })).toEqual([{ n: 1 }, { n: 2 }]);
        expect(check.outcome).toBeUndefined();
        const rows = await byN(accounts.db, { min: 2 });
        expect(rows).toEqual([{ n: 2, $credential: stands ? 1 : 0 }]);
        expect(check.outcome).toBe(stands);
        // Settled: the next statement carries nothing.
        expect(await byN(accounts.db, { min: 1 })).toEqual([{ n: 1 }, { n: 2 }]);
      });
    }
  });

  test('each shape carries a check of its own: two requests, two shapes, each answered by its own statement', async () => {
    for (const descending of [false, true]) {
      const check: CredentialCheck = { accountId: 'acc_1', tokenVersion: 0 };
      await runWithRequestId(`r-${descending}`, async () => {
        noteCredentialCheck(check);
        const rows = await numbers(accounts.db, { name: null, min: 2, descending });
        expect(rows.map((row) => row.n)).toEqual(descending ? [3, 2] : [2, 3]);
        expect(check.outcome).toBe(true);
      });
    }
  });

  test('a write, or a statement Kysely did not build, carries no check and leaves it unsettled', async () => {
    const write = reusableQuery((db, p: { id: string }) =>
      db.updateTable('accounts').set({ api_key_hint: '****1234' }).where('id', '=', p.id),
    );
    const raw = reusableQuery(() => ({
      compile: () => CompiledQuery.raw('select 7 as n') as CompiledQuery<{ n: number }>,
    }));
    const check: CredentialCheck = { accountId: 'acc_1', tokenVersion: 0 };
    await runWithRequestId('w', async () => {
      noteCredentialCheck(check);
      await write(accounts.db, { id: 'acc_1' });
      expect(await raw(accounts.db, {})).toEqual([{ n: 7 }]);
      expect(check.outcome).toBeUndefined();
    });
  });
});

test('at most 64 shapes are kept per query: past that, a shape is built on every call', async () => {
  let built = 0;
  const flags = Array.from({ length: 7 }, (_, bit) => `f${bit}`);
  const flagged = reusableQuery((db, p: Record<string, boolean>) => {
    built += 1;
    const text = flags.filter((flag) => p[flag]).join(',');
    return db.selectFrom(sql<{ t: string }>`(select ${sql.lit(text)} as t)`.as('x')).select('t');
  });
  const shape = (index: number) => Object.fromEntries(flags.map((flag, bit) => [flag, ((index >> bit) & 1) === 1]));
  for (let index = 0; index < 65; index += 1) await flagged(handle.db, shape(index));
  expect(built).toBe(65);
  // The first 64 are kept; the 65th is not.
  await flagged(handle.db, shape(63));
  expect(built).toBe(65);
  await flagged(handle.db, shape(64));
  expect(built).toBe(66);
});
