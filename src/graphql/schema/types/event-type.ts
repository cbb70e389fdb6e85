// The closed set of event types (docs/decisions.md §9) as a GraphQL enum: CALL_ENDED for `call.ended`, and so on.
import { EVENT_TYPES, type EventType, eventTypeName } from '../../../domain/webhooks.schema.js';
import { builder } from '../builder.js';

const DESCRIPTIONS: Record<EventType, string> = {
  'campaign.updated': 'A campaign was updated (data: the campaign).',
  'campaign.status_changed': 'A campaign was paused, resumed or completed (data: the campaign and previousStatus).',
  'call.ended': 'A call reached a terminal status, once (data: the call log).',
  'social.message.received': 'A new inbound social message (data: the message).',
  'meeting.booked': 'A meeting was booked (data: the meeting).',
};

export const EventTypeEnum = builder.enumType('EventType', {
  description: 'What happened to a campaign: the `type` of a webhook body, as an enum.',
  values: Object.fromEntries(
    EVENT_TYPES.map((type) => [
      eventTypeName(type),
      { value: type, description: `\`${type}\`: ${DESCRIPTIONS[type]}` },
    ]),
  ) as Record<string, { value: EventType; description: string }>,
});
