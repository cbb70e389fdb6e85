// A campaign's text pipeline configuration, as the text_pipeline_configuration paths answer it.
import { z } from 'zod';
import { dateTime } from './common.js';

export const textPipelineResponse = z
  .object({
    campId: z.string(),
    goal: z.string(),
    messageDelay: z.int().describe('Seconds before a message is sent'),
    mexRetry: z.int().describe('How many times a failed postWebhook delivery is retried'),
    retryDelay: z.int().describe('Minutes between those retries'),
    postWebhook: z.string().nullable().describe('Where inbound messages are posted; null: nowhere'),
    postWebhookDelay: z.int().describe('Seconds before an inbound message is posted to postWebhook'),
    updatedAt: dateTime,
  })
  .meta({ id: 'TextPipeline' });
