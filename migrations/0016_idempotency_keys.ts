// Idempotency keys of the create operations that have no natural key (webhookCreate; docs/mcp.md "Retries"): a retry
// with the same key and the same input answers the record the first request made, for a day. The key is kept as its
// digest; `input_digest` tells a retry from another request reusing the key.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    /** Which operation the key is for (webhook.create). */
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key_digest', 'text', (c) => c.notNull())
    .addColumn('input_digest', 'text', (c) => c.notNull())
    /** The id of the record the first request made. */
    .addColumn('result_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'scope', 'key_digest'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
