// An account's deliveries (docs/decisions.md §9): what owners see of the outbox's delivery rows, redeliver, and what
// a text pipeline's change does to the deliveries to its postWebhook. The worker's side (claims, leases, outcomes)
// is src/domain/delivery-leases.ts.
import type { Kysely, Selectable } from 'kysely';
import { type KeysetPage, keysetPage } from '../db/keyset.js';
import type { Database, WebhookDeliveriesTable } from '../db/types.js';
import { conflict, notFound } from '../core/errors.js';
import { countPendingOf, PENDING_DELIVERIES_PER_ACCOUNT } from './fan-outs.js';
import { requireWebhook } from './webhooks.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface Delivery {
  deliveryId: string;
  webhookId: string | null;
  campId: string;
  eventId: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  /** When the next attempt is due (pending deliveries only). */
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

type Row = Selectable<WebhookDeliveriesTable> & { type: string };

const toDelivery = (row: Row): Delivery => ({
  deliveryId: row.delivery_id,
  webhookId: row.webhook_id,
  campId: row.camp_id,
  eventId: row.event_id,
  event: row.type,
  status: row.status as DeliveryStatus,
  attempts: Number(row.attempts),
  lastResponseCode: row.last_response_code === null ? null : Number(row.last_response_code),
  lastError: row.last_error,
  nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const withEventType = (db: Kysely<Database>) =>
  db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.event_id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select('events.type');

/** Newest first, by (createdAt, deliveryId). */
async function pageOf(query: ReturnType<typeof withEventType>, page: KeysetPage): Promise<Delivery[]> {
  const keys = ['webhook_deliveries.created_at', 'webhook_deliveries.delivery_id'] as const;
  return (await keysetPage(query, keys, page).execute()).map(toDelivery);
}

/** A keyset page of a webhook's deliveries, newest first. */
export function pageWebhookDeliveries(
  db: Kysely<Database>,
  accountId: string,
  webhookId: string,
  page: KeysetPage,
): Promise<Delivery[]> {
  const query = withEventType(db)
    .where('webhook_deliveries.account_id', '=', accountId)
    .where('webhook_deliveries.webhook_id', '=', webhookId);
  return pageOf(query, page);
}

/** A keyset page of the deliveries to a campaign's text pipeline postWebhook, newest first. */
export function pagePipelineDeliveries(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  page: KeysetPage,
): Promise<Delivery[]> {
  const query = withEventType(db)
    .where('webhook_deliveries.account_id', '=', accountId)
    .where('webhook_deliveries.camp_id', '=', campId)
    .where('webhook_deliveries.webhook_id', 'is', null);
  return pageOf(query, page);
}

/** The account's deliveries with these ids (those that exist), in no particular order. */
export async function getDeliveriesByIds(
  db: Kysely<Database>,
  accountId: string,
  deliveryIds: readonly string[],
): Promise<Delivery[]> {
  if (deliveryIds.length === 0) return [];
  const rows = await withEventType(db)
    .where('webhook_deliveries.account_id', '=', accountId)
    .where('webhook_deliveries.delivery_id', 'in', deliveryIds)
    .execute();
  return rows.map(toDelivery);
}

export async function getDelivery(
  db: Kysely<Database>,
  accountId: string,
  deliveryId: string,
): Promise<Delivery | null> {
  const row = await withEventType(db)
    .where('webhook_deliveries.account_id', '=', accountId)
    .where('webhook_deliveries.delivery_id', '=', deliveryId)
    .executeTakeFirst();
  return row ? toDelivery(row) : null;
}

/** The postWebhook of the campaign's text pipeline, or null when it has none (or no pipeline). */
async function currentPostWebhook(db: Kysely<Database>, accountId: string, campId: string): Promise<string | null> {
  const row = await db
    .selectFrom('text_pipelines')
    .select('post_webhook')
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId)
    .executeTakeFirst();
  return row?.post_webhook ?? null;
}

/**
 * Queues a finished delivery again, as if new: the same `webhook-id` and body, due now, retried on the schedule.
 * A pending one is CONFLICT (it is already queued, perhaps in flight), and so is one for a disabled webhook.
 */
export async function redeliver(db: Kysely<Database>, accountId: string, deliveryId: string): Promise<Delivery> {
  const current = await getDelivery(db, accountId, deliveryId);
  if (!current) throw notFound('Delivery not found');
  if (current.status === 'pending') throw conflict('Delivery is already pending');
  if (current.webhookId && !(await requireWebhook(db, accountId, current.webhookId)).enabled) {
    throw conflict('Webhook is disabled; enable it before redelivering');
  }
  // A text pipeline delivery goes to the pipeline's postWebhook as it is now; with none (or no pipeline), nowhere.
  const pipelineTarget = current.webhookId ? null : await currentPostWebhook(db, accountId, current.campId);
  if (!current.webhookId && !pipelineTarget) {
    throw conflict('The text pipeline has no postWebhook to deliver to any more');
  }
  // The account's pending cap holds for redeliveries too (docs/webhooks.md "Pending cap").
  if ((await countPendingOf(db, accountId)) >= PENDING_DELIVERIES_PER_ACCOUNT) {
    throw conflict(
      `The account already has ${PENDING_DELIVERIES_PER_ACCOUNT} deliveries pending; redeliver once they have gone out`,
    );
  }
  const now = new Date().toISOString();
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      retries: 0,
      next_attempt_at: now,
      lease_owner: null,
      updated_at: now,
      ...(pipelineTarget ? { target_url: pipelineTarget } : {}),
    })
    .where('account_id', '=', accountId)
    .where('delivery_id', '=', deliveryId)
    .where('status', '!=', 'pending')
    .execute();
  const queued = await getDelivery(db, accountId, deliveryId);
  if (!queued) throw notFound('Delivery not found');
  return queued;
}

/** The columns of a delivery that ends here, unsent, for `reason`. */
export const failedFor = (reason: string) => ({
  status: 'failed' as const,
  lease_owner: null,
  next_attempt_at: null,
  last_error: reason,
  updated_at: new Date().toISOString(),
});

/**
 * Cancels the pending deliveries to a campaign's text pipeline postWebhook (the pipeline is being deleted): they
 * become `failed` with `reason`, unsent, like those of a disabled webhook. Leased ones too: the worker records an
 * outcome only while the delivery is pending, and `claimDueDeliveries` does not hand out a delivery whose pipeline
 * is gone (one a concurrent inbound message added after this ran, say).
 */
export async function cancelPipelineDeliveries(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  reason: string,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set(failedFor(reason))
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId)
    .where('webhook_id', 'is', null)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Points the pending deliveries of a campaign's text pipeline at its new postWebhook (they go where the pipeline
 * now says, as a webhook's go to its current URL), or cancels them when it has none any more.
 */
export async function retargetPipelineDeliveries(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  postWebhook: string | null,
): Promise<void> {
  if (postWebhook === null) {
    await cancelPipelineDeliveries(db, accountId, campId, 'Text pipeline postWebhook removed');
    return;
  }
  await db
    .updateTable('webhook_deliveries')
    .set({ target_url: postWebhook, updated_at: new Date().toISOString() })
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId)
    .where('webhook_id', 'is', null)
    .where('status', '=', 'pending')
    .where('target_url', '!=', postWebhook)
    .execute();
}
