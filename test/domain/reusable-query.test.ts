// A reusable query (src/db/reusable-query.ts) is compiled once per shape and runs with each call's own values.
import { sql } from 'kysely';
import { expect, test } from 'vitest';
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
