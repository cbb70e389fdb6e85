// Meetings (docs/decisions.md §8, §10; docs/graphql.md): bookMeeting needs the calendar integration, validates its input, refuses
// overlapping scheduled meetings of one account (also under concurrency), cancelMeeting, the listings
// (Campaign.meetings, Query.upcomingMeetings, Query.meeting), the legacy REST doors (GET /get_calendar_info and
// GET /meetings/get_calendar_info), tenancy, and the cascade when a campaign is deleted.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

const MEETING_FIELDS = /* GraphQL */ `
  fragment MeetingFields on Meeting {
    meetingId
    campaignId
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
`;

const BOOK = /* GraphQL */ `
  mutation Book($input: BookMeetingInput!) {
    bookMeeting(input: $input) {
      ...MeetingFields
      createdAt
      updatedAt
      campaign {
        campId
      }
    }
  }
  ${MEETING_FIELDS}
`;
const CANCEL = /* GraphQL */ `
  mutation Cancel($meetingId: String!) {
    cancelMeeting(meetingId: $meetingId) {
      ...MeetingFields
    }
  }
  ${MEETING_FIELDS}
`;
const MEETING = /* GraphQL */ `
  query Meeting($meetingId: String!) {
    meeting(meetingId: $meetingId) {
      ...MeetingFields
    }
  }
  ${MEETING_FIELDS}
`;
const UPCOMING = /* GraphQL */ `
  query Upcoming($limit: Int) {
    upcomingMeetings(limit: $limit) {
      ...MeetingFields
    }
  }
  ${MEETING_FIELDS}
`;
const CAMPAIGN_MEETINGS = /* GraphQL */ `
  query CampaignMeetings($campId: String!) {
    campaign(campId: $campId) {
      campId
      meetings {
        ...MeetingFields
      }
    }
  }
  ${MEETING_FIELDS}
`;
const ALL_CAMPAIGN_MEETINGS = /* GraphQL */ `
  query AllCampaignMeetings {
    campaigns(first: 100) {
      edges {
        node {
          campId
          meetings {
            meetingId
            startsAt
          }
        }
      }
    }
  }
`;
const DELETE_CAMPAIGN = /* GraphQL */ `
  mutation DeleteCampaign($campId: String!) {
    deleteCampaign(campId: $campId) {
      campId
    }
  }
`;

const CALENDAR = { apiKey: 'cal-key-1234', schedulingUrl: 'https://cal.example.com/me' };
const DAY = '2030-01-01';
/** A UTC instant on DAY (or another day), as the API returns it. */
const at = (hhmm: string, day = DAY) => `${day}T${hhmm}:00.000Z`;

const ANN = { name: 'Ann Lee', email: 'ann@example.com', phone: '+14155550123' };

type Issue = { path: Array<string | number>; message: string; type?: string };
type GqlError = { message: string; path?: string[]; extensions: { code: string; issues?: Issue[] } };

interface MeetingOut {
  meetingId: string;
  campaignId: string;
  title: string;
  startsAt: string;
  endsAt: string;
  timeZone: string;
  participants: Array<{ name: string; email: string | null; phone: string | null }>;
  status: string;
}

/** The legacy REST shape of a meeting: exactly these keys, status in lower case. */
const legacy = (meeting: MeetingOut) => ({
  meetingId: meeting.meetingId,
  campaignId: meeting.campaignId,
  title: meeting.title,
  startsAt: meeting.startsAt,
  endsAt: meeting.endsAt,
  timeZone: meeting.timeZone,
  participants: meeting.participants,
  status: meeting.status.toLowerCase(),
});

