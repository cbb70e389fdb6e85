// Webhooks, the campaigns they are attached to, the event outbox and one delivery row per (event, target).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('webhook_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    /** JSON array of event types; empty means every type. */
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    /** Why the webhook was disabled (e.g. the receiver answered 410), null while enabled. */
    .addColumn('disabled_reason', 'text')
    /** The whsec_ signing secret, sealed with SECRETS_KEY. */
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_account').on('webhooks').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_campaigns')
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.webhook_id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('camp_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_campaigns_pk', ['webhook_id', 'camp_id'])
    .addForeignKeyConstraint(
      'webhook_campaigns_campaign_fk',
      ['account_id', 'camp_id'],
      'campaigns',
      ['account_id', 'camp_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('webhook_campaigns_campaign')
    .on('webhook_campaigns')
    .columns(['account_id', 'camp_id'])
    .execute();

  // The outbox: written in the transaction of the change that raised the event. `payload` is the exact body sent.
  await db.schema
    .createTable('events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('camp_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_account').on('events').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    /** Also the `webhook-id` header: the same on every attempt. */
    .addColumn('delivery_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('camp_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.event_id').onDelete('cascade'))
    /** The registered webhook, or null for a text pipeline's postWebhook. */
    .addColumn('webhook_id', 'text', (c) => c.references('webhooks.webhook_id').onDelete('cascade'))
    /** The text pipeline's postWebhook URL (webhook deliveries read the webhook's current URL). */
    .addColumn('target_url', 'text')
    /** JSON array of seconds between attempts; null means WEBHOOK_RETRY_SCHEDULE. */
    .addColumn('retry_delays', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    /** How many retries of the current cycle have been scheduled (a redelivery starts a new cycle). */
    .addColumn('retries', 'integer', (c) => c.notNull())
    /** When the next attempt is due; while an attempt is in flight, when its lease runs out. */
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('last_response_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'delivery_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_campaign')
    .on('webhook_deliveries')
    .columns(['account_id', 'camp_id', 'created_at', 'delivery_id'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('events').execute();
  await db.schema.dropTable('webhook_campaigns').execute();
  await db.schema.dropTable('webhooks').execute();
}
