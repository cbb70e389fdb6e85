// Automatic persisted queries (docs/graphql-api.md "Persisted operations"): hash → document, shared by every instance through the
// database. Bounded: the store keeps at most APQ_MAX_QUERIES documents, evicting the oldest.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('persisted_queries')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('persisted_queries_created_at').on('persisted_queries').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('persisted_queries').execute();
}
