// The store of automatic persisted queries (docs/graphql-api.md "Persisted operations"): hash → document, in the database so that
// every instance answers a hash another one registered. Bounded in count (the oldest go first) and in size.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';

/** A document longer than this is run but not stored (the request's own limits bound what runs). */
export const MAX_PERSISTED_QUERY_LENGTH = 100_000;

export async function getPersistedQuery(db: Kysely<Database>, hash: string): Promise<string | null> {
  const row = await db.selectFrom('persisted_queries').select('query').where('hash', '=', hash).executeTakeFirst();
  return row?.query ?? null;
}

/**
 * Stores `query` under `hash` (the caller has checked the hash) unless it is too long; a hash stored already is left as
 * it is. Then, if more than `maxQueries` are stored, the oldest are deleted.
 */
export async function storePersistedQuery(
  db: Kysely<Database>,
  hash: string,
  query: string,
  maxQueries: number,
): Promise<boolean> {
  if (query.length > MAX_PERSISTED_QUERY_LENGTH) return false;
  const inserted = await db
    .insertInto('persisted_queries')
    .values({ hash, query, created_at: new Date().toISOString() })
    .onConflict((conflict) => conflict.column('hash').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return true;
  const { count } = await db
    .selectFrom('persisted_queries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  const excess = Number(count) - maxQueries;
  if (excess > 0) {
    const oldest = db
      .selectFrom('persisted_queries')
      .select('hash')
      .orderBy('created_at')
      .orderBy('hash')
      .limit(excess);
    await db.deleteFrom('persisted_queries').where('hash', 'in', oldest).execute();
  }
  return true;
}
