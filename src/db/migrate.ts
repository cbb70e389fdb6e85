// Runs the migrations in migrations/ (a static provider, so it works the same under tsx, vitest and bundlers).
import { type Kysely, type Migration, Migrator } from 'kysely';
import { migrations } from '../../migrations/index.js';

// Migrations are typed against no schema (Kysely<any>), as Kysely advises.
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async (): Promise<Record<string, Migration>> => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
