// The text pipeline of a campaign: Campaign.textPipeline, setTextPipeline, deleteTextPipeline.
import { TEXT_PIPELINE_DEFAULTS, textPipelineSchema } from '../../domain/pipelines.schema.js';
import { deleteTextPipeline, getTextPipelines, setTextPipeline, type TextPipeline } from '../../domain/pipelines.js';
import { campIdField } from '../../domain/campaigns.schema.js';
import { type Delivery, pagePipelineDeliveries } from '../../domain/deliveries.js';
import { payloadType, replacedBy } from '../payloads.js';
import { builder, viewerOf } from '../builder.js';
import { scopedNode } from '../global-ids.js';
import { keysetConnection } from '../pagination.js';
import { WebhookDeliveryConnection, WebhookDeliveryRef } from './webhook.js';
import { CampaignRef } from './campaign.js';

const TextPipelineRef = builder.loadableNode('TextPipeline', {
  description: 'What happens in text after a campaign: goal, pacing and an outbound webhook.',
  ...scopedNode(
    (pipeline: TextPipeline) => pipeline.campId,
    async (db, accountId, campIds) =>
      (await getTextPipelines(db, accountId, campIds)).filter((p): p is TextPipeline => p !== null),
  ),
  fields: (t) => ({
    campId: t.exposeString('campId'),
    goal: t.exposeString('goal'),
    messageDelay: t.exposeInt('messageDelay', { description: 'Seconds before a message is sent (1–10).' }),
    mexRetry: t.exposeInt('mexRetry', { description: 'Retries of a failed postWebhook delivery (1–5).' }),
    retryDelay: t.exposeInt('retryDelay', { description: 'Minutes between those retries (1–5).' }),
    postWebhook: t.exposeString('postWebhook', {
      nullable: true,
      description: 'http(s) URL inbound messages are posted to.',
    }),
    postWebhookDelay: t.exposeInt('postWebhookDelay', { description: 'Seconds before posting (0–3600).' }),
    updatedAt: t.field({ type: 'DateTime', resolve: (pipeline) => pipeline.updatedAt }),
    deliveries: t.connection(
      {
        type: WebhookDeliveryRef,
        description: 'Inbound messages posted (or being posted) to postWebhook, newest first.',
        resolve: (pipeline, args, context) =>
          keysetConnection(
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
      goal: t.string({ required: true }),
      messageDelay: t.int({ required: true, defaultValue: d.messageDelay }),
      mexRetry: t.int({ required: true, defaultValue: d.mexRetry }),
      retryDelay: t.int({ required: true, defaultValue: d.retryDelay }),
      postWebhook: t.string(),
      postWebhookDelay: t.int({ required: true, defaultValue: d.postWebhookDelay }),
    }),
  })
  .validate(textPipelineSchema);

builder.objectField(CampaignRef, 'textPipeline', (t) =>
  t.loadable({
    type: TextPipelineRef,
    nullable: true,
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
      campId: t.arg.string({ required: true, validate: campIdField }),
      input: t.arg({ type: TextPipelineInput, required: true }),
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
    args: { campId: t.arg.string({ required: true, validate: campIdField }) },
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
    args: { input: t.arg({ type: TextPipelineSetInput, required: true }) },
    resolve: (_root, { input }, context) =>
      setTextPipeline(context.db, viewerOf(context).id, input.campId, input.pipeline, {
        allowPrivate: context.config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
      }),
  }),
  textPipelineDelete: t.field({
    type: payloadType('textPipelineDelete', 'textPipeline', TextPipelineRef, 'The text pipeline as it was.'),
    description:
      'Deletes the text pipeline. Its postWebhook deliveries not yet sent are cancelled (FAILED, lastError ' +
      '"Text pipeline deleted").',
    args: { input: t.arg({ type: TextPipelineDeleteInput, required: true }) },
    resolve: (_root, { input }, context) => deleteTextPipeline(context.db, viewerOf(context).id, input.campId),
  }),
}));
