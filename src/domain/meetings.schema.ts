// Meeting rules (docs/decisions.md §8): a campaign, a title, a time window in UTC, a time zone, 1–50 participants.
import { z } from 'zod';
import { dateTimeField, textField, timeZoneField } from '../validation/fields.js';
import { campIdField } from './campaigns.schema.js';

export const participantSchema = z
  .object({
    name: textField(1, 200),
    email: z.email('value is not a valid email address').max(254).nullish(),
    phone: z
      .string()
      .regex(/^\+[1-9]\d{1,14}$/)
      .nullish(),
  })
  .refine((p) => Boolean(p.email || p.phone), { message: 'a participant needs an email or a phone number' });

export const MAX_MEETING_HOURS = 24;

export const bookMeetingSchema = z
  .object({
    campId: campIdField,
    title: textField(1, 200),
    startsAt: dateTimeField,
    endsAt: dateTimeField,
    timeZone: timeZoneField.optional(),
    participants: z.array(participantSchema).min(1).max(50),
  })
  .refine((m) => m.endsAt > m.startsAt, { message: 'endsAt must be after startsAt', path: ['endsAt'] })
  .refine((m) => Date.parse(m.endsAt) - Date.parse(m.startsAt) <= MAX_MEETING_HOURS * 3600_000, {
    message: `a meeting lasts at most ${MAX_MEETING_HOURS} hours`,
    path: ['endsAt'],
  });

export type BookMeetingInput = z.infer<typeof bookMeetingSchema>;
export type Participant = z.infer<typeof participantSchema>;
