// Dynamic client registrations not yet used to authorise (docs/mcp-oauth.md "Registrations"): `pending_address` holds
// the address (IPv6: its /64) a pending registration came from, null once a code was issued to it (or for any other
// artefact). The per-address bound and the global cap on pending registrations look rows up by it, oldest first.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_artifacts').addColumn('pending_address', 'text').execute();
  // The pending registrations of one address, oldest first (its bound), and how many there are in all (the cap).
  await db.schema
    .createIndex('oauth_artifacts_pending')
    .on('oauth_artifacts')
    .columns(['model', 'pending_address', 'expires_at'])
    .execute();
  // The pending registrations of all, newest first (past the cap, the rest are evicted): registered clients by expiry,
  // the columns read included, so that stepping over the newest ones reads the index alone.
  await db.schema
    .createIndex('oauth_artifacts_model_expiry')
    .on('oauth_artifacts')
    .columns(['model', 'expires_at', 'pending_address', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('oauth_artifacts_model_expiry').execute();
  await db.schema.dropIndex('oauth_artifacts_pending').execute();
  await db.schema.alterTable('oauth_artifacts').dropColumn('pending_address').execute();
}
