// Webhooks (docs/decisions.md §9): the Webhook type with its deliveries, Query.webhooks, Query.webhook and
// Campaign.webhooks. The mutations are in webhook-mutations.ts; their deprecated aliases in webhook-deprecated.ts.
import { getCampaignsByIds } from '../../../domain/campaigns.js';
import { type Delivery, getDeliveriesByIds, pageWebhookDeliveries } from '../../../domain/deliveries.js';
import {
  campaignIdsOfWebhooks,
  getWebhooksByIds,
  listWebhooks,
  type Webhook,
  webhooksOfCampaigns,
} from '../../../domain/webhooks.js';
import { EVENT_TYPES, type EventType, webhookIdField } from '../../../domain/webhooks.schema.js';
import { EventTypeEnum } from './event-type.js';
import { maskSecret } from '../../../security/secrets.js';
import { builder, INTERNAL_ONLY, viewerOf } from '../builder.js';
import type { Context } from '../context.js';
import { keysetConnection, limitArg, PLAIN_EDGE } from '../pagination.js';
import { CampaignRef } from './campaign.js';

export const EVENT_LIST = EVENT_TYPES.join(', ');
export const WEBHOOK_ID = 'The webhook: its webhookId (wh_…).';

const DeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  description: 'pending (queued, in flight or waiting for a retry) → succeeded | failed.',
  values: {
    PENDING: { value: 'pending', description: 'Queued, in flight, or waiting for a retry (see nextAttemptAt).' },
    SUCCEEDED: { value: 'succeeded', description: 'The receiver answered an attempt with a 2xx in time.' },
    FAILED: {
      value: 'failed',
      description: 'No attempt succeeded and no retry is left, or it was cancelled unsent (lastError says why).',
    },
  } as const,
});

export const WebhookDeliveryRef = builder.loadableNode('WebhookDelivery', {
  // Its columns are read without a resolver call each (src/graphql/schema/plain-fields.ts).
  plainFields: true,
  description:
    'One event on its way to one target. Every attempt carries the same `webhook-id` header: the deliveryId.',
  id: { plain: true, resolve: (delivery: Delivery) => delivery.deliveryId },
  load: (deliveryIds: string[], context) => getDeliveriesByIds(context.db, viewerOf(context).id, deliveryIds),
  sort: (delivery) => delivery.deliveryId,
  fields: (t) => ({
    deliveryId: t.exposeString('deliveryId', {
      description: 'The delivery id: the `webhook-id` header of every attempt.',
    }),
    webhookId: t.exposeString('webhookId', {
      nullable: true,
      description: "Null for deliveries to a text pipeline's postWebhook.",
    }),
    campId: t.exposeString('campId', { description: 'The campaign the event is about: its campId.' }),
    eventId: t.exposeString('eventId', {
      description: 'The event it carries (`evt_…`): `id` in the body, as CampaignEvent.id.',
    }),
    eventType: t.field({
      plain: true,
      type: EventTypeEnum,
      description: 'The type of the event it carries.',
      resolve: (delivery) => delivery.event as EventType,
    }),
    event: t.exposeString('event', {
      description: `The event type: one of ${EVENT_LIST}.`,
      deprecationReason: 'Use eventType.',
    }),
    status: t.field({
      plain: true,
      type: DeliveryStatusEnum,
      description: 'Where the delivery stands.',
      resolve: (delivery) => delivery.status,
    }),
    attempts: t.exposeInt('attempts', { description: 'How many times it has been sent, redeliveries included.' }),
    lastResponseCode: t.exposeInt('lastResponseCode', {
      nullable: true,
      description: 'The HTTP status of the last attempt; null when it got no answer.',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description:
        'Why the last attempt failed, or why it was cancelled unsent; null after a success or before any attempt.',
    }),
    nextAttemptAt: t.field({
      plain: true,
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due (pending deliveries only).',
      resolve: (delivery) => delivery.nextAttemptAt,
    }),
    createdAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the delivery was queued (when the event was raised).',
      resolve: (delivery) => delivery.createdAt,
    }),
    updatedAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the delivery last changed.',
      resolve: (delivery) => delivery.updatedAt,
    }),
  }),
});

/** The one connection type of WebhookDelivery lists, wherever they appear. */
export const WebhookDeliveryConnection = builder.connectionObject(
  {
    type: WebhookDeliveryRef,
    name: 'WebhookDeliveryConnection',
    description: 'A page of WebhookDelivery nodes, and where it stands.',
  },
  { name: 'WebhookDeliveryEdge', description: 'One WebhookDelivery of a page, with its cursor.', ...PLAIN_EDGE },
);

