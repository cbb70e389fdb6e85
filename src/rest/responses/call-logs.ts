// The call log of get_call_logs_for_campaign and get_call_logs_for_user, and the telephony callback's answer.
import { z } from 'zod';
import { CALL_STATUSES } from '../../domain/call-logs.schema.js';
import { dateTime } from './common.js';

export const callLogResponse = z
  .object({
    callId: z.string().describe('The provider’s call id (CallSid)'),
    campaignId: z.string().describe('The campaign’s campId'),
    direction: z.string().nullable().describe('The provider’s Direction as reported (outbound-api)'),
    fromNumber: z.string().nullable(),
    toNumber: z.string().nullable(),
    status: z.enum(CALL_STATUSES).describe('The latest status the provider reported'),
    startedAt: dateTime,
    endedAt: dateTime.nullable(),
    durationSeconds: z.int().nullable(),
    cost: z.number().nullable().describe('The provider’s Price, sign dropped'),
    recordingUrl: z.string().nullable(),
    transcript: z.string().nullable(),
    summary: z.string().nullable(),
    analysis: z.unknown().describe('The post-call analysis (any JSON); null until one is recorded'),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({
    id: 'CallLog',
    description:
      'One call: startedAt is when its first callback arrived (since/until bound it), endedAt when a terminal ' +
      'status did (null before)',
  });

export const callbackReceivedResponse = z
  .object({ received: z.literal(true) })
  .meta({ id: 'CallbackReceived', description: 'The callback was verified and applied (or was already)' });
