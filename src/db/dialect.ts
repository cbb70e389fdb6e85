// Which database a Kysely handle runs on, for the few queries that differ (row locks, upsert forms): asked of the
// handle itself, once, so that domain code needs no dialect passed around.
import { type Kysely, PostgresIntrospector } from 'kysely';
import type { Dialect } from './database.js';

const dialects = new WeakMap<Kysely<never>, Dialect>();

export function dialectOf<DB>(db: Kysely<DB>): Dialect {
  const handle = db as unknown as Kysely<never>;
  let dialect = dialects.get(handle);
  if (dialect === undefined) {
    dialect = db.introspection instanceof PostgresIntrospector ? 'postgres' : 'sqlite';
    dialects.set(handle, dialect);
  }
  return dialect;
}
