// Meetings: bookMeeting, cancelMeeting, Query.meeting, Query.upcomingMeetings, Campaign.meetingsConnection (and the
// bounded Campaign.meetings it replaces).
import { z } from 'zod';
import { keysetConnection, limitArg, PLAIN_EDGE } from '../pagination.js';
import { bookMeetingSchema } from '../../../domain/meetings.schema.js';
import {
  getMeetingsByIds,
  bookMeeting,
  cancelMeeting,
  getMeeting,
  type Meeting,
  meetingsOfCampaigns,
  pageMeetingsOfCampaign,
  upcomingMeetings,
} from '../../../domain/meetings.js';
import { payloadType, replacedBy } from '../payloads.js';
import { builder, viewerOf } from '../builder.js';
import { CampaignRef } from './campaign.js';

const ParticipantRef = builder.objectRef<Meeting['participants'][number]>('Participant').implement({
  description: 'Someone invited to a meeting.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Their name.' }),
    email: t.exposeString('email', { nullable: true, description: 'Their e-mail, lower-cased; null when not given.' }),
    phone: t.exposeString('phone', { nullable: true, description: 'E.164.' }),
  }),
});

const MeetingStatusEnum = builder.enumType('MeetingStatus', {
  description: 'Whether a meeting still stands.',
  values: {
    SCHEDULED: { value: 'scheduled', description: 'Booked and not canceled.' },
    CANCELED: { value: 'canceled', description: 'Canceled with `cancelMeeting`.' },
  } as const,
});

export const MeetingRef = builder.loadableNode('Meeting', {
  // Its columns are read without a resolver call each (src/graphql/schema/plain-fields.ts).
  plainFields: true,
  description: 'A meeting booked on the calendar integration for a campaign.',
  id: { plain: true, resolve: (meeting: Meeting) => meeting.meetingId },
  load: (meetingIds: string[], context) => getMeetingsByIds(context.db, viewerOf(context).id, meetingIds),
  sort: (meeting) => meeting.meetingId,
  fields: (t) => ({
    meetingId: t.exposeString('meetingId', { description: 'The meeting id (`mtg_…`).' }),
    campId: t.exposeString('campaignId', { description: 'The campaign the meeting belongs to: its campId.' }),
    campaignId: t.exposeString('campaignId', {
      description: 'The campaign the meeting belongs to: its campId.',
      deprecationReason: 'Use campId.',
    }),
    campaign: t.field({
      type: CampaignRef,
      description: 'The campaign the meeting belongs to.',
      resolve: (meeting) => meeting.campaignId,
    }),
    title: t.exposeString('title', { description: 'What the meeting is about, 1–200 characters.' }),
    startsAt: t.field({
      type: 'DateTime',
      plain: true,
      description: 'When it starts.',
      resolve: (meeting) => meeting.startsAt,
    }),
    endsAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When it ends: after startsAt, at most 24 hours later.',
      resolve: (meeting) => meeting.endsAt,
    }),
    timeZone: t.exposeString('timeZone', { description: 'The zone the meeting is shown in; times are UTC.' }),
    participants: t.field({
      plain: true,
      type: [ParticipantRef],
      description: 'Who is invited (1–50), in the order given.',
      resolve: (meeting) => meeting.participants,
    }),
    status: t.field({
      plain: true,
      type: MeetingStatusEnum,
      description: 'Whether it still stands.',
      resolve: (meeting) => meeting.status,
    }),
    createdAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the meeting was booked.',
      resolve: (meeting) => meeting.createdAt,
    }),
    updatedAt: t.field({
      plain: true,
      type: 'DateTime',
      description: 'When the meeting last changed.',
      resolve: (meeting) => meeting.updatedAt,
    }),
  }),
});

const ParticipantInput = builder.inputType('ParticipantInput', {
  description: 'A name, and an e-mail or an E.164 phone number (or both).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Their name, 1–200 characters.' }),
    email: t.string({ description: 'Their e-mail address, at most 254 characters.' }),
    phone: t.string({ description: 'Their phone number in E.164 (`+33612345678`).' }),
  }),
});

/** The meeting to book: `MeetingBookInput` of meetingBook, and `BookMeetingInput` of the deprecated bookMeeting. */
const meetingToBook = (name: string) =>
  builder
    .inputType(name, {
      description:
        'A meeting to book: at most 24 hours long, not overlapping another scheduled meeting of the account.',
      fields: (t) => ({
        campId: t.string({ required: true, description: 'The campaign: its campId.' }),
        title: t.string({ required: true, description: 'What the meeting is about, 1–200 characters.' }),
        startsAt: t.field({ type: 'DateTime', required: true, description: 'When it starts.' }),
        endsAt: t.field({
          type: 'DateTime',
          required: true,
          description: 'When it ends: after startsAt, at most 24 hours later.',
        }),
        timeZone: t.string({ description: 'An IANA zone known to the server’s time-zone database; UTC when omitted.' }),
        participants: t.field({ type: [ParticipantInput], required: true, description: 'Who to invite: 1–50 people.' }),
      }),
    })
    .validate(bookMeetingSchema);
const BookMeetingInput = meetingToBook('BookMeetingInput');
const MeetingBookInput = meetingToBook('MeetingBookInput');

