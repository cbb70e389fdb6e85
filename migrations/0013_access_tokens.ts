// Named access tokens (docs/security.md): long-lived bearer tokens an account creates for its agents and scripts,
// stored as the SHA-256 digest of the token; revoking one deletes its row.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('access_tokens')
    .addColumn('token_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    /** SHA-256 of the whole token, hex. */
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    /** "****" and the token's last 4 characters. */
    .addColumn('token_hint', 'text', (c) => c.notNull())
    .addColumn('read_only', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    /** Null for a token that does not expire. */
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema
    .createIndex('access_tokens_account')
    .on('access_tokens')
    .columns(['account_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('access_tokens').execute();
}
