// Fan-out in bounded slices (docs/webhooks.md "Fan-out"): a write whose events × targets exceed one slice records
// its events with a `fan_outs` row (the targets, as they were at the commit) instead of every delivery row; workers
// expand it into delivery rows a slice at a time. The due index by account lets a worker claim round-robin.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('fan_outs')
    .addColumn('fan_out_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('camp_id', 'text', (c) => c.notNull())
    /** JSON array of {webhookId, url, delays, due}: where each of its events goes. */
    .addColumn('targets', 'text', (c) => c.notNull())
    /** Round robin between fan-outs: the oldest turn is expanded next, and a slice moves it to the back. */
    .addColumn('turn_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fan_outs_turn').on('fan_outs').columns(['turn_at', 'fan_out_id']).execute();

  /** The fan-out still to expand this event (null once its delivery rows are written, and for every inline one). */
  await db.schema.alterTable('events').addColumn('fan_out_id', 'text').execute();
  await db.schema.createIndex('events_fan_out').on('events').columns(['fan_out_id', 'event_id']).execute();

  // Fair claims (one account's backlog does not hold up another's) and each account's pending count (its cap).
  await db.schema
    .createIndex('webhook_deliveries_account_due')
    .on('webhook_deliveries')
    .columns(['status', 'account_id', 'next_attempt_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_account_due').execute();
  await db.schema.dropIndex('events_fan_out').execute();
  await db.schema.alterTable('events').dropColumn('fan_out_id').execute();
  await db.schema.dropTable('fan_outs').execute();
}
