// The two Meta-style envelopes the social channel posts (docs/decisions.md §8):
//   entry[].changes[].value.messages[]  (id, from, timestamp, text.body)
//   entry[].messaging[]                 (sender.id, timestamp, message.mid, message.text)
import { z } from 'zod';

/** Messages in one delivery: Meta batches at most 1000 (docs/limits.md). */
export const MAX_MESSAGES_PER_DELIVERY = 1000;

/**
 * Text that is stored: NUL (U+0000) refused here, before any database sees it, as on every other door (SQLite stored
 * it; PostgreSQL refused the whole batch at the INSERT).
 */
const storedText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => !value.includes('\u0000'), { message: 'Text must not contain the NUL character (\\u0000)' });

const timestamp = z.union([z.number(), z.string().regex(/^\d+$/)]).transform(Number);

const changeMessage = z
  .object({
    id: storedText(256).min(1),
    from: storedText(256).min(1),
    timestamp: timestamp.optional(),
    text: z
      .object({ body: storedText(65_536) })
      .loose()
      .optional(),
  })
  .loose();

const messagingEvent = z
  .object({
    sender: z.object({ id: storedText(256).min(1) }).loose(),
    timestamp: timestamp.optional(),
    message: z
      .object({ mid: storedText(256).min(1), text: storedText(65_536).optional() })
      .loose()
      .optional(),
  })
  .loose();

export const socialEnvelopeSchema = z
  .object({
    object: z.string().optional(),
    entry: z
      .array(
        z
          .object({
            changes: z
              .array(
                z
                  .object({
                    value: z
                      .object({ messages: z.array(changeMessage).max(MAX_MESSAGES_PER_DELIVERY).optional() })
                      .loose(),
                  })
                  .loose(),
              )
              .max(MAX_MESSAGES_PER_DELIVERY)
              .optional(),
            messaging: z.array(messagingEvent).max(MAX_MESSAGES_PER_DELIVERY).optional(),
          })
          .loose(),
      )
      .max(1000),
  })
  .loose()
  .describe(`A Meta-style envelope; at most ${MAX_MESSAGES_PER_DELIVERY} messages in all its entries together`);

export type SocialEnvelope = z.infer<typeof socialEnvelopeSchema>;

const arrayAt = (value: unknown, key: string): unknown[] => {
  const item = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return Array.isArray(item) ? item : [];
};

/**
 * How many message slots an envelope holds, counted on the parsed JSON before it is validated, so that a delivery
 * of 50 000 tiny messages is refused without validating each of them.
 */
export function countMessageSlots(body: unknown): number {
  let count = 0;
  for (const entry of arrayAt(body, 'entry')) {
    count += arrayAt(entry, 'messaging').length;
    for (const change of arrayAt(entry, 'changes')) {
      const value = change !== null && typeof change === 'object' ? (change as { value?: unknown }).value : undefined;
      count += arrayAt(value, 'messages').length;
    }
  }
  return count;
}

export interface InboundMessage {
  messageId: string;
  sender: string;
  text: string | null;
  receivedAt: string;
}

// Timestamps outside years 1970–9999 are not a time the provider meant (and would not sort as ISO text).
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Seconds or milliseconds since the epoch → ISO 8601; missing or implausible → now. */
function toIso(value: number | undefined, now: Date): string {
  if (value === undefined) return now.toISOString();
  const ms = value < 1e12 ? value * 1000 : value;
  return ms >= 0 && ms <= LATEST ? new Date(ms).toISOString() : now.toISOString();
}

/** Every message of an envelope, in order; delivery receipts and other events without a message are skipped. */
export function messagesOf(envelope: SocialEnvelope, now = new Date()): InboundMessage[] {
  return envelope.entry.flatMap((entry) => [
    ...(entry.changes ?? []).flatMap((change) =>
      (change.value.messages ?? []).map((m) => ({
        messageId: m.id,
        sender: m.from,
        text: m.text?.body ?? null,
        receivedAt: toIso(m.timestamp, now),
      })),
    ),
    ...(entry.messaging ?? []).flatMap((event) =>
      event.message
        ? [
            {
              messageId: event.message.mid,
              sender: event.sender.id,
              text: event.message.text ?? null,
              receivedAt: toIso(event.timestamp, now),
            },
          ]
        : [],
    ),
  ]);
}