/** A campaign's meetings are a bounded list: at most this many, and this many when no limit is given. */
const MAX_MEETINGS_OF_CAMPAIGN = 200;

/** The one connection type of Meeting lists. */
const MeetingConnection = builder.connectionObject(
  { type: MeetingRef, name: 'MeetingConnection', description: 'A page of Meeting nodes, and where it stands.' },
  { name: 'MeetingEdge', description: 'One Meeting of a page, with its cursor.', ...PLAIN_EDGE },
);

builder.objectField(CampaignRef, 'meetingsConnection', (t) =>
  t.connection(
    {
      type: MeetingRef,
      description: "The campaign's meetings (any status), in time order (startsAt, then meetingId), page by page.",
      resolve: (campaign, args, context) =>
        keysetConnection(
          'meeting',
          args,
          (meeting: Meeting) => [meeting.startsAt, meeting.meetingId],
          (page) => pageMeetingsOfCampaign(context.db, viewerOf(context).id, campaign.campId, page),
        ),
    },
    MeetingConnection,
  ),
);

builder.objectField(CampaignRef, 'meetings', (t) =>
  t.loadableList({
    type: MeetingRef,
    deprecationReason:
      'Use meetingsConnection: it pages through every meeting (this list stops at `limit`, 200 at most).',
    description: "The campaign's meetings (any status), in time order: the first `limit`.",
    args: {
      limit: t.arg.int(limitArg(MAX_MEETINGS_OF_CAMPAIGN, MAX_MEETINGS_OF_CAMPAIGN, 'meetings', 'the earliest')),
    },
    // One loader per place in the query (`byPath`), so two aliases with different limits are not mixed.
    byPath: true,
    load: (campIds: string[], context, args) =>
      meetingsOfCampaigns(context.db, viewerOf(context).id, campIds, args.limit),
    resolve: (campaign) => campaign.campId,
  }),
);

builder.queryFields((t) => ({
  meeting: t.field({
    type: MeetingRef,
    nullable: true,
    description: 'One of your meetings, or null.',
    args: {
      meetingId: t.arg.string({
        required: true,
        validate: z.string().max(64),
        description: 'The meeting: its meetingId (mtg_…).',
      }),
    },
    resolve: (_root, args, context) => getMeeting(context.db, viewerOf(context).id, args.meetingId),
  }),
  upcomingMeetings: t.field({
    type: [MeetingRef],
    description: 'Scheduled meetings that have not ended, in time order.',
    args: {
      limit: t.arg.int(limitArg(200, 50, 'meetings', 'the soonest')),
    },
    resolve: (_root, args, context) => upcomingMeetings(context.db, viewerOf(context).id, args.limit),
  }),
}));

builder.mutationFields((t) => ({
  bookMeeting: t.field({
    type: MeetingRef,
    deprecationReason: replacedBy('meetingBook'),
    description:
      'Books a meeting for a campaign. The calendar integration must be connected, and a meeting overlapping ' +
      'another scheduled meeting of the account is CONFLICT.',
    args: { input: t.arg({ type: BookMeetingInput, required: true, description: 'The meeting to book.' }) },
    resolve: (_root, args, context) => bookMeeting(context.db, viewerOf(context).id, args.input),
  }),
  cancelMeeting: t.field({
    type: MeetingRef,
    deprecationReason: replacedBy('meetingCancel'),
    description: 'Cancels a scheduled meeting and returns it; one already canceled is returned as it is.',
    args: {
      meetingId: t.arg.string({
        required: true,
        validate: z.string().max(64),
        description: 'The meeting: its meetingId (mtg_…).',
      }),
    },
    resolve: (_root, args, context) => cancelMeeting(context.db, viewerOf(context).id, args.meetingId),
  }),
}));

// The meeting mutations of the convention (docs/graphql.md#mutations); the ones above are deprecated aliases.
const MeetingCancelInput = builder.inputType('MeetingCancelInput', {
  description: 'The meeting to cancel.',
  fields: (t) => ({
    meetingId: t.string({ required: true, validate: z.string().max(64), description: 'Its meetingId (mtg_…).' }),
  }),
});

builder.mutationFields((t) => ({
  meetingBook: t.field({
    type: payloadType('meetingBook', 'meeting', MeetingRef, 'The booked meeting.'),
    description:
      'Books a meeting for a campaign. The calendar integration must be connected, and a meeting overlapping ' +
      'another scheduled meeting of the account is CONFLICT.',
    args: { input: t.arg({ type: MeetingBookInput, required: true, description: 'The meeting to book.' }) },
    resolve: (_root, args, context) => bookMeeting(context.db, viewerOf(context).id, args.input),
  }),
  meetingCancel: t.field({
    type: payloadType('meetingCancel', 'meeting', MeetingRef, 'The meeting, now CANCELED.'),
    description: 'Cancels a scheduled meeting; one already canceled is answered as it is (a retry changes nothing).',
    args: { input: t.arg({ type: MeetingCancelInput, required: true, description: 'The meeting to cancel.' }) },
    resolve: (_root, { input }, context) => cancelMeeting(context.db, viewerOf(context).id, input.meetingId),
  }),
}));
