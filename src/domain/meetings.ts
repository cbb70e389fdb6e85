// Meetings booked through the calendar integration (docs/decisions.md §8). The account's scheduled meetings never overlap.
import { CALENDAR_NOT_CONNECTED } from '../core/preconditions.js';
import type { Kysely, Selectable } from 'kysely';
import type { Database, MeetingsTable } from '../db/types.js';
import { type KeysetPage, keysetPage } from '../db/keyset.js';
import { groupedBy } from '../db/chunks.js';
import { newId } from '../security/api-keys.js';
import { serializeForAccount } from './accounts.js';
import { requireCampaign } from './campaigns.js';
import { conflict, notFound } from '../core/errors.js';
import { withEvents } from './events.js';
import { isIntegrationConnected } from './integrations.js';
import { calendar } from './integrations.schema.js';
import type { BookMeetingInput, Participant } from './meetings.schema.js';

export type MeetingStatus = 'scheduled' | 'canceled';

export interface Meeting {
  meetingId: string;
  campaignId: string;
  title: string;
  startsAt: string;
  endsAt: string;
  timeZone: string;
  participants: Array<{ name: string; email: string | null; phone: string | null }>;
  status: MeetingStatus;
  createdAt: string;
  updatedAt: string;
}

const toMeeting = (row: Selectable<MeetingsTable>): Meeting => ({
  meetingId: row.meeting_id,
  campaignId: row.camp_id,
  title: row.title,
  startsAt: row.starts_at,
  endsAt: row.ends_at,
  timeZone: row.time_zone,
  participants: JSON.parse(row.participants) as Meeting['participants'],
  status: row.status as MeetingStatus,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const normalize = (p: Participant) => ({ name: p.name, email: p.email?.toLowerCase() ?? null, phone: p.phone ?? null });

/**
 * Books a meeting. The calendar must be connected, and no other scheduled meeting of the account may overlap
 * [startsAt, endsAt). The check and the insert share a transaction that first writes the account row, so two
 * bookings of one account are serialised on PostgreSQL too. Raises `meeting.booked`.
 */
export async function bookMeeting(db: Kysely<Database>, accountId: string, input: BookMeetingInput): Promise<Meeting> {
  return withEvents(db, accountId, async (trx, raise) => {
    await serializeForAccount(trx, accountId);
    if (!(await isIntegrationConnected(trx, accountId, calendar))) throw conflict(CALENDAR_NOT_CONNECTED);
    await requireCampaign(trx, accountId, input.campId);
    const overlapping = await trx
      .selectFrom('meetings')
      .select(['meeting_id', 'starts_at', 'ends_at'])
      .where('account_id', '=', accountId)
      .where('status', '=', 'scheduled')
      .where('starts_at', '<', input.endsAt)
      .where('ends_at', '>', input.startsAt)
      .executeTakeFirst();
    if (overlapping) {
      throw conflict(`Overlaps meeting ${overlapping.meeting_id} (${overlapping.starts_at} – ${overlapping.ends_at})`);
    }
    const now = new Date().toISOString();
    const row = await trx
      .insertInto('meetings')
      .values({
        account_id: accountId,
        meeting_id: newId('mtg'),
        camp_id: input.campId,
        title: input.title,
        starts_at: input.startsAt,
        ends_at: input.endsAt,
        time_zone: input.timeZone ?? 'UTC',
        participants: JSON.stringify(input.participants.map(normalize)),
        status: 'scheduled',
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const meeting = toMeeting(row);
    await raise(input.campId, 'meeting.booked', meeting);
    return meeting;
  });
}

/** Cancels a scheduled meeting; one already canceled is answered as it is (a retry changes nothing). */
export async function cancelMeeting(db: Kysely<Database>, accountId: string, meetingId: string): Promise<Meeting> {
  const row = await db
    .updateTable('meetings')
    .set({ status: 'canceled', updated_at: new Date().toISOString() })
    .where('account_id', '=', accountId)
    .where('meeting_id', '=', meetingId)
    .where('status', '=', 'scheduled')
    .returningAll()
    .executeTakeFirst();
  if (row) return toMeeting(row);
  const current = await getMeeting(db, accountId, meetingId);
  if (!current) throw notFound('Meeting not found');
  return current;
}

/** The account's meetings with these ids (those that exist), in no particular order. */
export async function getMeetingsByIds(
  db: Kysely<Database>,
  accountId: string,
  meetingIds: readonly string[],
): Promise<Meeting[]> {
  if (meetingIds.length === 0) return [];
  const rows = await db
    .selectFrom('meetings')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('meeting_id', 'in', meetingIds)
    .execute();
  return rows.map(toMeeting);
}

export async function getMeeting(db: Kysely<Database>, accountId: string, meetingId: string): Promise<Meeting | null> {
  const row = await db
    .selectFrom('meetings')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('meeting_id', '=', meetingId)
    .executeTakeFirst();
  return row ? toMeeting(row) : null;
}

/** Scheduled meetings that have not ended, in time order (at most `limit`). */
export async function upcomingMeetings(db: Kysely<Database>, accountId: string, limit: number): Promise<Meeting[]> {
  const rows = await db
    .selectFrom('meetings')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'scheduled')
    .where('ends_at', '>', new Date().toISOString())
    .orderBy('starts_at')
    .orderBy('meeting_id')
    .limit(limit)
    .execute();
  return rows.map(toMeeting);
}

/** One page of a campaign's meetings (any status), in time order (Campaign.meetingsConnection). */
export async function pageMeetingsOfCampaign(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  page: KeysetPage,
): Promise<Meeting[]> {
  const query = db.selectFrom('meetings').selectAll().where('account_id', '=', accountId).where('camp_id', '=', campId);
  const rows = await keysetPage(query, ['starts_at', 'meeting_id'], page, 'oldest first').execute();
  return rows.map(toMeeting);
}

/**
 * Meetings of several campaigns (any status), each list in time order and at most `limit` long: one query for a page
 * of campaigns (a window function ranks each campaign's meetings; the campaign index serves it).
 */
export async function meetingsOfCampaigns(
  db: Kysely<Database>,
  accountId: string,
  campIds: readonly string[],
  limit: number,
): Promise<Meeting[][]> {
  if (campIds.length === 0) return [];
  const ranked = db
    .selectFrom('meetings')
    .selectAll()
    .select((eb) =>
      eb.fn
        .agg<number>('row_number')
        .over((over) => over.partitionBy('camp_id').orderBy('starts_at').orderBy('meeting_id'))
        .as('place'),
    )
    .where('account_id', '=', accountId)
    .where('camp_id', 'in', campIds);
  const rows = await db
    .selectFrom(ranked.as('ranked'))
    .selectAll()
    .where('place', '<=', limit)
    .orderBy('starts_at')
    .orderBy('meeting_id')
    .execute();
  return groupedBy(campIds, rows, (row) => row.camp_id, toMeeting);
}
