// The webhook mutations of the convention (docs/graphql.md#mutations): one `input:`, a `…Payload` answer. The
// verb-first ones in webhook.ts are their deprecated aliases.
import { z } from 'zod';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { redeliver } from '../../../domain/deliveries.js';
import { attachWebhook, createWebhook, deleteWebhook, detachWebhook, updateWebhook } from '../../../domain/webhooks.js';
import type { Webhook } from '../../../domain/webhooks.js';
import { createWebhookInputSchema, updateWebhookInputSchema, webhookIdField } from '../../../domain/webhooks.schema.js';
import { builder, viewerOf } from '../builder.js';
import type { Context } from '../context.js';
import { payloadType, rerooted } from '../payloads.js';
import { EventTypeEnum } from './event-type.js';
import { WebhookDeliveryRef, WebhookRef } from './webhook.js';

const allowPrivate = (context: Context) => ({ allowPrivate: context.config.ALLOW_PRIVATE_WEBHOOK_TARGETS });
const WEBHOOK_ID = 'The webhook: its webhookId (wh_…).';
const CAMP_ID = 'The campaign: its campId.';

const WebhookCreateInput = builder
  .inputType('WebhookCreateInput', {
    description: 'A webhook to register.',
    fields: (t) => ({
      url: t.string({
        required: true,
        description:
          'An http(s) URL the URL parser accepts, at most 2048 characters; loopback, private and link-local targets are refused.',
      }),
      eventTypes: t.field({ type: [EventTypeEnum], description: 'The event types to send; empty or omitted: all.' }),
      description: t.string({ description: 'A note for you, at most 500 characters.' }),
      idempotencyKey: t.string({
        description:
          'Optional, 1–255 printable ASCII characters: a retry with the same key and input answers the webhook the ' +
          'first request made (for a day) instead of making another.',
      }),
    }),
  })
  .validate(createWebhookInputSchema);

const WebhookUpdateInput = builder
  .inputType('WebhookUpdateInput', {
    description: 'Which webhook, and the fields to change: only the fields given change.',
    fields: (t) => ({
      webhookId: t.string({ required: true, description: WEBHOOK_ID }),
      url: t.string({
        description:
          'An http(s) URL the URL parser accepts, at most 2048 characters; loopback, private and link-local targets are refused.',
      }),
      eventTypes: t.field({ type: [EventTypeEnum], description: 'The event types to send; empty means all.' }),
      description: t.string({ description: 'A note for you, at most 500 characters.' }),
      enabled: t.boolean({ description: 'true re-enables a webhook that was disabled (e.g. after a 410 Gone).' }),
    }),
  })
  .validate(z.intersection(z.object({ webhookId: webhookIdField }), updateWebhookInputSchema));

const webhookIdInput = (name: string, description: string) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({ webhookId: t.string({ required: true, validate: webhookIdField, description: WEBHOOK_ID }) }),
  });

const attachmentInput = (name: string, description: string) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({
      webhookId: t.string({ required: true, validate: webhookIdField, description: WEBHOOK_ID }),
      campId: t.string({ required: true, validate: campIdField, description: CAMP_ID }),
    }),
  });

const WebhookDeliveryRedeliverInput = builder.inputType('WebhookDeliveryRedeliverInput', {
  description: 'The delivery to send again.',
  fields: (t) => ({
    deliveryId: t.string({
      required: true,
      validate: z.string().min(1).max(64),
      description: 'The delivery: its deliveryId.',
    }),
  }),
});

builder.mutationFields((t) => ({
  webhookCreate: t.field({
    type: payloadType('webhookCreate', 'webhook', WebhookRef, 'The new webhook; its `secret` signs every delivery.'),
    description: 'Registers a webhook; attach it to campaigns to receive their events.',
    args: { input: t.arg({ type: WebhookCreateInput, required: true, description: 'The webhook to register.' }) },
    resolve: (_root, { input }, context) =>
      createWebhook(context.db, context.secrets, viewerOf(context).id, input, allowPrivate(context)),
  }),
  webhookUpdate: t.field({
    type: payloadType('webhookUpdate', 'webhook', WebhookRef, 'The webhook as it is now.'),
    description: 'Changes the fields given.',
    args: {
      input: t.arg({ type: WebhookUpdateInput, required: true, description: 'The webhook and the fields to change.' }),
    },
    resolve: (_root, { input: { webhookId, ...patch } }, context) =>
      rerooted(
        updateWebhook(context.db, viewerOf(context).id, webhookId, patch, allowPrivate(context)),
        ['patch'],
        ['input'],
      ),
  }),
  webhookDelete: t.field({
    type: payloadType('webhookDelete', 'webhook', WebhookRef, 'The webhook as it was.', {
      typename: 'Webhook',
      nodeKey: (webhook: Webhook) => webhook.webhookId,
    }),
    description: 'Deletes the webhook, its attachments and its deliveries.',
    args: {
      input: t.arg({
        type: webhookIdInput('WebhookDeleteInput', 'The webhook to delete.'),
        required: true,
        description: 'The webhook to delete.',
      }),
    },
    resolve: (_root, { input }, context) => deleteWebhook(context.db, viewerOf(context).id, input.webhookId),
  }),
  webhookAttach: t.field({
    type: payloadType('webhookAttach', 'webhook', WebhookRef, 'The webhook, now attached.'),
    description: "Sends the campaign's events to the webhook from now on; attaching twice changes nothing.",
    args: {
      input: t.arg({
        type: attachmentInput('WebhookAttachInput', 'The webhook and the campaign.'),
        required: true,
        description: 'The webhook and the campaign to attach it to.',
      }),
    },
    resolve: (_root, { input }, context) =>
      attachWebhook(context.db, viewerOf(context).id, input.webhookId, input.campId),
  }),
  webhookDetach: t.field({
    type: payloadType('webhookDetach', 'webhook', WebhookRef, 'The webhook, now detached.'),
    description: "Stops sending the campaign's events to the webhook; detaching twice changes nothing.",
    args: {
      input: t.arg({
        type: attachmentInput('WebhookDetachInput', 'The webhook and the campaign.'),
        required: true,
        description: 'The webhook and the campaign to detach it from.',
      }),
    },
    resolve: (_root, { input }, context) =>
      detachWebhook(context.db, viewerOf(context).id, input.webhookId, input.campId),
  }),
  webhookDeliveryRedeliver: t.field({
    type: payloadType('webhookDeliveryRedeliver', 'delivery', WebhookDeliveryRef, 'The delivery, queued again.'),
    description: 'Queues a finished delivery again (same webhook-id and body), retried on the schedule.',
    args: {
      input: t.arg({ type: WebhookDeliveryRedeliverInput, required: true, description: 'The delivery to send again.' }),
    },
    resolve: (_root, { input }, context) => redeliver(context.db, viewerOf(context).id, input.deliveryId),
  }),
}));
