// Campaign events and the outbox (docs/decisions.md §9). An event is written in the transaction of the change that raised
// it, together with its delivery rows — one per webhook attached to its campaign (and one for the text pipeline's
// postWebhook when a social message arrives) — or, when events × targets exceed one slice, with a fan-out record that
// workers expand into those rows a slice at a time (src/domain/fan-outs.ts). Either way a committed change always has
// its deliveries and a rolled-back one never does. Listeners (live subscriptions, the delivery worker) hear of events
// only after the commit.
import type { Insertable, Kysely, Transaction } from 'kysely';
import { chunks } from '../db/chunks.js';
import type { Database } from '../db/types.js';
import { newId } from '../security/api-keys.js';
import {
  countPendingOf,
  FAN_OUT_SLICE_ROWS,
  type FanOutTarget,
  insertDeliveries,
  PENDING_DELIVERIES_PER_ACCOUNT,
  recordFanOut,
} from './fan-outs.js';
import { yieldToLoop } from '../core/event-loop.js';
import { traceParentNow } from '../core/tracing.js';
import type { EventType } from './webhooks.schema.js';

export interface CampaignEvent {
  id: string;
  type: EventType;
  accountId: string;
  campId: string;
  createdAt: string;
  data: unknown;
}

/** Records events of one campaign inside the current transaction. */
export type Raise = (campId: string, type: EventType, ...data: unknown[]) => Promise<void>;

type Listener = (events: CampaignEvent[]) => void;
const listeners = new WeakMap<Kysely<Database>, Set<Listener>>();

/** Calls `listener` with the events of every transaction on `db` that commits; returns the unsubscriber. */
export function onEventsCommitted(db: Kysely<Database>, listener: Listener): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** Runs `work` in one transaction in which it may raise events of the account's campaigns. */
export async function withEvents<T>(
  db: Kysely<Database>,
  accountId: string,
  work: (trx: Transaction<Database>, raise: Raise) => Promise<T>,
): Promise<T> {
  const raised: CampaignEvent[] = [];
  const result = await db.transaction().execute((trx) =>
    work(trx, async (campId, type, ...data) => {
      raised.push(...(await recordEvents(trx, accountId, campId, type, data)));
    }),
  );
  if (raised.length > 0) for (const listener of listeners.get(db) ?? []) listener(raised);
  return result;
}

/** The body every receiver gets, byte for byte on every attempt. */
const payloadOf = (event: CampaignEvent) =>
  JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data });

/** Inserts in chunks, letting the event loop run between them (on PostgreSQL other requests then run meanwhile). */
async function insertChunked(trx: Transaction<Database>, rows: Array<Insertable<Database['events']>>): Promise<void> {
  for (const [index, chunk] of chunks(rows).entries()) {
    if (index > 0) await yieldToLoop();
    await trx.insertInto('events').values(chunk).execute();
  }
}

async function recordEvents(
  trx: Transaction<Database>,
  accountId: string,
  campId: string,
  type: EventType,
  data: unknown[],
): Promise<CampaignEvent[]> {
  if (data.length === 0) return [];
  const createdAt = new Date().toISOString();
  const events: CampaignEvent[] = data.map((item) => ({
    id: newId('evt'),
    type,
    accountId,
    campId,
    createdAt,
    data: item,
  }));
  const webhooks = await trx
    .selectFrom('webhooks')
    .innerJoin('webhook_campaigns', 'webhook_campaigns.webhook_id', 'webhooks.webhook_id')
    .select(['webhooks.webhook_id', 'webhooks.events'])
    .where('webhook_campaigns.account_id', '=', accountId)
    .where('webhook_campaigns.camp_id', '=', campId)
    .where('webhooks.enabled', '=', 1)
    .execute();
  const targets: FanOutTarget[] = webhooks
    .filter((w) => {
      const wanted = JSON.parse(w.events) as string[];
      return wanted.length === 0 || wanted.includes(type);
    })
    .map((w) => ({ webhookId: w.webhook_id, url: null, delays: null, due: createdAt }));

  if (type === 'social.message.received') {
    const pipeline = await trx
      .selectFrom('text_pipelines')
      .select(['post_webhook', 'post_webhook_delay', 'mex_retry', 'retry_delay'])
      .where('account_id', '=', accountId)
      .where('camp_id', '=', campId)
      .executeTakeFirst();
    if (pipeline?.post_webhook) {
      // docs/decisions.md §6: posted after postWebhookDelay seconds; a failure retried mexRetry times, retryDelay minutes apart.
      targets.push({
        webhookId: null,
        url: pipeline.post_webhook,
        delays: Array.from({ length: Number(pipeline.mex_retry) }, () => Number(pipeline.retry_delay) * 60),
        due: new Date(Date.parse(createdAt) + Number(pipeline.post_webhook_delay) * 1000).toISOString(),
      });
    }
  }
  const rows = events.length * targets.length;
  // Small fan-outs (one slice, within the account's cap) are written here; bigger ones by the workers, in slices.
  const inline =
    rows <= FAN_OUT_SLICE_ROWS &&
    (rows === 0 || (await countPendingOf(trx, accountId)) + rows <= PENDING_DELIVERIES_PER_ACCOUNT);
  const fanOutId = inline ? null : await recordFanOut(trx, { accountId, campId, targets, createdAt });
  // The span writing them (the request's GraphQL execution): each delivery attempt links to it (docs/observability.md).
  const traceParent = traceParentNow();
  await insertChunked(
    trx,
    events.map((event) => ({
      event_id: event.id,
      account_id: accountId,
      camp_id: campId,
      type,
      payload: payloadOf(event),
      created_at: createdAt,
      fan_out_id: fanOutId,
      trace_parent: traceParent,
    })),
  );
  if (inline && rows > 0) {
    const cap = PENDING_DELIVERIES_PER_ACCOUNT;
    const refs = events.map((event) => ({ eventId: event.id, createdAt }));
    await insertDeliveries(trx, { accountId, campId, targets, room: cap, cap }, refs);
  }
  return events;
}

/** At most this many events are read back for a stream that missed events (an outage of Redis). */
export const MAX_MISSED_EVENTS = 1000;

/**
 * The campaign's events created at or after `since` (ISO 8601) — after `afterId` among those created exactly at
 * `since` — oldest first, one page of at most MAX_MISSED_EVENTS (the outbox is their record).
 */
export async function eventsSince(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  since: string,
  afterId?: string,
): Promise<CampaignEvent[]> {
  const rows = await db
    .selectFrom('events')
    .select(['event_id', 'type', 'camp_id', 'payload', 'created_at'])
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId)
    .where((eb) =>
      afterId === undefined
        ? eb('created_at', '>=', since)
        : eb.or([eb('created_at', '>', since), eb.and([eb('created_at', '=', since), eb('event_id', '>', afterId)])]),
    )
    .orderBy('created_at')
    .orderBy('event_id')
    .limit(MAX_MISSED_EVENTS)
    .execute();
  return rows.map((row) => ({
    id: row.event_id,
    type: row.type as EventType,
    accountId,
    campId: row.camp_id,
    createdAt: row.created_at,
    data: (JSON.parse(row.payload) as { data: unknown }).data,
  }));
}
