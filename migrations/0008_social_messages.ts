// Inbound messages of the social channel, stored once per (account, message id).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('social_messages')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('camp_id', 'text', (c) => c.notNull())
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('social_messages_pk', ['account_id', 'message_id'])
    .addForeignKeyConstraint(
      'social_messages_campaign_fk',
      ['account_id', 'camp_id'],
      'campaigns',
      ['account_id', 'camp_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('social_messages_campaign_received')
    .on('social_messages')
    .columns(['account_id', 'camp_id', 'received_at', 'message_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('social_messages').execute();
}
