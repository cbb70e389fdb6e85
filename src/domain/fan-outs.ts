// Fan-out in bounded slices (docs/webhooks.md "Fan-out"): the delivery rows of events × targets are written at most
// FAN_OUT_SLICE_ROWS at a time, each slice its own short transaction, so one write that fans out to 50 000 deliveries
// never holds the event loop (or SQLite's one connection) for seconds. Each account has at most
// PENDING_DELIVERIES_PER_ACCOUNT pending deliveries; rows beyond it are written `failed`, unsent, with the reason.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import { chunks } from '../db/chunks.js';
import { dialectOf } from '../db/dialect.js';
import type { Database } from '../db/types.js';
import { newId } from '../security/api-keys.js';

/**
 * Delivery rows written per slice: one multi-row insert, its own transaction. On SQLite that is synchronous work
 * (each row goes into six indexes and two foreign-key checks): 200 rows took 15–40 ms on a loaded 2-core machine, long
 * enough to double other tenants' p99 while a large fan-out was written (bench:isolation's fan-out case, 2.0–2.7×);
 * slices of 50 hold the loop a quarter as long (1.6–1.9× in the same case).
 */
export const FAN_OUT_SLICE_ROWS = 50;

/** Pending deliveries one account may have; a delivery beyond it is written `failed` (see `capReason`). */
export const PENDING_DELIVERIES_PER_ACCOUNT = 10_000;

/** Why a delivery beyond the cap was not queued: it says what to do, as the row's last error. */
export const capReason = (cap: number) =>
  `Not sent: the account already had ${cap} deliveries pending; redeliver it once they have gone out`;

/** Where each event of one raise goes, as it was when the raise committed. */
export interface FanOutTarget {
  /** The webhook, or null for the text pipeline's postWebhook. */
  webhookId: string | null;
  url: string | null;
  /** Seconds between retries; null means WEBHOOK_RETRY_SCHEDULE. */
  delays: number[] | null;
  /** When the first attempt is due (ISO 8601). */
  due: string;
}

/** An event whose delivery rows are to be written: its id and creation time. */
interface EventRef {
  eventId: string;
  createdAt: string;
}

