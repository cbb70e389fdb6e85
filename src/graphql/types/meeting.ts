// Meetings: bookMeeting, cancelMeeting, Query.meeting, Query.upcomingMeetings, Campaign.meetings.
import { z } from 'zod';
import { bookMeetingSchema } from '../../domain/meetings.schema.js';
import {
  getMeetingsByIds,
  bookMeeting,
  cancelMeeting,
  getMeeting,
  type Meeting,
  meetingsOfCampaigns,
  upcomingMeetings,
} from '../../domain/meetings.js';
import { payloadType, replacedBy } from '../payloads.js';
import { builder, viewerOf } from '../builder.js';
import { CampaignRef } from './campaign.js';

const ParticipantRef = builder.objectRef<Meeting['participants'][number]>('Participant').implement({
  description: 'Someone invited to a meeting.',
  fields: (t) => ({
    name: t.exposeString('name'),
    email: t.exposeString('email', { nullable: true }),
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
  description: 'A meeting booked on the calendar integration for a campaign.',
  id: { resolve: (meeting: Meeting) => meeting.meetingId },
  load: (meetingIds: string[], context) => getMeetingsByIds(context.db, viewerOf(context).id, meetingIds),
  sort: (meeting) => meeting.meetingId,
  fields: (t) => ({
    meetingId: t.exposeString('meetingId'),
    campId: t.exposeString('campaignId', { description: 'The campaign the meeting belongs to: its campId.' }),
    campaignId: t.exposeString('campaignId', { deprecationReason: 'Use campId.' }),
    campaign: t.field({ type: CampaignRef, resolve: (meeting) => meeting.campaignId }),
    title: t.exposeString('title'),
    startsAt: t.field({ type: 'DateTime', resolve: (meeting) => meeting.startsAt }),
    endsAt: t.field({ type: 'DateTime', resolve: (meeting) => meeting.endsAt }),
    timeZone: t.exposeString('timeZone', { description: 'The zone the meeting is shown in; times are UTC.' }),
    participants: t.field({ type: [ParticipantRef], resolve: (meeting) => meeting.participants }),
    status: t.field({ type: MeetingStatusEnum, resolve: (meeting) => meeting.status }),
    createdAt: t.field({ type: 'DateTime', resolve: (meeting) => meeting.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (meeting) => meeting.updatedAt }),
  }),
});

const ParticipantInput = builder.inputType('ParticipantInput', {
  description: 'A name, and an e-mail or an E.164 phone number (or both).',
  fields: (t) => ({ name: t.string({ required: true }), email: t.string(), phone: t.string() }),
});

const BookMeetingInput = builder
  .inputType('BookMeetingInput', {
    description: 'A meeting to book: at most 24 hours long, not overlapping another scheduled meeting of the account.',
    fields: (t) => ({
      campId: t.string({ required: true }),
      title: t.string({ required: true }),
      startsAt: t.field({ type: 'DateTime', required: true }),
      endsAt: t.field({ type: 'DateTime', required: true }),
      timeZone: t.string({ description: 'IANA zone; UTC when omitted.' }),
      participants: t.field({ type: [ParticipantInput], required: true }),
    }),
  })
  .validate(bookMeetingSchema);

builder.objectField(CampaignRef, 'meetings', (t) =>
  t.loadableList({
    type: MeetingRef,
    description: "The campaign's meetings, in time order.",
    load: (campIds: string[], context) => meetingsOfCampaigns(context.db, viewerOf(context).id, campIds),
    resolve: (campaign) => campaign.campId,
  }),
);

builder.queryFields((t) => ({
  meeting: t.field({
    type: MeetingRef,
    nullable: true,
    description: 'One of your meetings, or null.',
    args: { meetingId: t.arg.string({ required: true, validate: z.string().max(64) }) },
    resolve: (_root, args, context) => getMeeting(context.db, viewerOf(context).id, args.meetingId),
  }),
  upcomingMeetings: t.field({
    type: [MeetingRef],
    description: 'Scheduled meetings that have not ended, in time order.',
    args: { limit: t.arg.int({ required: true, defaultValue: 50, validate: z.int().min(1).max(200) }) },
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
    args: { input: t.arg({ type: BookMeetingInput, required: true }) },
    resolve: (_root, args, context) => bookMeeting(context.db, viewerOf(context).id, args.input),
  }),
  cancelMeeting: t.field({
    type: MeetingRef,
    deprecationReason: replacedBy('meetingCancel'),
    description: 'Cancels a scheduled meeting (CONFLICT when it is already canceled); returns it.',
    args: { meetingId: t.arg.string({ required: true, validate: z.string().max(64) }) },
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
    args: { input: t.arg({ type: BookMeetingInput, required: true }) },
    resolve: (_root, args, context) => bookMeeting(context.db, viewerOf(context).id, args.input),
  }),
  meetingCancel: t.field({
    type: payloadType('meetingCancel', 'meeting', MeetingRef, 'The meeting, now CANCELED.'),
    description: 'Cancels a scheduled meeting (CONFLICT when it is already canceled).',
    args: { input: t.arg({ type: MeetingCancelInput, required: true }) },
    resolve: (_root, { input }, context) => cancelMeeting(context.db, viewerOf(context).id, input.meetingId),
  }),
}));
