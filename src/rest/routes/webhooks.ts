// Webhooks by REST (docs/decisions.md §9): the legacy interface's POST /add_webhook_campaingn (spelled as the legacy interface spells it) and the
// additions POST /create_webhook, GET /get_webhooks, DELETE /remove_webhook.
import { z } from 'zod';
import { campIdField } from '../../domain/campaigns.schema.js';
import {
  type CreateWebhookInput,
  createWebhookSchema,
  MAX_WEBHOOKS_PER_ACCOUNT,
  webhookIdField,
} from '../../domain/webhooks.schema.js';
import { documentAliases } from '../../validation/input-json-schema.js';
import { doneBody } from '../responses/common.js';
import { webhookAttachmentResponse, webhookResponse } from '../responses/webhooks.js';
import { defineRoute } from '../route.js';

const WEBHOOK_FIELDS = 'webhookId url events description enabled disabledReason secret createdAt campaignIds';

/** What WEBHOOK_FIELDS selects is the legacy body, key for key (campaignIds: the internal graph's, all of them). */
type Webhook = z.output<typeof webhookResponse>;

const webhookQuery = z.object({ webhookId: webhookIdField });

/** `campaignId` as in the legacy interface's example; `campId` and `camp_id` as the other routes accept. */
const attachQuery = documentAliases(
  z.preprocess(
    (query) => {
      const q = (query ?? {}) as Record<string, unknown>;
      return { ...q, campaignId: q.campaignId ?? q.campId ?? q.camp_id };
    },
    z.object({
      webhookId: webhookIdField,
      campaignId: campIdField.describe('The campaign’s campId (also accepted as campId or camp_id)'),
    }),
  ),
  'campaignId',
  ['campId', 'camp_id'],
);
const deleted = doneBody('Webhook deleted');

const tag = 'webhooks';

export const webhookRoutes = [
  defineRoute<CreateWebhookInput, undefined, { createWebhook: Webhook }, typeof webhookResponse>({
    method: 'POST',
    path: '/create_webhook',
    summary: 'Register a webhook: {url, events?, description?} → the webhook with its whsec_ signing secret',
    tag,
    auth: true,
    errors: { 409: `The account has ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks already, the most it may have` },
    document: /* GraphQL */ `
      mutation LegacyCreateWebhook($input: CreateWebhookInput!) {
        createWebhook(input: $input) { ${WEBHOOK_FIELDS} }
      }`,
    body: createWebhookSchema,
    response: webhookResponse,
    variables: ({ body }) => ({ input: body }),
    argLocs: { input: ['body'] },
    respond: ({ createWebhook }) => createWebhook,
  }),
  defineRoute<undefined, undefined, { webhooks: Webhook[] }, z.ZodArray<typeof webhookResponse>>({
    method: 'GET',
    path: '/get_webhooks',
    summary: 'Your webhooks, oldest first, with the campaigns each is attached to',
    tag,
    auth: true,
    document: /* GraphQL */ `
      query LegacyGetWebhooks {
        webhooks { ${WEBHOOK_FIELDS} }
      }`,
    response: z.array(webhookResponse),
    variables: () => ({}),
    respond: ({ webhooks }) => webhooks,
  }),
  defineRoute<undefined, z.infer<typeof webhookQuery>, unknown, typeof deleted>({
    method: 'DELETE',
    path: '/remove_webhook',
    summary: 'Delete a webhook, its attachments and its deliveries',
    tag,
    auth: true,
    query: webhookQuery,
    response: deleted,
    document: /* GraphQL */ `
      mutation LegacyRemoveWebhook($webhookId: String!) {
        deleteWebhook(webhookId: $webhookId) {
          webhookId
        }
      }
    `,
    variables: ({ query }) => query,
    argLocs: { webhookId: ['query', 'webhookId'] },
    respond: () => ({ detail: 'Webhook deleted' }),
  }),
  defineRoute<
    undefined,
    z.infer<typeof attachQuery>,
    { attachWebhook: { webhookId: string } },
    typeof webhookAttachmentResponse
  >({
    method: 'POST',
    path: '/add_webhook_campaingn',
    summary: "Attach a webhook to a campaign (it then receives the campaign's events); repeating it is harmless",
    tag,
    auth: true,
    query: attachQuery,
    response: webhookAttachmentResponse,
    document: /* GraphQL */ `
      mutation LegacyAttachWebhook($webhookId: String!, $campId: String!) {
        attachWebhook(webhookId: $webhookId, campId: $campId) {
          webhookId
        }
      }
    `,
    variables: ({ query }) => ({ webhookId: query.webhookId, campId: query.campaignId }),
    argLocs: { webhookId: ['query', 'webhookId'], campId: ['query', 'campaignId'] },
    respond: ({ attachWebhook }, { campId }) => ({
      webhookId: attachWebhook.webhookId,
      campaignId: String(campId),
      attached: true,
    }),
  }),
];
