// The webhook registry (docs/decisions.md §9): an account's webhooks, their signing secrets (sealed at rest) and the
// campaigns each one is attached to. Events of a campaign go to the enabled webhooks attached to it.
import { earlierResult, rememberResult } from './idempotency-keys.js';
import type { Kysely, Selectable } from 'kysely';
import type { Database, WebhooksTable } from '../db/types.js';
import { groupedBy } from '../db/chunks.js';
import { newId } from '../security/api-keys.js';
import type { SecretBox } from '../security/secrets.js';
import { newWebhookSecret } from '../security/webhook-signature.js';
import { refusedTarget } from '../security/webhook-targets.js';
import { serializeForAccount } from './accounts.js';
import { requireCampaign } from './campaigns.js';
import { badInput, conflict, notFound } from '../core/errors.js';
import {
  type CreateWebhookInput,
  type EventType,
  MAX_WEBHOOKS_PER_ACCOUNT,
  type UpdateWebhookInput,
} from './webhooks.schema.js';

export interface Webhook {
  webhookId: string;
  url: string;
  /** Empty means every event type. */
  events: EventType[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  /** The whsec_ secret, sealed; open it with the SecretBox for its owner. */
  sealedSecret: string;
  createdAt: string;
  updatedAt: string;
}

const toWebhook = (row: Selectable<WebhooksTable>): Webhook => ({
  webhookId: row.webhook_id,
  url: row.url,
  events: JSON.parse(row.events) as EventType[],
  description: row.description,
  enabled: Boolean(row.enabled),
  disabledReason: row.disabled_reason,
  sealedSecret: row.secret_sealed,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const webhookNotFound = () => notFound('Webhook not found');

/** Refuses loopback, private, link-local and metadata targets unless the deployment allows them. */
export function checkWebhookTarget(url: string, allowPrivate: boolean, path: Array<string | number>): void {
  if (allowPrivate) return;
  const reason = refusedTarget(url);
  if (reason) {
    throw badInput([
      {
        path,
        type: 'value_error',
        message: `webhook targets must be public: ${reason} (set ALLOW_PRIVATE_WEBHOOK_TARGETS=true for local development)`,
        input: url,
      },
    ]);
  }
}

export async function createWebhook(
  db: Kysely<Database>,
  box: SecretBox,
  accountId: string,
  input: CreateWebhookInput & { idempotencyKey?: string | null | undefined },
  options: { allowPrivate: boolean },
): Promise<Webhook> {
  checkWebhookTarget(input.url, options.allowPrivate, ['input', 'url']);
  // A retry with the key answers the webhook the first request made (src/domain/idempotency-keys.ts).
  const idempotent = input.idempotencyKey
    ? {
        accountId,
        scope: 'webhook.create',
        key: input.idempotencyKey,
        input: { url: input.url, events: [...(input.events ?? [])].sort(), description: input.description ?? null },
      }
    : undefined;
  return db.transaction().execute(async (trx) => {
    // Concurrent creations run one after the other, so the cap holds on PostgreSQL too (and one key makes one).
    await serializeForAccount(trx, accountId);
    const earlier = idempotent ? await earlierResult(trx, idempotent) : undefined;
    if (earlier) {
      const made = await trx
        .selectFrom('webhooks')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('webhook_id', '=', earlier)
        .executeTakeFirst();
      if (!made) throw conflict('The webhook this idempotencyKey created has been deleted since');
      return toWebhook(made);
    }
    const { count } = await trx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw conflict(`An account has at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first`);
    }
    const now = new Date().toISOString();
    const row = await trx
      .insertInto('webhooks')
      .values({
        webhook_id: newId('wh'),
        account_id: accountId,
        url: input.url,
        events: JSON.stringify(input.events ?? []),
        description: input.description ?? null,
        enabled: 1,
        disabled_reason: null,
        secret_sealed: box.seal(newWebhookSecret()),
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (idempotent) await rememberResult(trx, idempotent, row.webhook_id);
    return toWebhook(row);
  });
}

export async function listWebhooks(db: Kysely<Database>, accountId: string): Promise<Webhook[]> {
  const rows = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('webhook_id')
    .execute();
  return rows.map(toWebhook);
}

export async function getWebhooksByIds(
  db: Kysely<Database>,
  accountId: string,
  webhookIds: readonly string[],
): Promise<Webhook[]> {
  if (webhookIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('webhook_id', 'in', webhookIds)
    .execute();
  return rows.map(toWebhook);
}

export async function requireWebhook(db: Kysely<Database>, accountId: string, webhookId: string): Promise<Webhook> {
  const [webhook] = await getWebhooksByIds(db, accountId, [webhookId]);
  if (!webhook) throw webhookNotFound();
  return webhook;
}

export async function updateWebhook(
  db: Kysely<Database>,
  accountId: string,
  webhookId: string,
  patch: UpdateWebhookInput,
  options: { allowPrivate: boolean },
): Promise<Webhook> {
  if (patch.url) checkWebhookTarget(patch.url, options.allowPrivate, ['patch', 'url']);
  const row = await db
    .updateTable('webhooks')
    .set({
      ...(patch.url ? { url: patch.url } : {}),
      ...(patch.events ? { events: JSON.stringify(patch.events) } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.enabled != null ? { enabled: Number(patch.enabled), disabled_reason: null } : {}),
      updated_at: new Date().toISOString(),
    })
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw webhookNotFound();
  return toWebhook(row);
}

/** Deletes the webhook with its attachments and deliveries; returns it as it was. */
export async function deleteWebhook(db: Kysely<Database>, accountId: string, webhookId: string): Promise<Webhook> {
  const row = await db
    .deleteFrom('webhooks')
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', webhookId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw webhookNotFound();
  return toWebhook(row);
}

/** Attaches the webhook to the campaign; attaching it again changes nothing. */
export async function attachWebhook(
  db: Kysely<Database>,
  accountId: string,
  webhookId: string,
  campId: string,
): Promise<Webhook> {
  const webhook = await requireWebhook(db, accountId, webhookId);
  await requireCampaign(db, accountId, campId);
  await db
    .insertInto('webhook_campaigns')
    .values({ webhook_id: webhookId, account_id: accountId, camp_id: campId, created_at: new Date().toISOString() })
    .onConflict((oc) => oc.columns(['webhook_id', 'camp_id']).doNothing())
    .execute();
  return webhook;
}

/** Detaches the webhook from the campaign; detaching one that is not attached changes nothing. */
export async function detachWebhook(
  db: Kysely<Database>,
  accountId: string,
  webhookId: string,
  campId: string,
): Promise<Webhook> {
  const webhook = await requireWebhook(db, accountId, webhookId);
  await requireCampaign(db, accountId, campId);
  await db
    .deleteFrom('webhook_campaigns')
    .where('webhook_id', '=', webhookId)
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId)
    .execute();
  return webhook;
}

/** The webhooks attached to each campaign, oldest first: one query for a page of campaigns. */
export async function webhooksOfCampaigns(
  db: Kysely<Database>,
  accountId: string,
  campIds: readonly string[],
): Promise<Webhook[][]> {
  if (campIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_campaigns')
    .innerJoin('webhooks', 'webhooks.webhook_id', 'webhook_campaigns.webhook_id')
    .selectAll('webhooks')
    .select('webhook_campaigns.camp_id')
    .where('webhook_campaigns.account_id', '=', accountId)
    .where('webhook_campaigns.camp_id', 'in', campIds)
    .orderBy('webhooks.created_at')
    .orderBy('webhooks.webhook_id')
    .execute();
  return groupedBy(campIds, rows, (row) => row.camp_id, toWebhook);
}

/** The campaign ids each webhook is attached to: one query for all the webhooks of a response. */
export async function campaignIdsOfWebhooks(
  db: Kysely<Database>,
  accountId: string,
  webhookIds: readonly string[],
  limit?: number,
): Promise<string[][]> {
  if (webhookIds.length === 0) return [];
  const attached = db
    .selectFrom('webhook_campaigns')
    .select(['webhook_id', 'camp_id', 'created_at'])
    .where('account_id', '=', accountId)
    .where('webhook_id', 'in', webhookIds);
  // With a limit, the first `limit` of each webhook: a window function ranks each webhook's attachments.
  const rows =
    limit === undefined
      ? await attached.orderBy('created_at').orderBy('camp_id').execute()
      : await db
          .selectFrom(
            attached
              .select((eb) =>
                eb.fn
                  .agg<number>('row_number')
                  .over((over) => over.partitionBy('webhook_id').orderBy('created_at').orderBy('camp_id'))
                  .as('place'),
              )
              .as('ranked'),
          )
          .select(['webhook_id', 'camp_id'])
          .where('place', '<=', limit)
          .orderBy('created_at')
          .orderBy('camp_id')
          .execute();
  return groupedBy(
    webhookIds,
    rows,
    (row) => row.webhook_id,
    (row) => row.camp_id,
  );
}
