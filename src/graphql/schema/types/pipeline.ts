// The text pipeline of a campaign: Campaign.textPipeline, setTextPipeline, deleteTextPipeline.
import { TEXT_PIPELINE_DEFAULTS, textPipelineSchema } from '../../../domain/pipelines.schema.js';
import { deleteTextPipeline, getTextPipelines, setTextPipeline, type TextPipeline } from '../../../domain/pipelines.js';
import { campIdField } from '../../../domain/campaigns.schema.js';
import { type Delivery, pagePipelineDeliveries } from '../../../domain/deliveries.js';
import { payloadType, replacedBy, rerooted } from '../payloads.js';
import { builder, viewerOf } from '../builder.js';
import { scopedKey, scopedNode } from '../global-ids.js';
import { keysetConnection } from '../pagination.js';
import { WebhookDeliveryConnection, WebhookDeliveryRef } from './webhook.js';
import { CampaignRef } from './campaign.js';

/** What each setting means, the same on TextPipeline and TextPipelineInput (docs/decisions.md §6). */
const PIPELINE = {
  goal: 'What the text conversation should achieve, 1–2 000 characters.',
  messageDelay: 'Seconds before a message is sent (1–10).',
  mexRetry: 'Retries of a failed postWebhook delivery (1–5).',
  retryDelay: 'Minutes between those retries (1–5).',
  postWebhook: 'http(s) URL (one the URL parser accepts) inbound messages are posted to; null when none.',
  postWebhookDelay: 'Seconds before posting (0–3600).',
};

const TextPipelineRef = builder.loadableNode('TextPipeline', {
  description: 'What happens in text after a campaign: goal, pacing and an outbound webhook.',
  ...scopedNode(
    (pipeline: TextPipeline) => pipeline.campId,
    async (db, accountId, campIds) =>
      (await getTextPipelines(db, accountId, campIds)).filter((p): p is TextPipeline => p !== null),
  ),
  fields: (t) => ({
    campId: t.exposeString('campId', { description: 'The campaign it belongs to: its campId.' }),
    goal: t.exposeString('goal', { description: PIPELINE.goal }),
    messageDelay: t.exposeInt('messageDelay', { description: PIPELINE.messageDelay }),
    mexRetry: t.exposeInt('mexRetry', { description: PIPELINE.mexRetry }),
    retryDelay: t.exposeInt('retryDelay', { description: PIPELINE.retryDelay }),
    postWebhook: t.exposeString('postWebhook', { nullable: true, description: PIPELINE.postWebhook }),
    postWebhookDelay: t.exposeInt('postWebhookDelay', { description: PIPELINE.postWebhookDelay }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'When the text pipeline was last set.',
      resolve: (pipeline) => pipeline.updatedAt,
    }),
    deliveries: t.connection(
      {
        type: WebhookDeliveryRef,
        description: 'Inbound messages posted (or being posted) to postWebhook, newest first.',
        resolve: (pipeline, args, context) =>
          keysetConnection(
            'delivery',
            args,
            (delivery: Delivery) => [delivery.createdAt, delivery.deliveryId],
            (page) => pagePipelineDeliveries(context.db, viewerOf(context).id, pipeline.campId, page),
          ),
      },
      WebhookDeliveryConnection,
    ),
  }),
});

const d = TEXT_PIPELINE_DEFAULTS;
const TextPipelineInput = builder
  .inputType('TextPipelineInput', {
    description: 'A whole configuration: omitted fields take their defaults.',
    fields: (t) => ({
      goal: t.string({ required: true, description: PIPELINE.goal }),
      messageDelay: t.int({ required: true, defaultValue: d.messageDelay, description: PIPELINE.messageDelay }),
      mexRetry: t.int({ required: true, defaultValue: d.mexRetry, description: PIPELINE.mexRetry }),
      retryDelay: t.int({ required: true, defaultValue: d.retryDelay, description: PIPELINE.retryDelay }),
      postWebhook: t.string({
        description: `${PIPELINE.postWebhook} Loopback, private and link-local targets are refused.`,
      }),
      postWebhookDelay: t.int({
        required: true,
        defaultValue: d.postWebhookDelay,
        description: PIPELINE.postWebhookDelay,
      }),
    }),
  })
  .validate(textPipelineSchema);