export const WebhookRef = builder.loadableNode('Webhook', {
  // Its columns are read without a resolver call each (src/graphql/schema/plain-fields.ts).
  plainFields: true,
  description:
    'An HTTPS endpoint that receives the events of the campaigns it is attached to, signed the Standard Webhooks way.',
  id: { plain: true, resolve: (webhook: Webhook) => webhook.webhookId },
  load: (webhookIds: string[], context) => getWebhooksByIds(context.db, viewerOf(context).id, webhookIds),
  sort: (webhook) => webhook.webhookId,
  fields: (t) => ({
    webhookId: t.exposeString('webhookId', { description: 'The webhook id (`wh_…`).' }),
    url: t.exposeString('url', { description: 'The http(s) URL the events are posted to.' }),
    eventTypes: t.field({
      plain: true,
      type: [EventTypeEnum],
      description: 'The event types sent to it; empty means all.',
      resolve: (webhook) => webhook.events,
    }),
    events: t.exposeStringList('events', {
      description: `The event types sent to it (${EVENT_LIST}); empty means all.`,
      deprecationReason: 'Use eventTypes.',
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'A note for you, at most 500 characters; null when none.',
    }),
    enabled: t.exposeBoolean('enabled', {
      description: 'Whether events are sent to it; false once disabled (see disabledReason) or set so.',
    }),
    disabledReason: t.exposeString('disabledReason', {
      nullable: true,
      description: 'Why it was disabled, e.g. its receiver answered 410 Gone.',
    }),
    secret: t.string({
      description:
        'The signing secret (whsec_ + base64): verify `webhook-signature` with any Standard Webhooks library. ' +
        'Masked ("****" and its last 4) for a read-only access token.',
      // A read-only token reads it masked: with the secret, a reporting agent could sign deliveries of its own.
      resolve: (webhook, _args, context) => {
        const secret = context.secrets.open(webhook.sealedSecret);
        return context.readOnly ? maskSecret(secret) : secret;
      },
    }),
    createdAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the webhook was registered.',
      resolve: (webhook) => webhook.createdAt,
    }),
    updatedAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the webhook last changed.',
      resolve: (webhook) => webhook.updatedAt,
    }),
    campaigns: t.loadableList({
      type: CampaignRef,
      description: 'The campaigns it is attached to, in the order they were attached: the first `limit`.',
      args: {
        limit: t.arg.int(
          limitArg(MAX_CAMPAIGNS_OF_WEBHOOK, MAX_CAMPAIGNS_OF_WEBHOOK, 'campaigns', 'the first attached'),
        ),
      },
      // One loader per place in the query (`byPath`), so two aliases with different limits are not mixed.
      byPath: true,
      load: (webhookIds: string[], context, args) => campaignsOfWebhooks(context, webhookIds, args.limit),
      resolve: (webhook) => webhook.webhookId,
    }),
    campaignIds: t.loadableList({
      type: 'String',
      subGraphs: INTERNAL_ONLY,
      description: 'The campIds of every campaign it is attached to (the REST door lists them all).',
      load: (webhookIds: string[], context) => campaignIdsOfWebhooks(context.db, viewerOf(context).id, webhookIds),
      resolve: (webhook) => webhook.webhookId,
    }),
    deliveries: t.connection(
      {
        type: WebhookDeliveryRef,
        description: 'Its deliveries, newest first.',
        resolve: (webhook, args, context) =>
          keysetConnection(
            'delivery',
            args,
            (delivery: Delivery) => [delivery.createdAt, delivery.deliveryId],
            (page) => pageWebhookDeliveries(context.db, viewerOf(context).id, webhook.webhookId, page),
          ),
      },
      WebhookDeliveryConnection,
    ),
  }),
});

/** A webhook's campaigns are a bounded list: at most this many, and this many when no limit is given. */
const MAX_CAMPAIGNS_OF_WEBHOOK = 200;

async function campaignsOfWebhooks(context: Context, webhookIds: readonly string[], limit: number) {
  const accountId = viewerOf(context).id;
  const idLists = await campaignIdsOfWebhooks(context.db, accountId, webhookIds, limit);
  const campaigns = await getCampaignsByIds(context.db, accountId, [...new Set(idLists.flat())]);
  const byId = new Map(campaigns.map((campaign) => [campaign.campId, campaign]));
  return idLists.map((ids) => ids.flatMap((id) => byId.get(id) ?? []));
}

builder.objectField(CampaignRef, 'webhooks', (t) =>
  t.loadableList({
    type: WebhookRef,
    description: 'The webhooks attached to this campaign.',
    load: (campIds: string[], context) => webhooksOfCampaigns(context.db, viewerOf(context).id, campIds),
    resolve: (campaign) => campaign.campId,
  }),
);

builder.queryFields((t) => ({
  webhooks: t.field({
    type: [WebhookRef],
    description: 'Your webhooks, oldest first.',
    resolve: (_root, _args, context) => listWebhooks(context.db, viewerOf(context).id),
  }),
  webhook: t.field({
    type: WebhookRef,
    nullable: true,
    description: 'One of your webhooks, or null.',
    args: { webhookId: t.arg.string({ required: true, validate: webhookIdField, description: WEBHOOK_ID }) },
    resolve: async (_root, args, context) =>
      (await getWebhooksByIds(context.db, viewerOf(context).id, [args.webhookId]))[0] ?? null,
  }),
}));
