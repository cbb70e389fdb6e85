// The delivery worker's lease store (docs/decisions.md §9): it claims due deliveries of every account, records each
// attempt's outcome, abandons what can no longer be sent. A claim is a lease: `next_attempt_at` moves to the lease's
// end and `lease_owner` names the worker, so a worker that dies mid-attempt only delays the delivery until the lease
// runs out, and another worker takes it then. What owners see of deliveries is src/domain/deliveries.ts.
import { type Kysely, sql, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import { dialectOf } from '../db/dialect.js';
import type { Database } from '../db/types.js';
import { failedFor } from './deliveries.js';

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
  /** The W3C traceparent of the span that wrote the event (its attempts' spans link to it), or null. */
  traceParent: string | null;
  /** When the event was committed (ISO): a delivery's lag is measured from it (docs/observability.md "Metrics"). */
  eventCreatedAt: string;
}

/** Where a worker's round robin between accounts stands: the last account it claimed for. */
export interface ClaimCursor {
  after: string;
}

/** Accounts served by one claim, at most: each gets an equal share of it. */
export const MAX_ACCOUNTS_PER_CLAIM = 32;

/**
 * Up to `max` accounts with due deliveries, in account order after `after`: a loose index scan (one index probe per
 * account, on webhook_deliveries_account_due) that does not read one account's backlog row by row.
 */
async function accountsWithDue(db: Kysely<Database>, now: string, after: string, max: number): Promise<string[]> {
  const { rows } = await sql<{ account_id: string }>`
    with recursive due_accounts(account_id, depth) as (
      select (
        select min(account_id) from webhook_deliveries
        where status = 'pending' and account_id > ${after} and next_attempt_at <= ${now}
      ), 1
      union all
      select (
        select min(d.account_id) from webhook_deliveries d
        where d.status = 'pending' and d.account_id > due_accounts.account_id and d.next_attempt_at <= ${now}
      ), depth + 1
      from due_accounts where due_accounts.account_id is not null and depth < ${max}
    )
    select account_id from due_accounts where account_id is not null`.execute(db);
  return rows.map((row) => row.account_id);
}

/**
 * Leases up to `limit` due deliveries to `owner` until `leaseUntil`, shared fairly between the accounts that have
 * some due: round robin from `cursor` (which moves on), each account at most an equal share of the claim, the
 * oldest due first within it — so one account's backlog of thousands does not hold up another's single delivery.
 * On PostgreSQL the candidate rows are locked with SKIP LOCKED, so workers of several instances claim disjoint sets;
 * SQLite runs one writer at a time anyway.
 *
 * What is handed out is checked as it is read here, after the lease was taken: a delivery cancelled meanwhile
 * (its text pipeline deleted) is not returned, and one whose pipeline is gone comes with no URL. The worker POSTs
 * at once after the claim, so what remains is the short window between this read and the POST, and the POST
 * itself: a delete that commits then cannot stop it (its outcome is then not recorded: the row is no longer pending).
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  claim: {
    owner: string;
    now: string;
    leaseUntil: string;
    limit: number;
    cursor?: ClaimCursor;
    /** Accounts not to claim for this time (their work budget is spent): their turn in the rotation passes. */
    skip?: (accountId: string) => boolean;
  },
): Promise<ClaimedDelivery[]> {
  const cursor = claim.cursor ?? { after: '' };
  const most = Math.min(MAX_ACCOUNTS_PER_CLAIM, claim.limit);
  // Most polls find nothing: the first probe answers that without taking a write lock.
  let accounts = await accountsWithDue(db, claim.now, cursor.after, most);
  if (accounts.length < most && cursor.after !== '') {
    const wrapped = await accountsWithDue(db, claim.now, '', most - accounts.length);
    accounts = [...accounts, ...wrapped.filter((account) => !accounts.includes(account))];
  }
  if (accounts.length === 0) return [];
  cursor.after = accounts.length < most ? '' : accounts[accounts.length - 1]!;
  if (claim.skip) accounts = accounts.filter((account) => !claim.skip!(account));
  if (accounts.length === 0) return [];
  const share = Math.ceil(claim.limit / accounts.length);
  const oldestDue = (accountId: string) =>
    db
      .selectFrom(
        db
          .selectFrom('webhook_deliveries')
          .select('delivery_id')
          .where('status', '=', 'pending')
          .where('account_id', '=', accountId)
          .where('next_attempt_at', '<=', claim.now)
          .orderBy('next_attempt_at')
          .limit(share)
          .as('due'),
      )
      .select('delivery_id');
  const candidates = accounts
    .slice(1)
    .reduce((query, accountId) => query.unionAll(oldestDue(accountId)), oldestDue(accounts[0]!));
  const ids = (await candidates.execute()).map((row) => row.delivery_id).slice(0, claim.limit);
  if (ids.length === 0) return [];
  const still = db
    .selectFrom('webhook_deliveries')
    .select('delivery_id')
    .where('delivery_id', 'in', ids)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', claim.now);
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: claim.leaseUntil, lease_owner: claim.owner })
    .where('delivery_id', 'in', dialectOf(db) === 'postgres' ? still.forUpdate().skipLocked() : still)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', claim.now)
    // The account and webhook as well: what a live query of the delivery keys on (src/db/written-rows.ts).
    .returning(['delivery_id', 'account_id', 'webhook_id'])
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
      'events.trace_parent',
      'events.created_at as event_created_at',
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
    traceParent: row.trace_parent,
    eventCreatedAt: row.event_created_at,
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

