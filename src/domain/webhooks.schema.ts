// Webhook rules (docs/decisions.md §9): an http(s) URL, the event types it wants (none = all), a description.
import { z } from 'zod';
import { boolField, httpUrlField, textField } from '../validation/fields.js';

export const EVENT_TYPES = [
  'campaign.updated',
  'campaign.status_changed',
  'call.ended',
  'social.message.received',
  'meeting.booked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** `call.ended` → CALL_ENDED, as a type. */
type EnumNameOf<S extends string> = S extends `${infer A}.${infer B}`
  ? `${Uppercase<A>}_${EnumNameOf<B>}`
  : Uppercase<S>;

/** An event type's name in the GraphQL EventType enum: `call.ended` → CALL_ENDED. */
export const eventTypeName = <T extends EventType>(type: T) => type.toUpperCase().replace(/\./g, '_') as EnumNameOf<T>;

/** The event type of an EventType enum name: CALL_ENDED → `call.ended`. */
export const EVENT_TYPE_BY_NAME: ReadonlyMap<string, EventType> = new Map(
  EVENT_TYPES.map((type) => [eventTypeName(type), type]),
);

/** More than this many webhooks on one account is refused: each event is sent to every attached one. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 50;

export const webhookIdField = textField(1, 64);

const urlField = httpUrlField.describe(
  'An http(s) URL; loopback, private, link-local and metadata addresses are refused unless the server sets ' +
    'ALLOW_PRIVATE_WEBHOOK_TARGETS',
);

const eventsField = z
  .array(z.enum(EVENT_TYPES))
  .max(20)
  .transform((events) => [...new Set(events)]);

export const createWebhookSchema = z.object({
  url: urlField,
  /** The event types sent to it; empty or omitted means every type. */
  events: eventsField.nullish(),
  description: textField(0, 500).nullish(),
});
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const updateWebhookSchema = z.object({
  url: urlField.nullish(),
  events: eventsField.nullish(),
  description: textField(0, 500).nullish(),
  /** Re-enables a webhook that was disabled (for instance after its receiver answered 410 Gone), or disables it. */
  enabled: boolField.nullish(),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

/** GraphQL takes `eventTypes` (the EventType enum) beside the deprecated `events` strings: one of them at most. */
const oneOfEventFields = (input: { events?: unknown; eventTypes?: unknown }) =>
  input.events == null || input.eventTypes == null;
const BOTH_EVENT_FIELDS = { message: 'give eventTypes or the deprecated events, not both', path: ['eventTypes'] };

/** An idempotency key (src/domain/idempotency-keys.ts): 1–255 printable ASCII characters, as Stripe's. */
export const idempotencyKeyField = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters (no spaces)')
  .meta({ description: 'Any 1–255 printable ASCII characters' });

export const createWebhookInputSchema = createWebhookSchema
  .extend({ eventTypes: eventsField.nullish(), idempotencyKey: idempotencyKeyField.nullish() })
  .refine(oneOfEventFields, BOTH_EVENT_FIELDS)
  .transform(({ eventTypes, ...input }) => ({ ...input, events: eventTypes ?? input.events }));

export const updateWebhookInputSchema = updateWebhookSchema
  .extend({ eventTypes: eventsField.nullish() })
  .refine(oneOfEventFields, BOTH_EVENT_FIELDS)
  .transform(({ eventTypes, ...patch }) => ({ ...patch, events: eventTypes ?? patch.events }));
