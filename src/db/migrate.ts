// Runs the migrations in migrations/ (a static provider, so it works the same under tsx, vitest and bundlers).
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { migrations } from '../../migrations/index.js';
import type { Dialect } from './database.js';

// Migrations are typed against no schema (Kysely<any>), as Kysely advises.
export async function migrateToLatest(db: Kysely<any>, dialect: Dialect): Promise<string[]> {
  // On PostgreSQL, Kysely looks for its bookkeeping tables in every schema unless told which one: name the
  // schema the connection works in (search_path), so databases holding several schemas migrate each on its own.
  const migrationTableSchema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async (): Promise<Record<string, Migration>> => migrations },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