type DeliveryUpdate = UpdateQueryBuilder<Database, 'webhook_deliveries', 'webhook_deliveries', UpdateResult>;

/** Limits an update to the delivery while `lease` on it is still held (see `Lease`): pending, same owner, same end. */
const whileLeaseHeld =
  (lease: Lease, deliveryId: string) =>
  (query: DeliveryUpdate): DeliveryUpdate =>
    query
      .where('delivery_id', '=', deliveryId)
      .where('lease_owner', '=', lease.owner)
      .where('next_attempt_at', '=', lease.leaseUntil)
      .where('status', '=', 'pending');

/**
 * What an update of a delivery returns, though nobody here reads it: live queries are invalidated by the rows a write
 * names or returns (src/db/written-rows.ts), and these name the delivery's account and webhook.
 */
const LIVE_KEY_COLUMNS = ['delivery_id', 'account_id', 'webhook_id'] as const;

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
    .$call(whileLeaseHeld(lease, deliveryId))
    .returning(LIVE_KEY_COLUMNS)
    .execute();
}

/**
 * Records many successful attempts made under one lease end, in one statement (the worker gathers those that end
 * in the same turn of the event loop: one write instead of one per delivery), each only while its lease is held.
 */
export async function recordSuccesses(
  db: Kysely<Database>,
  lease: Lease,
  deliveryIds: readonly string[],
  responseCode: number,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      lease_owner: null,
      last_response_code: responseCode,
      updated_at: new Date().toISOString(),
      status: 'succeeded',
      attempts: eb('attempts', '+', 1),
      next_attempt_at: null,
      last_error: null,
    }))
    .where('delivery_id', 'in', deliveryIds)
    .where('lease_owner', '=', lease.owner)
    .where('next_attempt_at', '=', lease.leaseUntil)
    .where('status', '=', 'pending')
    .returning(LIVE_KEY_COLUMNS)
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
    .$call(whileLeaseHeld(lease, deliveryId))
    .returning(LIVE_KEY_COLUMNS)
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

/** Deliveries waiting to be sent or retried, across accounts: the outbox backlog (docs/observability.md "Metrics"). */
export async function countPendingDeliveries(db: Kysely<Database>): Promise<number> {
  const { count } = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * How long the longest-waiting delivery that is due has been waiting, in seconds (0: none is due): the worker's lag
 * (docs/observability.md "Metrics"). A retry scheduled for later is not late. One probe of webhook_deliveries_due.
 */
export async function oldestDueDeliverySeconds(db: Kysely<Database>, now = new Date()): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('next_attempt_at')
    .where('status', '=', 'pending')
    .where('next_attempt_at', 'is not', null)
    .orderBy('next_attempt_at')
    .limit(1)
    .executeTakeFirst();
  const due = row?.next_attempt_at ? Date.parse(row.next_attempt_at) : NaN;
  return Number.isFinite(due) ? Math.max(0, (now.getTime() - due) / 1000) : 0;
}
