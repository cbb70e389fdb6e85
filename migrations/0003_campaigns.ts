import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('campaigns')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('camp_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('voice', 'text', (c) => c.notNull().references('voices.voice_id'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('script', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('knowledge_base', 'text', (c) => c.notNull())
    .addColumn('calendar', 'text', (c) => c.notNull())
    .addColumn('first_line', 'text', (c) => c.notNull())
    .addColumn('flow_name', 'text', (c) => c.notNull())
    .addColumn('system_prompt', 'text', (c) => c.notNull())
    .addColumn('tone', 'text', (c) => c.notNull())
    .addColumn('max_call_timeout', 'integer', (c) => c.notNull())
    .addColumn('inactive_call_timeout', 'integer', (c) => c.notNull())
    .addColumn('post_call_analysis', 'integer', (c) => c.notNull())
    .addColumn('post_call_analysis_schema', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('is_freeflow', 'integer', (c) => c.notNull())
    .addColumn('public', 'integer', (c) => c.notNull())
    .addColumn('sample_sid', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaigns_pk', ['account_id', 'camp_id'])
    .execute();
  // Listing is newest first per account, optionally by status; both walk these indexes in keyset order.
  await db.schema
    .createIndex('campaigns_account_created')
    .on('campaigns')
    .columns(['account_id', 'created_at', 'camp_id'])
    .execute();
  await db.schema
    .createIndex('campaigns_account_status_created')
    .on('campaigns')
    .columns(['account_id', 'status', 'created_at', 'camp_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('campaigns').execute();
}
