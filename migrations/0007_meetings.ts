// Meetings booked through the calendar integration, per account and campaign.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('meetings')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('meeting_id', 'text', (c) => c.notNull())
    .addColumn('camp_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('participants', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('meetings_pk', ['account_id', 'meeting_id'])
    .addForeignKeyConstraint(
      'meetings_campaign_fk',
      ['account_id', 'camp_id'],
      'campaigns',
      ['account_id', 'camp_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // Overlap checks and "upcoming" lists walk the account's scheduled meetings by time; campaign lists by campaign.
  await db.schema
    .createIndex('meetings_account_status_starts')
    .on('meetings')
    .columns(['account_id', 'status', 'starts_at'])
    .execute();
  await db.schema
    .createIndex('meetings_campaign_starts')
    .on('meetings')
    .columns(['account_id', 'camp_id', 'starts_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('meetings').execute();
}
