import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('text_pipelines')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('camp_id', 'text', (c) => c.notNull())
    .addColumn('goal', 'text', (c) => c.notNull())
    .addColumn('message_delay', 'integer', (c) => c.notNull())
    .addColumn('mex_retry', 'integer', (c) => c.notNull())
    .addColumn('retry_delay', 'integer', (c) => c.notNull())
    .addColumn('post_webhook', 'text')
    .addColumn('post_webhook_delay', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('text_pipelines_pk', ['account_id', 'camp_id'])
    .addForeignKeyConstraint(
      'text_pipelines_campaign_fk',
      ['account_id', 'camp_id'],
      'campaigns',
      ['account_id', 'camp_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('text_pipelines').execute();
}
