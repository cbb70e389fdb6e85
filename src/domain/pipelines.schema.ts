// Text pipeline rules (docs/decisions.md §6): the legacy interface's ranges, and decided units and defaults.
import { z } from 'zod';
import { httpUrlField, intField, textField } from '../validation/fields.js';

export const TEXT_PIPELINE_DEFAULTS = {
  messageDelay: 1,
  mexRetry: 1,
  retryDelay: 1,
  postWebhook: null,
  postWebhookDelay: 0,
} as const;

export const textPipelineSchema = z.object({
  goal: textField(1, 2000),
  /** Seconds before a message is sent. */
  messageDelay: intField(1, 10).optional(),
  /** How many times a failed postWebhook delivery is retried. */
  mexRetry: intField(1, 5).optional(),
  /** Minutes between those retries. */
  retryDelay: intField(1, 5).optional(),
  postWebhook: httpUrlField
    .describe(
      'An http(s) URL inbound messages are posted to; loopback, private, link-local and metadata addresses are ' +
        'refused unless the server sets ALLOW_PRIVATE_WEBHOOK_TARGETS',
    )
    .nullish(),
  /** Seconds before an inbound message is posted to postWebhook. */
  postWebhookDelay: intField(0, 3600).optional(),
});

export type TextPipelineInput = z.infer<typeof textPipelineSchema>;
