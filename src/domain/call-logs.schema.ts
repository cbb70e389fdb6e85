// Call-log rules: the provider's call statuses, callback parameters, listing filters (docs/decisions.md §7).
import { z } from 'zod';
import { dateTimeField, httpUrlField, intField } from '../validation/fields.js';
import { campIdField } from './campaigns.schema.js';

export const CALL_STATUSES = [
  'queued',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'failed',
  'no-answer',
  'canceled',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** A call only moves forward: queued < ringing < in-progress < every terminal status. */
export const STATUS_RANK: Record<CallStatus, number> = {
  queued: 0,
  ringing: 1,
  'in-progress': 2,
  completed: 3,
  busy: 3,
  failed: 3,
  'no-answer': 3,
  canceled: 3,
};
export const isTerminal = (status: CallStatus) => STATUS_RANK[status] === 3;

/** A call's charge is stored as a finite amount: `Price` beyond this (or 400 nines, Infinity) is refused. */
export const MAX_CALL_PRICE = 1_000_000;

const DECIMAL = /^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/;

/** The form parameters of a call-status callback, as the common telephony providers send them. */
export const callbackParamsSchema = z
  .object({
    CallSid: z.string().trim().min(1).max(64).meta({ pattern: '\\S' }),
    CallStatus: z.enum(CALL_STATUSES),
    From: z.string().max(64).optional(),
    To: z.string().max(64).optional(),
    Direction: z.string().max(32).optional(),
    CallDuration: intField(0, 7 * 24 * 3600).optional(),
    /** A decimal string; providers send charges as negative amounts, so the sign is ignored. */
    Price: z
      .string()
      .max(32)
      .regex(DECIMAL, 'must be a decimal number')
      .describe(`A decimal number, at most ${MAX_CALL_PRICE} once its sign is dropped`)
      .transform((price) => Math.abs(Number(price)))
      .refine((price) => price <= MAX_CALL_PRICE, `must be at most ${MAX_CALL_PRICE}`)
      .optional(),
    RecordingUrl: httpUrlField.optional(),
  })
  .loose();

export type CallbackParams = z.infer<typeof callbackParamsSchema>;

export const MAX_CALL_LOG_PAGE = 1000;

/** Filters shared by both doors: status, a time window on startedAt (both ends inclusive), a campaign. */
export const callLogFilterSchema = z.object({
  campId: campIdField.optional(),
  status: z.enum(CALL_STATUSES).optional(),
  since: dateTimeField.optional(),
  until: dateTimeField.optional(),
});

// The defaults show in OpenAPI (src/validation/input-json-schema.ts) and in the descriptions.
export const callLogListQuerySchema = callLogFilterSchema.extend({
  limit: intField(1, MAX_CALL_LOG_PAGE).default(100).describe('At most this many, newest first (100 when omitted)'),
  offset: intField(0, 10_000_000).default(0).describe('Skip this many first (0 when omitted)'),
});

/**
 * A provider's call-status callback form, as its resolver checks it before the signature (and OpenAPI describes it):
 * at most `fields` names of at most `nameLength` characters, values of at most `valueLength`.
 */
export const CALLBACK_FORM_LIMITS = { fields: 100, nameLength: 256, valueLength: 10_000 } as const;
