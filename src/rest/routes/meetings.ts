// The calendar integration with its upcoming meetings, and one meeting by id (docs/decisions.md §8).
import { print } from 'graphql';
import { z } from 'zod';
import { calendar } from '../../domain/integrations.schema.js';
import { lowerCase } from '../responses/common.js';
import { calendarInfoResponse } from '../responses/integrations.js';
import { meetingResponse } from '../responses/meetings.js';
import { defineDeclaredRoute, defineRoute } from '../route.js';
import { graphql, type ResultOf } from '../typed-documents.js';
import { type IntegrationData, legacyIntegration } from './integrations.js';

const LegacyMeeting = graphql(`
  fragment LegacyMeeting on Meeting {
    meetingId
    campaignId: campId
    title
    startsAt
    endsAt
    timeZone
    participants {
      name
      email
      phone
    }
    status
  }
`);

type Meeting = z.output<typeof meetingResponse>;
type MeetingData = ResultOf<typeof LegacyMeeting>;

const legacyMeeting = (meeting: MeetingData): Meeting => ({ ...meeting, status: lowerCase(meeting.status) });

export const meetingRoutes = [
  // The calendar's fields come from its declaration: typed from it (and the meetings from their fragment).
  defineDeclaredRoute<
    undefined,
    undefined,
    { viewer: { integrations: { calendar: IntegrationData } }; upcomingMeetings: MeetingData[] },
    typeof calendarInfoResponse
  >({
    method: 'GET',
    path: '/get_calendar_info',
    summary: 'The calendar integration (secrets masked) and the upcoming meetings, in time order',
    tag: 'integrations',
    auth: true,
    document: /* GraphQL */ `
      query LegacyGetCalendar {
        viewer { integrations { calendar { connected updatedAt ${Object.keys(calendar.fields).join(' ')} } } }
        upcomingMeetings(limit: 200) { ...LegacyMeeting }
      }
      ${print(LegacyMeeting)}`,
    response: calendarInfoResponse,
    variables: () => ({}),
    respond: ({ viewer, upcomingMeetings }) => {
      const integration = legacyIntegration(viewer.integrations.calendar);
      return integration && { ...integration, meetings: upcomingMeetings.map(legacyMeeting) };
    },
    missing: calendar.notConnected,
  }),
  defineRoute({
    method: 'GET',
    path: '/meetings/get_calendar_info',
    summary: 'One meeting, by meeting_id',
    tag: 'integrations',
    auth: true,
    document: graphql(
      `
        query LegacyGetMeeting($meetingId: String!) {
          meeting(meetingId: $meetingId) {
            ...LegacyMeeting
          }
        }
      `,
      [LegacyMeeting],
    ),
    query: z.object({ meeting_id: z.string().min(1).max(64) }),
    response: meetingResponse,
    variables: ({ query }) => ({ meetingId: query.meeting_id }),
    argLocs: { meetingId: ['query', 'meeting_id'] },
    respond: ({ meeting }) => (meeting ? legacyMeeting(meeting) : null),
    missing: 'Meeting not found',
  }),
];