builder.objectField(CampaignRef, 'textPipeline', (t) =>
  t.loadable({
    type: TextPipelineRef,
    nullable: true,
    description: "The campaign's text pipeline; null when none is set.",
    load: (campIds: string[], context) => getTextPipelines(context.db, viewerOf(context).id, campIds),
    resolve: (campaign) => campaign.campId,
  }),
);

builder.mutationFields((t) => ({
  setTextPipeline: t.field({
    type: TextPipelineRef,
    deprecationReason: replacedBy('textPipelineSet'),
    description: "Sets (replaces) the campaign's text pipeline.",
    args: {
      campId: t.arg.string({ required: true, validate: campIdField, description: 'The campaign: its campId.' }),
      input: t.arg({ type: TextPipelineInput, required: true, description: 'The whole text pipeline.' }),
    },
    resolve: (_root, args, context) =>
      setTextPipeline(context.db, viewerOf(context).id, args.campId, args.input, {
        allowPrivate: context.config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
      }),
  }),
  deleteTextPipeline: t.field({
    type: TextPipelineRef,
    deprecationReason: replacedBy('textPipelineDelete'),
    description:
      'Deletes the text pipeline; returns it as it was. Its postWebhook deliveries not yet sent are cancelled ' +
      '(FAILED, lastError "Text pipeline deleted").',
    args: {
      campId: t.arg.string({ required: true, validate: campIdField, description: 'The campaign: its campId.' }),
    },
    resolve: (_root, args, context) => deleteTextPipeline(context.db, viewerOf(context).id, args.campId),
  }),
}));

// The text pipeline mutations of the convention (docs/graphql.md#mutations); the ones above are deprecated aliases.
const TextPipelineSetInput = builder.inputType('TextPipelineSetInput', {
  description: 'The campaign, and its whole text pipeline (omitted fields take their defaults).',
  fields: (t) => ({
    campId: t.string({ required: true, validate: campIdField, description: 'The campaign: its campId.' }),
    pipeline: t.field({ type: TextPipelineInput, required: true, description: 'The text pipeline.' }),
  }),
});
const TextPipelineDeleteInput = builder.inputType('TextPipelineDeleteInput', {
  description: 'The campaign whose text pipeline to delete.',
  fields: (t) => ({
    campId: t.string({ required: true, validate: campIdField, description: 'The campaign: its campId.' }),
  }),
});

builder.mutationFields((t) => ({
  textPipelineSet: t.field({
    type: payloadType('textPipelineSet', 'textPipeline', TextPipelineRef, 'The text pipeline as it is now.'),
    description: "Sets (replaces) the campaign's text pipeline.",
    args: {
      input: t.arg({ type: TextPipelineSetInput, required: true, description: 'The campaign and its text pipeline.' }),
    },
    resolve: (_root, { input }, context) =>
      rerooted(
        setTextPipeline(context.db, viewerOf(context).id, input.campId, input.pipeline, {
          allowPrivate: context.config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
        }),
        ['input'],
        ['input', 'pipeline'],
      ),
  }),
  textPipelineDelete: t.field({
    type: payloadType('textPipelineDelete', 'textPipeline', TextPipelineRef, 'The text pipeline as it was.', {
      typename: 'TextPipeline',
      nodeKey: (pipeline: TextPipeline, context) => scopedKey(viewerOf(context).id, pipeline.campId),
    }),
    description:
      'Deletes the text pipeline. Its postWebhook deliveries not yet sent are cancelled (FAILED, lastError ' +
      '"Text pipeline deleted").',
    args: {
      input: t.arg({
        type: TextPipelineDeleteInput,
        required: true,
        description: 'The campaign whose text pipeline to delete.',
      }),
    },
    resolve: (_root, { input }, context) => deleteTextPipeline(context.db, viewerOf(context).id, input.campId),
  }),
}));