/** The account's pending deliveries, counted up to `cap` (an index range of at most `cap` entries). */
export async function countPendingOf(
  db: Kysely<Database> | Transaction<Database>,
  accountId: string,
  cap = PENDING_DELIVERIES_PER_ACCOUNT,
): Promise<number> {
  const { count } = await db
    .selectFrom(
      db
        .selectFrom('webhook_deliveries')
        .select('delivery_id')
        .where('status', '=', 'pending')
        .where('account_id', '=', accountId)
        .limit(cap)
        .as('pending'),
    )
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * Writes the delivery rows of `events` × `targets`: the first `room` pending, the rest `failed` with the cap's reason.
 * Returns how many of each.
 */
export async function insertDeliveries(
  trx: Transaction<Database>,
  fanOut: { accountId: string; campId: string; targets: readonly FanOutTarget[]; room: number; cap: number },
  events: readonly EventRef[],
): Promise<{ pending: number; refused: number }> {
  const now = new Date().toISOString();
  let room = fanOut.room;
  const rows = events.flatMap((event) =>
    fanOut.targets.map((target) => {
      const queued = room-- > 0;
      return {
        delivery_id: newId('msg'),
        account_id: fanOut.accountId,
        camp_id: fanOut.campId,
        event_id: event.eventId,
        webhook_id: target.webhookId,
        target_url: target.url,
        retry_delays: target.delays && JSON.stringify(target.delays),
        status: queued ? 'pending' : 'failed',
        attempts: 0,
        retries: 0,
        next_attempt_at: queued ? target.due : null,
        lease_owner: null,
        last_response_code: null,
        last_error: queued ? null : capReason(fanOut.cap),
        created_at: event.createdAt,
        updated_at: now,
      };
    }),
  );
  for (const chunk of chunks(rows)) await trx.insertInto('webhook_deliveries').values(chunk).execute();
  const pending = Math.max(0, Math.min(fanOut.room, rows.length));
  return { pending, refused: rows.length - pending };
}

/** Records a fan-out of `targets` for events about to be inserted with the returned id (in the raise's transaction). */
export async function recordFanOut(
  trx: Transaction<Database>,
  fanOut: { accountId: string; campId: string; targets: readonly FanOutTarget[]; createdAt: string },
): Promise<string> {
  const fanOutId = `fo_${randomUUID()}`;
  await trx
    .insertInto('fan_outs')
    .values({
      fan_out_id: fanOutId,
      account_id: fanOut.accountId,
      camp_id: fanOut.campId,
      targets: JSON.stringify(fanOut.targets),
      turn_at: fanOut.createdAt,
      created_at: fanOut.createdAt,
    })
    .execute();
  return fanOutId;
}

/** What one slice did: whose fan-out, and how many delivery rows it wrote pending and refused (the cap). */
export interface SliceResult {
  accountId: string;
  pending: number;
  refused: number;
  /** True when this slice finished its fan-out. */
  finished: boolean;
}

/** How many accounts with fan-outs waiting are looked at for one that may go ahead (the others' budgets spent). */
const SKIP_LOOKAHEAD_ACCOUNTS = 50;

/**
 * Expands one slice of the fan-out whose turn it is — the next events of it, up to FAN_OUT_SLICE_ROWS delivery rows —
 * in one transaction: their delivery rows are inserted and the events marked done together, so a crash loses or
 * repeats none. Then the fan-out goes to the back of the queue (round robin between accounts' fan-outs). On PostgreSQL
 * the fan-out row is locked with SKIP LOCKED, so instances expand different fan-outs at once. Null when none is left.
 */
export async function expandFanOutSlice(
  db: Kysely<Database>,
  options: {
    cap?: number;
    sliceRows?: number;
    /** Accounts whose fan-outs wait this time (their work budget is spent): the next account's turn comes. */
    skip?: (accountId: string) => boolean;
  } = {},
): Promise<SliceResult | null> {
  const cap = options.cap ?? PENDING_DELIVERIES_PER_ACCOUNT;
  const sliceRows = options.sliceRows ?? FAN_OUT_SLICE_ROWS;
  // Most polls find nothing: a plain indexed read answers that without a transaction (a write lock on SQLite).
  if (!(await db.selectFrom('fan_outs').select('fan_out_id').limit(1).executeTakeFirst())) return null;
  // The accounts whose turn comes first, less those that wait: their fan-outs keep their place in the queue.
  let accounts: string[] | null = null;
  if (options.skip) {
    const first = await db
      .selectFrom('fan_outs')
      .select('account_id')
      .groupBy('account_id')
      .orderBy((eb) => eb.fn.min('turn_at'))
      .limit(SKIP_LOOKAHEAD_ACCOUNTS)
      .execute();
    accounts = first.map((row) => row.account_id).filter((accountId) => !options.skip!(accountId));
    if (accounts.length === 0) {
      // Every account looked at waits: their fan-outs go to the back of the queue, so that the accounts behind them
      // come into view at the next turn rather than wait for as long as these stay over budget.
      await db
        .updateTable('fan_outs')
        .set({ turn_at: new Date().toISOString() })
        .where(
          'account_id',
          'in',
          first.map((row) => row.account_id),
        )
        .execute();
      return null;
    }
  }
  return db.transaction().execute(async (trx) => {
    let next = trx.selectFrom('fan_outs').selectAll().orderBy('turn_at').orderBy('fan_out_id').limit(1);
    if (accounts) next = next.where('account_id', 'in', accounts);
    const fanOut = await (dialectOf(db) === 'postgres' ? next.forUpdate().skipLocked() : next).executeTakeFirst();
    if (!fanOut) return null;
    const saved = JSON.parse(fanOut.targets) as FanOutTarget[];
    const targets = await currentTargets(trx, fanOut.account_id, fanOut.camp_id, saved);
    const perSlice = Math.max(1, Math.floor(sliceRows / Math.max(1, targets.length)));
    const events = await trx
      .selectFrom('events')
      .select(['event_id', 'created_at'])
      .where('fan_out_id', '=', fanOut.fan_out_id)
      .orderBy('event_id')
      .limit(perSlice)
      .execute();
    let written = { pending: 0, refused: 0 };
    if (events.length > 0 && targets.length > 0) {
      const room = Math.max(0, cap - (await countPendingOf(trx, fanOut.account_id, cap)));
      written = await insertDeliveries(
        trx,
        { accountId: fanOut.account_id, campId: fanOut.camp_id, targets, room, cap },
        events.map((event) => ({ eventId: event.event_id, createdAt: event.created_at })),
      );
    }
    if (events.length > 0) {
      await trx
        .updateTable('events')
        .set({ fan_out_id: null })
        .where(
          'event_id',
          'in',
          events.map((event) => event.event_id),
        )
        .execute();
    }
    const finished = events.length < perSlice;
    if (finished) {
      await trx.deleteFrom('fan_outs').where('fan_out_id', '=', fanOut.fan_out_id).execute();
    } else {
      await trx
        .updateTable('fan_outs')
        .set({ turn_at: new Date().toISOString() })
        .where('fan_out_id', '=', fanOut.fan_out_id)
        .execute();
    }
    return { accountId: fanOut.account_id, ...written, finished };
  });
}

/**
 * The saved targets that can still be delivered to: a webhook deleted since is dropped (its deliveries would have
 * gone with it), and the text pipeline's postWebhook is the one it has now (as pending deliveries follow a changed
 * one) — none when it was removed.
 */
async function currentTargets(
  trx: Transaction<Database>,
  accountId: string,
  campId: string,
  saved: readonly FanOutTarget[],
): Promise<FanOutTarget[]> {
  const webhookIds = saved.flatMap((target) => (target.webhookId ? [target.webhookId] : []));
  const existing = new Set(
    webhookIds.length === 0
      ? []
      : (
          await trx
            .selectFrom('webhooks')
            .select('webhook_id')
            .where('account_id', '=', accountId)
            .where('webhook_id', 'in', webhookIds)
            .execute()
        ).map((row) => row.webhook_id),
  );
  let postWebhook: string | null = null;
  if (saved.some((target) => target.webhookId === null)) {
    const pipeline = await trx
      .selectFrom('text_pipelines')
      .select('post_webhook')
      .where('account_id', '=', accountId)
      .where('camp_id', '=', campId)
      .executeTakeFirst();
    postWebhook = pipeline?.post_webhook ?? null;
  }
  return saved.flatMap((target) => {
    if (target.webhookId) return existing.has(target.webhookId) ? [target] : [];
    return postWebhook ? [{ ...target, url: postWebhook }] : [];
  });
}

/** Fan-outs still to expand, across accounts (a gauge for operators; tests wait for it to reach 0). */
export async function countFanOuts(db: Kysely<Database>): Promise<number> {
  const { count } = await db
    .selectFrom('fan_outs')
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}
