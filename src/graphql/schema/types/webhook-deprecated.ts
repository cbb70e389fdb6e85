// The deprecated webhook mutations (createWebhook, updateWebhook, deleteWebhook, attachWebhook, detachWebhook,
// redeliverWebhookDelivery) and their inputs, kept for a release beside their replacements in webhook-mutations.ts
// (docs/graphql.md#mutations).
import { z } from 'zod';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { redeliver } from '../../../domain/deliveries.js';
import { attachWebhook, createWebhook, deleteWebhook, detachWebhook, updateWebhook } from '../../../domain/webhooks.js';
import { createWebhookInputSchema, updateWebhookInputSchema, webhookIdField } from '../../../domain/webhooks.schema.js';
import { builder, viewerOf } from '../builder.js';
import type { Context } from '../context.js';
import { replacedBy } from '../payloads.js';
import { EventTypeEnum } from './event-type.js';
import { EVENT_LIST, WEBHOOK_ID, WebhookDeliveryRef, WebhookRef } from './webhook.js';

const CAMP_ID = 'The campaign: its campId.';

const CreateWebhookInput = builder
  .inputType('CreateWebhookInput', {
    description: 'A webhook to register.',
    fields: (t) => ({
      url: t.string({
        required: true,
        description: 'http(s); loopback, private and link-local targets are refused.',
      }),
      eventTypes: t.field({
        type: [EventTypeEnum],
        description: 'The event types to send; empty or omitted means all.',
      }),
      events: t.stringList({
        description: `Event types to send (${EVENT_LIST}); empty or omitted means all.`,
        deprecationReason: 'Use eventTypes.',
      }),
      description: t.string({ description: 'A note for you, at most 500 characters.' }),
    }),
  })
  .validate(createWebhookInputSchema);

const UpdateWebhookInput = builder
  .inputType('UpdateWebhookInput', {
    description: 'Only the fields given change.',
    fields: (t) => ({
      url: t.string({ description: 'http(s); loopback, private and link-local targets are refused.' }),
      eventTypes: t.field({ type: [EventTypeEnum], description: 'The event types to send; empty means all.' }),
      events: t.stringList({
        description: `Event types to send (${EVENT_LIST}); empty means all.`,
        deprecationReason: 'Use eventTypes.',
      }),
      description: t.string({ description: 'A note for you, at most 500 characters; null clears it.' }),
      enabled: t.boolean({ description: 'true re-enables a webhook that was disabled (e.g. after a 410 Gone).' }),
    }),
  })
  .validate(updateWebhookInputSchema);

const allowPrivate = (context: Context) => ({ allowPrivate: context.config.ALLOW_PRIVATE_WEBHOOK_TARGETS });

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WebhookRef,
    deprecationReason: replacedBy('webhookCreate'),
    description: 'Registers a webhook; attach it to campaigns to receive their events. Its `secret` signs them.',
    args: { input: t.arg({ type: CreateWebhookInput, required: true, description: 'The webhook to register.' }) },
    resolve: (_root, args, context) =>
      createWebhook(context.db, context.secrets, viewerOf(context).id, args.input, allowPrivate(context)),
  }),
  updateWebhook: t.field({
    type: WebhookRef,
    deprecationReason: replacedBy('webhookUpdate'),
    description: 'Changes the fields given in `patch`; returns the webhook.',
    args: {
      webhookId: t.arg.string({ required: true, validate: webhookIdField, description: WEBHOOK_ID }),
      patch: t.arg({ type: UpdateWebhookInput, required: true, description: 'The fields to change.' }),
    },
    resolve: (_root, args, context) =>
      updateWebhook(context.db, viewerOf(context).id, args.webhookId, args.patch, allowPrivate(context)),
  }),
  deleteWebhook: t.field({
    type: WebhookRef,
    deprecationReason: replacedBy('webhookDelete'),
    description: 'Deletes the webhook, its attachments and its deliveries; returns it as it was.',
    args: { webhookId: t.arg.string({ required: true, validate: webhookIdField, description: WEBHOOK_ID }) },
    resolve: (_root, args, context) => deleteWebhook(context.db, viewerOf(context).id, args.webhookId),
  }),
  attachWebhook: t.field({
    type: WebhookRef,
    deprecationReason: replacedBy('webhookAttach'),
    description: "Sends the campaign's events to the webhook from now on; attaching twice changes nothing.",
    args: {
      webhookId: t.arg.string({ required: true, validate: webhookIdField, description: WEBHOOK_ID }),
      campId: t.arg.string({ required: true, validate: campIdField, description: CAMP_ID }),
    },
    resolve: (_root, args, context) => attachWebhook(context.db, viewerOf(context).id, args.webhookId, args.campId),
  }),
  detachWebhook: t.field({
    type: WebhookRef,
    deprecationReason: replacedBy('webhookDetach'),
    description: "Stops sending the campaign's events to the webhook; detaching twice changes nothing.",
    args: {
      webhookId: t.arg.string({ required: true, validate: webhookIdField, description: WEBHOOK_ID }),
      campId: t.arg.string({ required: true, validate: campIdField, description: CAMP_ID }),
    },
    resolve: (_root, args, context) => detachWebhook(context.db, viewerOf(context).id, args.webhookId, args.campId),
  }),
  redeliverWebhookDelivery: t.field({
    type: WebhookDeliveryRef,
    deprecationReason: replacedBy('webhookDeliveryRedeliver'),
    description: 'Queues a finished delivery again (same webhook-id and body), retried on the schedule.',
    args: {
      deliveryId: t.arg.string({
        required: true,
        validate: z.string().min(1).max(64),
        description: 'The delivery: its deliveryId.',
      }),
    },
    resolve: (_root, args, context) => redeliver(context.db, viewerOf(context).id, args.deliveryId),
  }),
}));
