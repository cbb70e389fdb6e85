// A meeting as the calendar paths show it.
import { z } from 'zod';
import type { MeetingStatus } from '../../domain/meetings.js';
import { dateTime, enumOf } from './common.js';

export const meetingResponse = z
  .object({
    meetingId: z.string(),
    campaignId: z.string().describe('The campaign’s campId'),
    title: z.string(),
    startsAt: dateTime,
    endsAt: dateTime,
    timeZone: z.string().describe('An IANA time zone (Europe/Paris)'),
    participants: z.array(
      z
        .object({ name: z.string(), email: z.string().nullable(), phone: z.string().nullable() })
        .meta({ id: 'Participant' }),
    ),
    status: enumOf<MeetingStatus>({ scheduled: true, canceled: true }),
  })
  .meta({ id: 'Meeting', description: 'A meeting, [startsAt, endsAt) in UTC' });