describe('meetings', () => {
  let t: TestApp;
  let token: string;

  beforeEach(async () => {
    t = await startApp();
    ({ token } = await t.account());
  });
  afterEach(() => t.close());

  async function createCampaign(campId: string, as = token) {
    const reply = await t.rest('POST', '/update_campaign', {
      body: { campId, campaignModelData: campaignModelData({ title: `Campaign ${campId}` }) },
      token: as,
    });
    expect(reply.status, reply.text).toBe(200);
  }

  async function connectCalendar(as = token) {
    const reply = await t.rest('POST', '/add_calendar_info', { body: CALENDAR, token: as });
    expect(reply.status, reply.text).toBe(200);
  }

  /** A valid BookMeetingInput on campaign c1, 10:00–10:30 UTC on DAY. */
  const input = (overrides: Record<string, unknown> = {}) => ({
    campId: 'c1',
    title: 'Intro call',
    startsAt: at('10:00'),
    endsAt: at('10:30'),
    participants: [ANN],
    ...overrides,
  });

  const book = (overrides: Record<string, unknown> = {}, as = token) => t.gql(BOOK, { input: input(overrides) }, as);

  async function booked(overrides: Record<string, unknown> = {}, as = token): Promise<MeetingOut> {
    const reply = await book(overrides, as);
    expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
    // Only the fields the other queries select, so results compare with toEqual.
    const {
      campaign: _campaign,
      createdAt: _createdAt,
      updatedAt: _updatedAt,
      ...meeting
    } = reply.body.data.bookMeeting;
    return meeting as MeetingOut;
  }

  function errorOf(reply: { body: { errors?: any[]; data?: any } }): GqlError {
    expect(reply.body.errors, JSON.stringify(reply.body)).toHaveLength(1);
    return reply.body.errors![0] as GqlError;
  }

  function codeOf(reply: { body: { errors?: any[] } }): string | undefined {
    return reply.body.errors?.[0]?.extensions?.code;
  }

  async function storedMeetings() {
    return t.app.database.db.selectFrom('meetings').selectAll().execute();
  }

  async function campaignMeetings(campId: string, as = token): Promise<MeetingOut[]> {
    const reply = await t.gql(CAMPAIGN_MEETINGS, { campId }, as);
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.campaign.meetings as MeetingOut[];
  }

  async function upcoming(as = token): Promise<MeetingOut[]> {
    const reply = await t.gql(UPCOMING, {}, as);
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.upcomingMeetings as MeetingOut[];
  }

  describe('bookMeeting and the calendar integration', () => {
    beforeEach(() => createCampaign('c1'));

    test('before the calendar is connected: CONFLICT, and nothing is stored', async () => {
      const reply = await book();
      const error = errorOf(reply);
      expect(error.extensions.code).toBe('CONFLICT');
      expect(error.path).toEqual(['bookMeeting']);
      expect(error.message).toMatch(/calendar/i);
      expect(reply.body.data ?? null).toBeNull();

      expect(await storedMeetings()).toEqual([]);
      expect(await campaignMeetings('c1')).toEqual([]);
      expect(await upcoming()).toEqual([]);
    });

    test('after connecting: returns the Meeting, times normalised to UTC, time zone UTC by default', async () => {
      await connectCalendar();
      const before = Date.now();
      const reply = await t.gql(
        BOOK,
        {
          input: {
            campId: 'c1',
            title: 'Intro call',
            startsAt: '2030-01-01T11:00:00+01:00',
            endsAt: '2030-01-01T11:45:00+01:00',
            participants: [ANN, { name: 'Bob', phone: '+442071838750' }, { name: 'Cy', email: 'cy@example.org' }],
          },
        },
        token,
      );
      expect(reply.body.errors).toBeUndefined();
      const meeting = reply.body.data.bookMeeting;
      expect(meeting.meetingId).toMatch(/^mtg_[A-Za-z0-9_-]+$/);
      expect(meeting).toEqual({
        meetingId: meeting.meetingId,
        campaignId: 'c1',
        campaign: { campId: 'c1' },
        title: 'Intro call',
        startsAt: '2030-01-01T10:00:00.000Z',
        endsAt: '2030-01-01T10:45:00.000Z',
        timeZone: 'UTC',
        participants: [
          { name: 'Ann Lee', email: 'ann@example.com', phone: '+14155550123' },
          { name: 'Bob', email: null, phone: '+442071838750' },
          { name: 'Cy', email: 'cy@example.org', phone: null },
        ],
        status: 'SCHEDULED',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const created = Date.parse(meeting.createdAt);
      expect(created).toBeGreaterThanOrEqual(before - 1000);
      expect(created).toBeLessThanOrEqual(Date.now() + 1000);
      expect(meeting.createdAt).toMatch(/Z$/);

      // Refetched as stored.
      const fetched = await t.gql(MEETING, { meetingId: meeting.meetingId }, token);
      expect(fetched.body.errors).toBeUndefined();
      const { campaign: _campaign, createdAt: _created, updatedAt: _updated, ...fields } = meeting;
      expect(fetched.body.data.meeting).toEqual(fields);
      expect(await storedMeetings()).toHaveLength(1);
    });

    test('keeps the given IANA time zone; two meetings get different ids', async () => {
      await connectCalendar();
      const first = await booked({ timeZone: 'Europe/Paris' });
      expect(first.timeZone).toBe('Europe/Paris');
      const second = await booked({ startsAt: at('12:00'), endsAt: at('13:00'), timeZone: 'America/New_York' });
      expect(second.timeZone).toBe('America/New_York');
      expect(second.meetingId).toMatch(/^mtg_/);
      expect(second.meetingId).not.toBe(first.meetingId);
    });

    test('a meeting of exactly 24 hours is allowed', async () => {
      await connectCalendar();
      const meeting = await booked({ startsAt: at('00:00'), endsAt: at('00:00', '2030-01-02') });
      expect(meeting).toMatchObject({ startsAt: '2030-01-01T00:00:00.000Z', endsAt: '2030-01-02T00:00:00.000Z' });
    });

    test('after disconnecting the calendar, booking is CONFLICT again', async () => {
      await connectCalendar();
      await booked();
      const removed = await t.rest('DELETE', '/remove_calendar_info', { token });
      expect(removed.status, removed.text).toBe(200);
      const reply = await book({ startsAt: at('12:00'), endsAt: at('12:30') });
      expect(errorOf(reply).extensions.code).toBe('CONFLICT');
      expect(await storedMeetings()).toHaveLength(1);
    });

    test('without a bearer token: UNAUTHENTICATED', async () => {
      await connectCalendar();
      const reply = await t.gql(BOOK, { input: input() });
      expect(codeOf(reply)).toBe('UNAUTHENTICATED');
      expect(await storedMeetings()).toEqual([]);
    });
  });

  describe('validation', () => {
    beforeEach(async () => {
      await createCampaign('c1');
      await connectCalendar();
    });

    const cases: Array<{ name: string; overrides: Record<string, unknown>; paths: Array<Array<string | number>> }> = [
      {
        name: 'endsAt before startsAt',
        overrides: { startsAt: at('10:30'), endsAt: at('10:00') },
        paths: [['input', 'endsAt']],
      },
      {
        name: 'endsAt equal to startsAt',
        overrides: { startsAt: at('10:00'), endsAt: at('10:00') },
        paths: [['input', 'endsAt']],
      },
      {
        name: 'endsAt equal to startsAt, written with different offsets',
        overrides: { startsAt: '2030-01-01T11:00:00+01:00', endsAt: '2030-01-01T10:00:00Z' },
        paths: [['input', 'endsAt']],
      },
      {
        name: 'longer than 24 hours',
        overrides: { startsAt: at('10:00'), endsAt: at('10:01', '2030-01-02') },
        paths: [['input', 'endsAt']],
      },
      { name: 'no participants', overrides: { participants: [] }, paths: [['input', 'participants']] },
      {
        name: 'a participant with neither email nor phone',
        overrides: { participants: [ANN, { name: 'Nobody' }] },
        paths: [['input', 'participants', 1]],
      },
      {
        name: 'a participant with null email and phone',
        overrides: { participants: [{ name: 'Nobody', email: null, phone: null }] },
        paths: [['input', 'participants', 0]],
      },
      {
        name: 'a bad email',
        overrides: { participants: [{ name: 'Ann', email: 'not-an-email' }] },
        paths: [['input', 'participants', 0, 'email']],
      },
      {
        name: 'a phone without +',
        overrides: { participants: [{ name: 'Ann', phone: '4155550123' }] },
        paths: [['input', 'participants', 0, 'phone']],
      },
      {
        name: 'a phone with separators',
        overrides: { participants: [{ name: 'Ann', phone: '+1 415-555-0123' }] },
        paths: [['input', 'participants', 0, 'phone']],
      },
      {
        name: 'a phone starting with +0',
        overrides: { participants: [{ name: 'Ann', phone: '+0155550123' }] },
        paths: [['input', 'participants', 0, 'phone']],
      },
      { name: 'a bad timeZone', overrides: { timeZone: 'Mars/Olympus_Mons' }, paths: [['input', 'timeZone']] },
      { name: 'a UTC offset as timeZone', overrides: { timeZone: '+01:00' }, paths: [['input', 'timeZone']] },
      { name: 'an empty title', overrides: { title: '' }, paths: [['input', 'title']] },
      { name: 'a bad campId', overrides: { campId: 'bad id!' }, paths: [['input', 'campId']] },
    ];

    test.each(cases)('$name → BAD_USER_INPUT with its issue path, nothing stored', async ({ overrides, paths }) => {
      const reply = await book(overrides);
      const error = errorOf(reply);
      expect(error.extensions.code).toBe('BAD_USER_INPUT');
      expect(error.path).toEqual(['bookMeeting']);
      const issues = error.extensions.issues!;
      expect(Array.isArray(issues)).toBe(true);
      expect(issues.map((issue) => issue.path)).toEqual(paths);
      for (const issue of issues) expect(typeof issue.message).toBe('string');
      expect(await storedMeetings()).toEqual([]);
    });

    test('every problem is reported at once', async () => {
      const reply = await book({
        title: '',
        timeZone: 'Nowhere/Special',
        participants: [
          { name: 'A', email: 'bad' },
          { name: 'B', phone: '555' },
        ],
      });
      const error = errorOf(reply);
      expect(error.extensions.code).toBe('BAD_USER_INPUT');
      const paths = error.extensions.issues!.map((issue) => JSON.stringify(issue.path));
      expect(paths).toEqual(
        expect.arrayContaining([
          JSON.stringify(['input', 'title']),
          JSON.stringify(['input', 'timeZone']),
          JSON.stringify(['input', 'participants', 0, 'email']),
          JSON.stringify(['input', 'participants', 1, 'phone']),
        ]),
      );
      expect(paths).toHaveLength(4);
    });

    test('the issue messages say what is wrong', async () => {
      const ends = errorOf(await book({ endsAt: at('09:00') })).extensions.issues![0]!;
      expect(ends.message).toMatch(/after/i);
      const long = errorOf(await book({ endsAt: at('11:00', '2030-01-02') })).extensions.issues![0]!;
      expect(long.message).toMatch(/24/);
      const nobody = errorOf(await book({ participants: [{ name: 'X' }] })).extensions.issues![0]!;
      expect(nobody.message).toMatch(/email|phone/i);
    });

    test('an unknown campId → NOT_FOUND, nothing stored', async () => {
      const error = errorOf(await book({ campId: 'no-such-campaign' }));
      expect(error.extensions.code).toBe('NOT_FOUND');
      expect(error.path).toEqual(['bookMeeting']);
      expect(await storedMeetings()).toEqual([]);
    });

    test("another account's campId → NOT_FOUND", async () => {
      const other = await t.account();
      await createCampaign('theirs', other.token);
      const error = errorOf(await book({ campId: 'theirs' }));
      expect(error.extensions.code).toBe('NOT_FOUND');
      expect(await storedMeetings()).toEqual([]);
    });
  });

  describe('overlaps', () => {
    beforeEach(async () => {
      await createCampaign('c1');
      await createCampaign('c2');
      await connectCalendar();
    });

    test.each([
      { name: 'a partial overlap at the start', startsAt: at('09:45'), endsAt: at('10:15') },
      { name: 'a partial overlap at the end', startsAt: at('10:15'), endsAt: at('10:45') },
      { name: 'a meeting inside the scheduled one', startsAt: at('10:05'), endsAt: at('10:25') },
      { name: 'a meeting containing the scheduled one', startsAt: at('09:00'), endsAt: at('11:00') },
      { name: 'the very same slot', startsAt: at('10:00'), endsAt: at('10:30') },
      { name: 'an overlap written with an offset', startsAt: '2030-01-01T11:15:00+01:00', endsAt: at('11:00') },
    ])('$name is CONFLICT, on any campaign of the account', async ({ startsAt, endsAt }) => {
      const first = await booked();
      for (const campId of ['c1', 'c2']) {
        const reply = await book({ campId, startsAt, endsAt });
        const error = errorOf(reply);
        expect(error.extensions.code).toBe('CONFLICT');
        expect(error.path).toEqual(['bookMeeting']);
      }
      const stored = await storedMeetings();
      expect(stored.map((row) => row.meeting_id)).toEqual([first.meetingId]);
    });

    test('touching end-to-start is fine, both ways', async () => {
      const a = await booked({ startsAt: at('10:00'), endsAt: at('10:30') });
      const b = await booked({ startsAt: at('10:30'), endsAt: at('11:00') });
      const c = await booked({ campId: 'c2', startsAt: at('09:30'), endsAt: at('10:00') });
      expect([a, b, c].map((m) => m.status)).toEqual(['SCHEDULED', 'SCHEDULED', 'SCHEDULED']);
      expect((await upcoming()).map((m) => m.meetingId)).toEqual([c.meetingId, a.meetingId, b.meetingId]);
    });

    test('an overlap with a canceled meeting is fine', async () => {
      const first = await booked();
      const canceled = await t.gql(CANCEL, { meetingId: first.meetingId }, token);
      expect(canceled.body.errors).toBeUndefined();
      const again = await booked({ startsAt: at('10:00'), endsAt: at('10:30') });
      const inside = await booked({ campId: 'c2', startsAt: at('10:30'), endsAt: at('10:45') });
      expect(again.meetingId).not.toBe(first.meetingId);
      expect((await upcoming()).map((m) => m.meetingId)).toEqual([again.meetingId, inside.meetingId]);
    });

    test("another account's meetings never conflict", async () => {
      const mine = await booked();
      const other = await t.account();
      await createCampaign('c1', other.token);
      await connectCalendar(other.token);
      const theirs = await booked({ startsAt: at('10:00'), endsAt: at('10:30') }, other.token);
      // A second one overlaps the other account's own first meeting: CONFLICT for that account only.
      expect(codeOf(await book({ startsAt: at('09:00'), endsAt: at('11:00') }, other.token))).toBe('CONFLICT');
      expect(theirs.meetingId).not.toBe(mine.meetingId);
      expect((await upcoming()).map((m) => m.meetingId)).toEqual([mine.meetingId]);
      expect((await upcoming(other.token)).map((m) => m.meetingId)).toEqual([theirs.meetingId]);
    });

    test('two concurrent bookings of overlapping slots: exactly one succeeds, the other is CONFLICT', async () => {
      const replies = await Promise.all([
        book({ startsAt: at('10:00'), endsAt: at('11:00'), title: 'A' }),
        book({ campId: 'c2', startsAt: at('10:30'), endsAt: at('11:30'), title: 'B' }),
      ]);
      const won = replies.filter((reply) => reply.body.errors === undefined);
      const lost = replies.filter((reply) => reply.body.errors !== undefined);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(codeOf(lost[0]!)).toBe('CONFLICT');
      const winner = won[0]!.body.data.bookMeeting as MeetingOut;
      expect((await upcoming()).map((m) => m.meetingId)).toEqual([winner.meetingId]);
      expect(await storedMeetings()).toHaveLength(1);
    });

    test('several concurrent bookings of one slot: exactly one succeeds', async () => {
      const replies = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => book({ campId: i % 2 ? 'c1' : 'c2', title: `T${i}` })),
      );
      const won = replies.filter((reply) => reply.body.errors === undefined);
      expect(won).toHaveLength(1);
      for (const reply of replies.filter((r) => r.body.errors !== undefined)) expect(codeOf(reply)).toBe('CONFLICT');
      expect(await storedMeetings()).toHaveLength(1);
    });

    test('concurrent bookings of disjoint slots all succeed', async () => {
      const replies = await Promise.all(
        ['10:00', '11:00', '12:00', '13:00'].map((start, i) =>
          book({ startsAt: at(start), endsAt: at(`${10 + i}:30`) }),
        ),
      );
      for (const reply of replies) expect(reply.body.errors).toBeUndefined();
      expect(await upcoming()).toHaveLength(4);
    });
  });

  describe('cancelMeeting', () => {
    beforeEach(async () => {
      await createCampaign('c1');
      await connectCalendar();
    });

    test('cancels: status CANCELED; again → the meeting as it is', async () => {
      const meeting = await booked();
      const reply = await t.gql(CANCEL, { meetingId: meeting.meetingId }, token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.cancelMeeting).toEqual({ ...meeting, status: 'CANCELED' });

      const fetched = await t.gql(MEETING, { meetingId: meeting.meetingId }, token);
      expect(fetched.body.data.meeting.status).toBe('CANCELED');

      const again = await t.gql(CANCEL, { meetingId: meeting.meetingId }, token);
      expect(again.body).toEqual(reply.body);
      expect((await t.gql(MEETING, { meetingId: meeting.meetingId }, token)).body.data.meeting.status).toBe('CANCELED');
    });

    test('an unknown id → NOT_FOUND', async () => {
      const error = errorOf(await t.gql(CANCEL, { meetingId: 'mtg_doesnotexist' }, token));
      expect(error.extensions.code).toBe('NOT_FOUND');
      expect(error.path).toEqual(['cancelMeeting']);
    });

    test("another account's id → NOT_FOUND, and their meeting stays scheduled", async () => {
      const other = await t.account();
      await createCampaign('c1', other.token);
      await connectCalendar(other.token);
      const theirs = await booked({}, other.token);

      const error = errorOf(await t.gql(CANCEL, { meetingId: theirs.meetingId }, token));
      expect(error.extensions.code).toBe('NOT_FOUND');

      const fetched = await t.gql(MEETING, { meetingId: theirs.meetingId }, other.token);
      expect(fetched.body.data.meeting.status).toBe('SCHEDULED');
    });
  });

  describe('listings', () => {
    beforeEach(async () => {
      await createCampaign('c1');
      await createCampaign('c2');
      await connectCalendar();
    });

    test('Campaign.meetings: that campaign only, every status, in time order', async () => {
      const third = await booked({ startsAt: at('10:00', '2030-01-03'), endsAt: at('11:00', '2030-01-03') });
      const first = await booked({ startsAt: at('10:00', '2030-01-01'), endsAt: at('11:00', '2030-01-01') });
      const past = await booked({ startsAt: '2020-05-05T10:00:00Z', endsAt: '2020-05-05T11:00:00Z' });
      const second = await booked({ startsAt: at('10:00', '2030-01-02'), endsAt: at('11:00', '2030-01-02') });
      const elsewhere = await booked({ campId: 'c2', startsAt: at('15:00'), endsAt: at('16:00') });
      await t.gql(CANCEL, { meetingId: second.meetingId }, token);

      const list = await campaignMeetings('c1');
      expect(list.map((m) => m.meetingId)).toEqual([
        past.meetingId,
        first.meetingId,
        second.meetingId,
        third.meetingId,
      ]);
      expect(list.map((m) => m.status)).toEqual(['SCHEDULED', 'SCHEDULED', 'CANCELED', 'SCHEDULED']);
      expect(list[0]).toEqual(past);
      expect((await campaignMeetings('c2')).map((m) => m.meetingId)).toEqual([elsewhere.meetingId]);

      // Through a page of campaigns (one batched load) too.
      const all = await t.gql(ALL_CAMPAIGN_MEETINGS, {}, token);
      expect(all.body.errors).toBeUndefined();
      const byCampaign = Object.fromEntries(
        all.body.data.campaigns.edges.map((edge: any) => [
          edge.node.campId,
          edge.node.meetings.map((m: MeetingOut) => m.meetingId),
        ]),
      );
      expect(byCampaign).toEqual({
        c1: [past.meetingId, first.meetingId, second.meetingId, third.meetingId],
        c2: [elsewhere.meetingId],
      });
    });

    test('Campaign.meetings is bounded: the first `limit` (1–200, default 200) of each campaign', async () => {
      const day = (n: number) => `2030-01-0${n}`;
      const c1 = [];
      for (const n of [3, 1, 2]) c1.push(await booked({ startsAt: at('10:00', day(n)), endsAt: at('11:00', day(n)) }));
      const c2 = await booked({ campId: 'c2', startsAt: at('15:00', day(1)), endsAt: at('16:00', day(1)) });
      const [third, first, second] = c1;

      // Two aliases with different limits in one query, through a page of campaigns (batched per alias).
      t.resetQueries();
      const reply = await t.gql(
        '{ campaigns(first: 10) { edges { node { campId two: meetings(limit: 2) { meetingId } all: meetings { meetingId } } } } }',
        {},
        token,
      );
      expect(reply.body.errors, reply.text).toBeUndefined();
      // One windowed query per alias for the whole page of campaigns, not one per campaign.
      expect(t.queries.filter((query) => /row_number\(\) over/i.test(query))).toHaveLength(2);
      const ids = (list: MeetingOut[]) => list.map((m) => m.meetingId);
      const byCampaign = Object.fromEntries(
        reply.body.data.campaigns.edges.map((edge: any) => [
          edge.node.campId,
          [ids(edge.node.two), ids(edge.node.all)],
        ]),
      );
      expect(byCampaign).toEqual({
        c1: [
          [first!.meetingId, second!.meetingId],
          [first!.meetingId, second!.meetingId, third!.meetingId],
        ],
        c2: [[c2.meetingId], [c2.meetingId]],
      });

      for (const limit of [0, 201]) {
        const out = await t.gql(
          'query ($limit: Int!) { campaign(campId: "c1") { meetings(limit: $limit) { meetingId } } }',
          { limit },
          token,
        );
        expect(codeOf(out), out.text).toBe('BAD_USER_INPUT');
      }
    });

    test('Campaign.meetingsConnection pages through every meeting in time order, with cursors, past any bound', async () => {
      const day = (n: number) => `2030-01-0${n}`;
      const made = [];
      for (const n of [4, 1, 3, 2, 5]) {
        made.push(await booked({ startsAt: at('10:00', day(n)), endsAt: at('11:00', day(n)) }));
      }
      await booked({ campId: 'c2', startsAt: at('15:00', day(1)), endsAt: at('16:00', day(1)) });
      await t.gql(CANCEL, { meetingId: made[0]!.meetingId }, token);
      const inOrder = [...made].sort((a, b) => a.startsAt.localeCompare(b.startsAt)).map((m) => m.meetingId);
      const PAGE = /* GraphQL */ `
        query ($first: Int, $after: String, $last: Int, $before: String) {
          campaign(campId: "c1") {
            meetingsConnection(first: $first, after: $after, last: $last, before: $before) {
              edges {
                cursor
                node {
                  meetingId
                  status
                }
              }
              pageInfo {
                hasNextPage
                hasPreviousPage
                endCursor
                startCursor
              }
            }
          }
        }
      `;
      const page = async (variables: Record<string, unknown>) => {
        const reply = await t.gql(PAGE, variables, token);
        expect(reply.body.errors, reply.text).toBeUndefined();
        return reply.body.data.campaign.meetingsConnection;
      };
      const seen: string[] = [];
      let after: string | undefined;
      for (let i = 0; i < 3; i++) {
        const { edges, pageInfo } = await page({ first: 2, after });
        seen.push(...edges.map((edge: any) => edge.node.meetingId));
        after = pageInfo.endCursor;
        expect(pageInfo.hasNextPage).toBe(i < 2);
      }
      // Every meeting of the campaign (the canceled one too), each once, in time order; none of c2's.
      expect(seen).toEqual(inOrder);
      const lastTwo = await page({ last: 2 });
      expect(lastTwo.edges.map((edge: any) => edge.node.meetingId)).toEqual(inOrder.slice(3));
      expect(lastTwo.pageInfo.hasPreviousPage).toBe(true);
      const before = await page({ last: 10, before: lastTwo.pageInfo.startCursor });
      expect(before.edges.map((edge: any) => edge.node.meetingId)).toEqual(inOrder.slice(0, 3));
      const bad = await t.gql(PAGE, { first: 2, after: 'not-a-cursor' }, token);
      expect(codeOf(bad)).toBe('BAD_USER_INPUT');
      const tooMany = await t.gql(PAGE, { first: 101 }, token);
      expect(codeOf(tooMany)).toBe('BAD_USER_INPUT');
    });

    test('Query.upcomingMeetings: scheduled, not ended, every campaign, in time order', async () => {
      const now = Date.now();
      const hour = 3600_000;
      const late = await booked({ startsAt: at('10:00', '2030-02-01'), endsAt: at('11:00', '2030-02-01') });
      const early = await booked({ campId: 'c2', startsAt: at('10:00'), endsAt: at('11:00') });
      await booked({ startsAt: '2020-05-05T10:00:00Z', endsAt: '2020-05-05T11:00:00Z' });
      await booked({
        startsAt: new Date(now - 3 * hour).toISOString(),
        endsAt: new Date(now - 2 * hour).toISOString(),
      });
      const ongoing = await booked({
        startsAt: new Date(now - hour).toISOString(),
        endsAt: new Date(now + hour).toISOString(),
      });
      const middle = await booked({ startsAt: at('12:00'), endsAt: at('13:00') });
      const canceled = await booked({ startsAt: at('14:00'), endsAt: at('15:00') });
      expect((await t.gql(CANCEL, { meetingId: canceled.meetingId }, token)).body.errors).toBeUndefined();

      const list = await upcoming();
      expect(list.map((m) => m.meetingId)).toEqual([
        ongoing.meetingId,
        early.meetingId,
        middle.meetingId,
        late.meetingId,
      ]);
      expect(list.every((m) => m.status === 'SCHEDULED')).toBe(true);
      expect(list[1]).toEqual(early);

      const limited = await t.gql(UPCOMING, { limit: 2 }, token);
      expect(limited.body.errors).toBeUndefined();
      expect(limited.body.data.upcomingMeetings.map((m: MeetingOut) => m.meetingId)).toEqual([
        ongoing.meetingId,
        early.meetingId,
      ]);
    });

    test("Query.upcomingMeetings shows only the caller's meetings", async () => {
      const mine = await booked();
      const other = await t.account();
      expect(await upcoming(other.token)).toEqual([]);
      expect((await upcoming()).map((m) => m.meetingId)).toEqual([mine.meetingId]);
    });

    test("Query.meeting returns the meeting; an unknown id or another account's → null", async () => {
      const meeting = await booked({ timeZone: 'Asia/Tokyo' });
      const reply = await t.gql(MEETING, { meetingId: meeting.meetingId }, token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.meeting).toEqual(meeting);

      const unknown = await t.gql(MEETING, { meetingId: 'mtg_unknown' }, token);
      expect(unknown.body.errors).toBeUndefined();
      expect(unknown.body.data.meeting).toBeNull();

      const other = await t.account();
      const foreign = await t.gql(MEETING, { meetingId: meeting.meetingId }, other.token);
      expect(foreign.body.errors).toBeUndefined();
      expect(foreign.body.data.meeting).toBeNull();
    });

    test("another account cannot see the campaign's meetings", async () => {
      await booked();
      const other = await t.account();
      const reply = await t.gql(CAMPAIGN_MEETINGS, { campId: 'c1' }, other.token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.campaign).toBeNull();
    });
  });

  describe('REST', () => {
    test('GET /get_calendar_info when not connected → 404', async () => {
      const reply = await t.rest('GET', '/get_calendar_info', { token });
      expect(reply.status, reply.text).toBe(404);
      expect(reply.body).toEqual({ detail: 'Calendar integration is not connected' });
    });

    test('GET /get_calendar_info: the integration, secrets masked, plus the upcoming scheduled meetings', async () => {
      await createCampaign('c1');
      await createCampaign('c2');
      await connectCalendar();

      const empty = await t.rest('GET', '/get_calendar_info', { token });
      expect(empty.status, empty.text).toBe(200);
      expect(empty.body).toEqual({
        apiKey: '****1234',
        schedulingUrl: 'https://cal.example.com/me',
        eventTypeId: null,
        status: 'connected',
        updatedAt: expect.any(String),
        meetings: [],
      });
      expect(empty.text).not.toContain('cal-key-1234');

      const later = await booked({
        campId: 'c2',
        startsAt: at('15:00'),
        endsAt: at('16:00'),
        timeZone: 'Europe/Paris',
      });
      const sooner = await booked({
        startsAt: '2030-01-01T09:00:00+01:00',
        endsAt: '2030-01-01T09:30:00+01:00',
        participants: [ANN, { name: 'Bob', phone: '+442071838750' }],
      });
      await booked({ startsAt: '2020-01-01T10:00:00Z', endsAt: '2020-01-01T11:00:00Z' });
      const canceled = await booked({ startsAt: at('12:00'), endsAt: at('13:00') });
      await t.gql(CANCEL, { meetingId: canceled.meetingId }, token);

      const reply = await t.rest('GET', '/get_calendar_info', { token });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({
        apiKey: '****1234',
        schedulingUrl: 'https://cal.example.com/me',
        status: 'connected',
      });
      expect(reply.body.meetings).toEqual([legacy(sooner), legacy(later)]);
      expect(reply.body.meetings[0]).toEqual({
        meetingId: sooner.meetingId,
        campaignId: 'c1',
        title: 'Intro call',
        startsAt: '2030-01-01T08:00:00.000Z',
        endsAt: '2030-01-01T08:30:00.000Z',
        timeZone: 'UTC',
        participants: [ANN, { name: 'Bob', email: null, phone: '+442071838750' }],
        status: 'scheduled',
      });
      expect(reply.body.meetings[1]).toMatchObject({ campaignId: 'c2', timeZone: 'Europe/Paris' });
      expect(reply.text).not.toContain('cal-key-1234');
    });

    test('GET /meetings/get_calendar_info?meeting_id= → the meeting, in the legacy shape', async () => {
      await createCampaign('c1');
      await connectCalendar();
      const meeting = await booked({ timeZone: 'Europe/Paris' });

      const reply = await t.rest('GET', `/meetings/get_calendar_info?meeting_id=${meeting.meetingId}`, { token });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual({
        meetingId: meeting.meetingId,
        campaignId: 'c1',
        title: 'Intro call',
        startsAt: at('10:00'),
        endsAt: at('10:30'),
        timeZone: 'Europe/Paris',
        participants: [ANN],
        status: 'scheduled',
      });

      // A canceled meeting is still returned, as canceled.
      await t.gql(CANCEL, { meetingId: meeting.meetingId }, token);
      const canceled = await t.rest('GET', `/meetings/get_calendar_info?meeting_id=${meeting.meetingId}`, { token });
      expect(canceled.status, canceled.text).toBe(200);
      expect(canceled.body).toEqual({ ...legacy(meeting), status: 'canceled' });
    });

    test('GET /meetings/get_calendar_info: unknown → 404, missing meeting_id → 422', async () => {
      const unknown = await t.rest('GET', '/meetings/get_calendar_info?meeting_id=mtg_unknown', { token });
      expect(unknown.status, unknown.text).toBe(404);
      expect(unknown.body).toEqual({ detail: 'Meeting not found' });

      const missing = await t.rest('GET', '/meetings/get_calendar_info', { token });
      expect(missing.status, missing.text).toBe(422);
      expect(missing.body.detail).toEqual([
        expect.objectContaining({ type: 'missing', loc: ['query', 'meeting_id'], msg: 'Field required' }),
      ]);
    });

    test("GET /meetings/get_calendar_info: another account's meeting → 404", async () => {
      await createCampaign('c1');
      await connectCalendar();
      const meeting = await booked();
      const other = await t.account();
      const reply = await t.rest('GET', `/meetings/get_calendar_info?meeting_id=${meeting.meetingId}`, {
        token: other.token,
      });
      expect(reply.status, reply.text).toBe(404);
      expect(reply.body).toEqual({ detail: 'Meeting not found' });

      // Nor does it show up in the other account's calendar.
      await connectCalendar(other.token);
      const calendar = await t.rest('GET', '/get_calendar_info', { token: other.token });
      expect(calendar.status, calendar.text).toBe(200);
      expect(calendar.body.meetings).toEqual([]);
    });

    test('both paths need a bearer token', async () => {
      for (const path of ['/get_calendar_info', '/meetings/get_calendar_info?meeting_id=mtg_x']) {
        const reply = await t.rest('GET', path);
        expect(reply.status, reply.text).toBe(401);
        expect(reply.body).toEqual({ detail: 'Not authenticated' });
      }
    });
  });

  describe('deleting a campaign', () => {
    test('removes its meetings, and only its meetings', async () => {
      await createCampaign('c1');
      await createCampaign('c2');
      await connectCalendar();
      const doomed = await booked();
      const doomedPast = await booked({ startsAt: '2020-05-05T10:00:00Z', endsAt: '2020-05-05T11:00:00Z' });
      const kept = await booked({ campId: 'c2', startsAt: at('12:00'), endsAt: at('13:00') });

      const reply = await t.gql(DELETE_CAMPAIGN, { campId: 'c1' }, token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.deleteCampaign).toEqual({ campId: 'c1' });

      for (const meetingId of [doomed.meetingId, doomedPast.meetingId]) {
        const fetched = await t.gql(MEETING, { meetingId }, token);
        expect(fetched.body.errors).toBeUndefined();
        expect(fetched.body.data.meeting).toBeNull();
        const rest = await t.rest('GET', `/meetings/get_calendar_info?meeting_id=${meetingId}`, { token });
        expect(rest.status, rest.text).toBe(404);
      }
      expect((await upcoming()).map((m) => m.meetingId)).toEqual([kept.meetingId]);
      expect((await storedMeetings()).map((row) => row.meeting_id)).toEqual([kept.meetingId]);
      const calendar = await t.rest('GET', '/get_calendar_info', { token });
      expect(calendar.body.meetings).toEqual([legacy(kept)]);

      // The slot is free again, and a campaign re-created with the same campId starts with no meetings.
      await createCampaign('c1');
      expect(await campaignMeetings('c1')).toEqual([]);
      const rebooked = await booked();
      expect(rebooked.meetingId).not.toBe(doomed.meetingId);
      expect((await campaignMeetings('c1')).map((m) => m.meetingId)).toEqual([rebooked.meetingId]);
    });
  });
});
