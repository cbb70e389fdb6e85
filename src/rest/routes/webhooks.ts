// Webhooks by REST (docs/decisions.md §9): the legacy interface's POST /add_webhook_campaingn (spelled as the legacy interface spells it) and the
// additions POST /create_webhook, GET /get_webhooks, DELETE /remove_webhook.
import { z } from 'zod';
import { campIdField } from '../../domain/campaigns.schema.js';
import {
  createWebhookSchema,
  EVENT_TYPE_BY_NAME,
  type EventType,
  eventTypeName,
  MAX_WEBHOOKS_PER_ACCOUNT,
  webhookIdField,
} from '../../domain/webhooks.schema.js';
import { documentAliases } from '../../validation/input-json-schema.js';
import { doneBody } from '../responses/common.js';
import { webhookAttachmentResponse, webhookResponse } from '../responses/webhooks.js';
import { defineRoute } from '../route.js';
import { graphql, type ResultOf } from '../typed-documents.js';

const LegacyWebhook = graphql(`
  fragment LegacyWebhook on Webhook {
    webhookId
    url
    events: eventTypes
    description
    enabled
    disabledReason
    secret
    createdAt
    campaignIds
  }
`);

/**
 * What LegacyWebhook selects is the legacy body, key for key (campaignIds: the internal graph's, all of them), but
 * for the event types, which GraphQL names by their enum names (CALL_ENDED for `call.ended`).
 */
type Webhook = z.output<typeof webhookResponse>;
type WebhookData = ResultOf<typeof LegacyWebhook>;

/** The legacy body of a webhook: its event types by their wire names, in place. */
const legacyWebhook = (webhook: WebhookData): Webhook => ({
  ...webhook,
  events: webhook.events.map((name) => EVENT_TYPE_BY_NAME.get(name) as EventType),
});

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
  defineRoute({
    method: 'POST',
    path: '/create_webhook',
    summary: 'Register a webhook: {url, events?, description?} → the webhook with its whsec_ signing secret',
    tag,
    auth: true,
    errors: { 409: `The account has ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks already, the most it may have` },
    document: graphql(
      `
        mutation LegacyCreateWebhook($input: WebhookCreateInput!) {
          webhookCreate(input: $input) {
            webhook {
              ...LegacyWebhook
            }
          }
        }
      `,
      [LegacyWebhook],
    ),
    body: createWebhookSchema,
    response: webhookResponse,
    variables: ({ body: { events, ...body } }) => ({
      input: { ...body, ...(events === undefined ? {} : { eventTypes: events?.map(eventTypeName) ?? null }) },
    }),
    argLocs: { 'input.eventTypes': ['body', 'events'], input: ['body'] },
    respond: ({ webhookCreate }) => legacyWebhook(webhookCreate.webhook),
  }),
  defineRoute({
    method: 'GET',
    path: '/get_webhooks',
    summary: 'Your webhooks, oldest first, with the campaigns each is attached to',
    tag,
    auth: true,
    document: graphql(
      `
        query LegacyGetWebhooks {
          webhooks {
            ...LegacyWebhook
          }
        }
      `,
      [LegacyWebhook],
    ),
    response: z.array(webhookResponse),
    variables: () => ({}),
    respond: ({ webhooks }) => webhooks.map(legacyWebhook),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/remove_webhook',
    summary: 'Delete a webhook, its attachments and its deliveries',
    tag,
    auth: true,
    query: webhookQuery,
    response: deleted,
    document: graphql(`
      mutation LegacyRemoveWebhook($input: WebhookDeleteInput!) {
        webhookDelete(input: $input) {
          deletedId
        }
      }
    `),
    variables: ({ query }) => ({ input: query }),
    argLocs: { 'input.webhookId': ['query', 'webhookId'] },
    respond: () => ({ detail: 'Webhook deleted' }),
  }),
  defineRoute({
    method: 'POST',
    path: '/add_webhook_campaingn',
    summary: "Attach a webhook to a campaign (it then receives the campaign's events); repeating it is harmless",
    tag,
    auth: true,
    query: attachQuery,
    response: webhookAttachmentResponse,
    document: graphql(`
      mutation LegacyAttachWebhook($input: WebhookAttachInput!) {
        webhookAttach(input: $input) {
          webhook {
            webhookId
          }
        }
      }
    `),
    variables: ({ query }) => ({ input: { webhookId: query.webhookId, campId: query.campaignId } }),
    argLocs: { 'input.webhookId': ['query', 'webhookId'], 'input.campId': ['query', 'campaignId'] },
    respond: ({ webhookAttach }, { input }) => ({
      webhookId: webhookAttach.webhook.webhookId,
      campaignId: input.campId,
      attached: true as const,
    }),
  }),
];
