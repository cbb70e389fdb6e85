// A webhook as the webhook paths show it, and what attaching one answers.
import { z } from 'zod';
import { EVENT_TYPES } from '../../domain/webhooks.schema.js';
import { dateTime } from './common.js';

export const webhookResponse = z
  .object({
    webhookId: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)).describe('The event types sent to it; empty: every type'),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().describe('Why it was disabled (its receiver answered 410 Gone, ...)'),
    secret: z.string().describe('The signing secret (whsec_ + base64), for Standard Webhooks signatures'),
    createdAt: dateTime,
    campaignIds: z.array(z.string()).describe('The campIds of the campaigns it is attached to'),
  })
  .meta({ id: 'Webhook' });

export const webhookAttachmentResponse = z
  .object({ webhookId: z.string(), campaignId: z.string(), attached: z.literal(true) })
  .meta({ id: 'WebhookAttachment' });
