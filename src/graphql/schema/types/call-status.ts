// The CallStatus enum: the provider's call statuses, shared by the call log type and its list filters.
import { CALL_STATUSES, type CallStatus } from '../../../domain/call-logs.schema.js';
import { builder } from '../builder.js';

/** GraphQL names (IN_PROGRESS) for the provider's statuses (in-progress). */
const CALL_STATUS_DESCRIPTIONS: Record<CallStatus, string> = {
  queued: 'Waiting to be dialled.',
  ringing: 'Dialled; the other end is ringing.',
  'in-progress': 'Answered; the call is going on.',
  completed: 'Answered and ended normally (terminal).',
  busy: 'The other end was busy (terminal).',
  failed: 'The call could not be placed (terminal).',
  'no-answer': 'Nobody answered (terminal).',
  canceled: 'Canceled before it was answered (terminal).',
};

export const CallStatusEnum = builder.enumType('CallStatus', {
  description: "A call's status as the telephony provider reports it; a call only moves forward.",
  values: Object.fromEntries(
    CALL_STATUSES.map((status) => [
      status.toUpperCase().replace('-', '_'),
      { value: status, description: `\`${status}\`: ${CALL_STATUS_DESCRIPTIONS[status]}` },
    ]),
  ) as Record<string, { value: CallStatus; description: string }>,
});
