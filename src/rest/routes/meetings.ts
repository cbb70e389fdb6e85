// The calendar integration with its upcoming meetings, and one meeting by id (docs/decisions.md §8).
import { z } from 'zod';
import { calendar } from '../../domain/integrations.schema.js';
import { defineRoute } from '../route.js';
import { type IntegrationData, legacyIntegration } from './integrations.js';

const MEETING_FIELDS = 'meetingId campaignId title startsAt endsAt timeZone participants { name email phone } status';

interface MeetingData {
  status: string;
  [field: string]: unknown;
}

const legacyMeeting = (meeting: MeetingData) => ({ ...meeting, status: meeting.status.toLowerCase() });

export const meetingRoutes = [
  defineRoute<
    undefined,
    undefined,
    { viewer: { integrations: { calendar: IntegrationData } }; upcomingMeetings: MeetingData[] }
  >({
    method: 'GET',
    path: '/get_calendar_info',
    summary: 'The calendar integration (secrets masked) and the upcoming meetings, in time order',
    tag: 'integrations',
    auth: true,
    document: /* GraphQL */ `
      query LegacyGetCalendar {
        viewer { integrations { calendar { connected updatedAt ${Object.keys(calendar.fields).join(' ')} } } }
        upcomingMeetings(limit: 200) { ${MEETING_FIELDS} }
      }`,
    variables: () => ({}),
    respond: ({ viewer, upcomingMeetings }) => {
      const integration = legacyIntegration(viewer.integrations.calendar);
      return integration && { ...integration, meetings: upcomingMeetings.map(legacyMeeting) };
    },
    missing: calendar.notConnected,
  }),
  defineRoute<undefined, { meeting_id: string }, { meeting: MeetingData | null }>({
    method: 'GET',
    path: '/meetings/get_calendar_info',
    summary: 'One meeting, by meeting_id',
    tag: 'integrations',
    auth: true,
    document: /* GraphQL */ `
      query LegacyGetMeeting($meetingId: String!) { meeting(meetingId: $meetingId) { ${MEETING_FIELDS} } }`,
    query: z.object({ meeting_id: z.string().min(1).max(64) }),
    variables: ({ query }) => ({ meetingId: query.meeting_id }),
    argLocs: { meetingId: ['query', 'meeting_id'] },
    respond: ({ meeting }) => (meeting ? legacyMeeting(meeting) : null),
    missing: 'Meeting not found',
  }),
];
