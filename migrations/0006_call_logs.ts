// Call logs, one per (account, provider CallSid). status_rank orders statuses so a late callback cannot move a
// call backwards: queued 0 < ringing 1 < in-progress 2 < any terminal status 3.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('call_logs')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('camp_id', 'text', (c) => c.notNull())
    .addColumn('direction', 'text')
    .addColumn('from_number', 'text')
    .addColumn('to_number', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_rank', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addColumn('duration_seconds', 'integer')
    .addColumn('cost', 'double precision')
    .addColumn('recording_url', 'text')
    .addColumn('transcript', 'text')
    .addColumn('summary', 'text')
    .addColumn('analysis', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('call_logs_pk', ['account_id', 'call_id'])
    .addForeignKeyConstraint(
      'call_logs_campaign_fk',
      ['account_id', 'camp_id'],
      'campaigns',
      ['account_id', 'camp_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // Newest first by (started_at, call_id), per account or per campaign, optionally by status; the campaign index
  // also serves the metrics aggregate.
  const indexes: Array<[string, string[]]> = [
    ['call_logs_account_started', ['account_id', 'started_at', 'call_id']],
    ['call_logs_account_status_started', ['account_id', 'status', 'started_at', 'call_id']],
    ['call_logs_campaign_started', ['account_id', 'camp_id', 'started_at', 'call_id']],
    ['call_logs_campaign_status_started', ['account_id', 'camp_id', 'status', 'started_at', 'call_id']],
  ];
  for (const [name, columns] of indexes) await db.schema.createIndex(name).on('call_logs').columns(columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('call_logs').execute();
}
