// Delivery rows of the outbox (docs/decisions.md §9): what the worker claims and records, and what owners see and redeliver.
// A claim is a lease: `next_attempt_at` moves to the lease's end and `lease_owner` names the worker, so a worker
// that dies mid-attempt only delays the delivery until the lease runs out, and another worker takes it then.
import type { Kysely, Selectable } from 'kysely';
import type { Dialect } from '../db/database.js';
import { type KeysetPage, keysetPage } from '../db/keyset.js';
import type { Database, WebhookDeliveriesTable } from '../db/types.js';
import { conflict, notFound } from './errors.js';
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
const failedFor = (reason: string) => ({
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

/** What the worker needs to make one attempt. */
export interface ClaimedDelivery {
  deliveryId: string;
  accountId: string;
  webhookId: string | null;
  /**
   * The webhook's URL (or the pipeline's postWebhook); null when the webhook is disabled (or the text pipeline was
   * deleted): the delivery is then abandoned unsent.
   */
  url: string | null;
  /** Null for text pipeline deliveries, which have no secret. */
  sealedSecret: string | null;
  payload: string;
  /** Seconds between retries; null means WEBHOOK_RETRY_SCHEDULE. */
  retryDelays: number[] | null;
  retries: number;
  /** The end of this claim's lease: with the owner, what identifies the lease when the outcome is recorded. */
  leaseUntil: string;
}

/**
 * Leases up to `limit` due deliveries to `owner` until `leaseUntil`. On PostgreSQL the candidate rows are locked
 * with SKIP LOCKED, so workers of several instances claim disjoint sets; SQLite runs one writer at a time anyway.
 *
 * What is handed out is checked as it is read here, after the lease was taken: a delivery cancelled meanwhile
 * (its text pipeline deleted) is not returned, and one whose pipeline is gone comes with no URL. The worker POSTs
 * at once after the claim, so what remains is the short window between this read and the POST, and the POST
 * itself: a delete that commits then cannot stop it (its outcome is then not recorded: the row is no longer pending).
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  dialect: Dialect,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
): Promise<ClaimedDelivery[]> {
  const due = db
    .selectFrom('webhook_deliveries')
    .select('delivery_id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', claim.now)
    .orderBy('next_attempt_at')
    .limit(claim.limit);
  // Most polls find nothing: a plain indexed read answers that without taking a write lock.
  if (!(await due.limit(1).executeTakeFirst())) return [];
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: claim.leaseUntil, lease_owner: claim.owner })
    .where('delivery_id', 'in', dialect === 'postgres' ? due.forUpdate().skipLocked() : due)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', claim.now)
    .returning('delivery_id')
    .execute();
  if (claimed.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.event_id', 'webhook_deliveries.event_id')
    .leftJoin('webhooks', 'webhooks.webhook_id', 'webhook_deliveries.webhook_id')
    .leftJoin('text_pipelines', (join) =>
      join
        .onRef('text_pipelines.account_id', '=', 'webhook_deliveries.account_id')
        .onRef('text_pipelines.camp_id', '=', 'webhook_deliveries.camp_id'),
    )
    .select([
      'webhook_deliveries.delivery_id',
      'webhook_deliveries.account_id',
      'webhook_deliveries.webhook_id',
      'webhook_deliveries.target_url',
      'webhook_deliveries.retry_delays',
      'webhook_deliveries.retries',
      'events.payload',
      'webhooks.url',
      'webhooks.enabled',
      'webhooks.secret_sealed',
      'text_pipelines.camp_id as pipeline_camp_id',
    ])
    .where(
      'webhook_deliveries.delivery_id',
      'in',
      claimed.map((row) => row.delivery_id),
    )
    .where('webhook_deliveries.status', '=', 'pending')
    .where('webhook_deliveries.lease_owner', '=', claim.owner)
    .execute();
  return rows.map((row) => ({
    deliveryId: row.delivery_id,
    accountId: row.account_id,
    webhookId: row.webhook_id,
    url: row.webhook_id ? (row.enabled ? row.url : null) : row.pipeline_camp_id === null ? null : row.target_url,
    sealedSecret: row.secret_sealed,
    payload: row.payload,
    retryDelays: row.retry_delays === null ? null : (JSON.parse(row.retry_delays) as number[]),
    retries: Number(row.retries),
    leaseUntil: claim.leaseUntil,
  }));
}

/** How an attempt ended; `retryAt` null after a failure means no retry is left (the delivery fails). */
export type AttemptOutcome =
  | { ok: true; responseCode: number }
  | { ok: false; responseCode: number | null; error: string; retryAt: string | null };

/**
 * The lease an outcome is recorded under. An outcome is written only while that very lease is held: the row still
 * names `owner` AND still ends at `leaseUntil`. A lease that ran out belongs to whoever took the delivery next, and
 * the late outcome of the first attempt must not overwrite theirs (attempts, status, response code, next attempt);
 * the end tells two leases of one worker apart (a worker may take over its own delivery after its lease ran out).
 */
export interface Lease {
  owner: string;
  leaseUntil: string;
}

/** Records an attempt, if the lease it was made under is still held (see `Lease`). */
export async function recordAttempt(
  db: Kysely<Database>,
  lease: Lease,
  deliveryId: string,
  outcome: AttemptOutcome,
): Promise<void> {
  const now = new Date().toISOString();
  const common = { lease_owner: null, last_response_code: outcome.responseCode, updated_at: now };
  await db
    .updateTable('webhook_deliveries')
    .set((eb) =>
      outcome.ok
        ? { ...common, status: 'succeeded', attempts: eb('attempts', '+', 1), next_attempt_at: null, last_error: null }
        : {
            ...common,
            status: outcome.retryAt ? 'pending' : 'failed',
            attempts: eb('attempts', '+', 1),
            retries: outcome.retryAt ? eb('retries', '+', 1) : eb.ref('retries'),
            next_attempt_at: outcome.retryAt,
            last_error: outcome.error,
          },
    )
    .where('delivery_id', '=', deliveryId)
    .where('lease_owner', '=', lease.owner)
    .where('next_attempt_at', '=', lease.leaseUntil)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Fails a claimed delivery without an attempt (its webhook was disabled, or its text pipeline deleted, after the
 * event), if the lease is still held.
 */
export async function abandonDelivery(
  db: Kysely<Database>,
  lease: Lease,
  deliveryId: string,
  reason: string,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set(failedFor(reason))
    .where('delivery_id', '=', deliveryId)
    .where('lease_owner', '=', lease.owner)
    .where('next_attempt_at', '=', lease.leaseUntil)
    .where('status', '=', 'pending')
    .execute();
}

/** Turns a webhook off (its receiver answered 410 Gone); new events are no longer sent to it. */
export async function disableWebhook(
  db: Kysely<Database>,
  accountId: string,
  webhookId: string,
  reason: string,
): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ enabled: 0, disabled_reason: reason, updated_at: new Date().toISOString() })
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .execute();
}

/** Deliveries waiting to be sent or retried, across accounts: the outbox backlog (README "Metrics"). */
export async function countPendingDeliveries(db: Kysely<Database>): Promise<number> {
  const { count } = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(count);
}
