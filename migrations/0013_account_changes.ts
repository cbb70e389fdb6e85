// PostgreSQL tells every instance when an account changes (docs/decisions.md §14): the account cache of each instance
// LISTENs on gateway_accounts (src/db/account-changes.ts). An update that changes nothing (the per-account lock of
// serializeForAccount sets id = id) notifies no one. SQLite needs nothing here: PRAGMA data_version tells the same.
import { type Kysely, PostgresIntrospector, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.introspection instanceof PostgresIntrospector)) return;
  await sql`
    create or replace function gateway_account_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('gateway_accounts', old.id);
      return null;
    end
    $$`.execute(db);
  await sql`create trigger accounts_updated after update on accounts for each row
    when (old.* is distinct from new.*) execute function gateway_account_changed()`.execute(db);
  await sql`create trigger accounts_deleted after delete on accounts for each row
    execute function gateway_account_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.introspection instanceof PostgresIntrospector)) return;
  await sql`drop trigger if exists accounts_updated on accounts`.execute(db);
  await sql`drop trigger if exists accounts_deleted on accounts`.execute(db);
  await sql`drop function if exists gateway_account_changed()`.execute(db);
}
