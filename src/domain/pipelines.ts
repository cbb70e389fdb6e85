// The text pipeline that follows a campaign: one configuration per campaign (docs/decisions.md §6).
import type { Kysely, Selectable } from 'kysely';
import type { Database, TextPipelinesTable } from '../db/types.js';
import { requireCampaign } from './campaigns.js';
import { cancelPipelineDeliveries, retargetPipelineDeliveries } from './deliveries.js';
import { notFound } from '../core/errors.js';
import { checkWebhookTarget } from './webhooks.js';
import { TEXT_PIPELINE_DEFAULTS, type TextPipelineInput } from './pipelines.schema.js';

export interface TextPipeline {
  campId: string;
  goal: string;
  messageDelay: number;
  mexRetry: number;
  retryDelay: number;
  postWebhook: string | null;
  postWebhookDelay: number;
  updatedAt: string;
}

const toPipeline = (row: Selectable<TextPipelinesTable>): TextPipeline => ({
  campId: row.camp_id,
  goal: row.goal,
  messageDelay: Number(row.message_delay),
  mexRetry: Number(row.mex_retry),
  retryDelay: Number(row.retry_delay),
  postWebhook: row.post_webhook,
  postWebhookDelay: Number(row.post_webhook_delay),
  updatedAt: row.updated_at,
});

const pipelineNotFound = () => notFound('Text pipeline configuration not found');

/**
 * Sets (replaces) the campaign's configuration; omitted fields take their defaults. The postWebhook passes the
 * same target check as a webhook's URL. Pending deliveries follow a changed postWebhook, and are cancelled when it
 * is removed.
 */
export async function setTextPipeline(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  input: TextPipelineInput,
  options: { allowPrivate: boolean },
): Promise<TextPipeline> {
  if (input.postWebhook) checkWebhookTarget(input.postWebhook, options.allowPrivate, ['input', 'postWebhook']);
  await requireCampaign(db, accountId, campId);
  const d = TEXT_PIPELINE_DEFAULTS;
  const values = {
    goal: input.goal,
    message_delay: input.messageDelay ?? d.messageDelay,
    mex_retry: input.mexRetry ?? d.mexRetry,
    retry_delay: input.retryDelay ?? d.retryDelay,
    post_webhook: input.postWebhook ?? d.postWebhook,
    post_webhook_delay: input.postWebhookDelay ?? d.postWebhookDelay,
    updated_at: new Date().toISOString(),
  };
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('text_pipelines')
      .values({ account_id: accountId, camp_id: campId, ...values })
      .onConflict((oc) => oc.columns(['account_id', 'camp_id']).doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    // Deliveries still pending follow the new postWebhook (or are cancelled when it is removed).
    await retargetPipelineDeliveries(trx, accountId, campId, row.post_webhook);
    return toPipeline(row);
  });
}

export async function getTextPipelines(
  db: Kysely<Database>,
  accountId: string,
  campIds: readonly string[],
): Promise<Array<TextPipeline | null>> {
  if (campIds.length === 0) return [];
  const rows = await db
    .selectFrom('text_pipelines')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('camp_id', 'in', campIds)
    .execute();
  const byCampaign = new Map(rows.map((row) => [row.camp_id, toPipeline(row)]));
  return campIds.map((campId) => byCampaign.get(campId) ?? null);
}

/**
 * Deletes the configuration and returns it as it was; unknown campaign or none stored → NOT_FOUND. Its pending
 * postWebhook deliveries are cancelled in the same transaction (see `cancelPipelineDeliveries`).
 */
export async function deleteTextPipeline(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
): Promise<TextPipeline> {
  await requireCampaign(db, accountId, campId);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('text_pipelines')
      .where('account_id', '=', accountId)
      .where('camp_id', '=', campId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw pipelineNotFound();
    await cancelPipelineDeliveries(trx, accountId, campId, 'Text pipeline deleted');
    return toPipeline(row);
  });
}
