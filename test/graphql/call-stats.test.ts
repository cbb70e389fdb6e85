// callStats (docs/dashboards.md): buckets cut in the caller's time zone (daylight saving, half-hour zones), empty
// buckets as zeros, the counters the database keeps as calls are written (inserts, updates, a campaign's deletion,
// calls written before the counters existed), and its refusals.
import { type Migration, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

let t: TestApp;

beforeAll(async () => {
  t = await startApp();
});

afterAll(async () => {
  await t.close();
});

async function accountWithCampaigns(...campIds: string[]) {
  const account = await t.account();
  for (const campId of campIds) {
    const res = await t.rest('POST', '/update_campaign', {
      token: account.token,
      body: { campId, campaignModelData: campaignModelData() },
    });
    expect(res.status, res.text).toBe(200);
  }
  return account;
}

interface Call {
  at: string;
  status?: string;
  duration?: number | null;
  cost?: number | null;
  campId?: string;
}

let sequence = 0;
async function insertCalls(accountId: string, calls: Call[]): Promise<string[]> {
  const ids: string[] = [];
  for (const call of calls) {
    const callId = `CA${++sequence}`;
    ids.push(callId);
    await t.app.database.db
      .insertInto('call_logs')
      .values({
        account_id: accountId,
        call_id: callId,
        camp_id: call.campId ?? 'spring',
        direction: 'outbound-api',
        from_number: '+14155550100',
        to_number: '+14155550101',
        status: call.status ?? 'completed',
        status_rank: 3,
        started_at: call.at,
        ended_at: call.at,
        duration_seconds: call.duration === undefined ? 60 : call.duration,
        cost: call.cost === undefined ? 0.0135 : call.cost,
        recording_url: null,
        transcript: null,
        summary: null,
        analysis: null,
        created_at: call.at,
        updated_at: call.at,
      })
      .execute();
  }
  return ids;
}

const STATS = /* GraphQL */ `
  query Stats(
    $campIds: [String!]
    $from: DateTime!
    $to: DateTime!
    $bucket: CallStatsBucketSize!
    $timeZone: String!
  ) {
    callStats(campIds: $campIds, from: $from, to: $to, bucket: $bucket, timeZone: $timeZone) {
      bucket
      timeZone
      buckets {
        start
        end
        localStart
        calls
        answered
        completed
        failed
        noAnswer
        busy
        canceled
        ongoing
        totalDurationSeconds
        averageDurationSeconds
        spend
        averageCost
      }
      totals {
        calls
        completed
        failed
        totalDurationSeconds
        averageDurationSeconds
        spend
        averageCost
      }
    }
  }
`;

async function stats(token: string, variables: Record<string, unknown>) {
  const reply = await t.gql(STATS, { bucket: 'DAY', timeZone: 'UTC', ...variables }, token);
  return reply;
}

async function statsOk(token: string, variables: Record<string, unknown>) {
  const reply = await stats(token, variables);
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  return reply.body.data.callStats;
}

describe('callStats buckets', () => {
  it('cuts days in the time zone asked for, 23 hours on the day clocks go forward, empty days as zeros', async () => {
    const account = await accountWithCampaigns('spring');
    await insertCalls(account.id, [
      // 2026-03-28 23:30 UTC is 29 March 00:30 in Paris (UTC+1 until 01:00 UTC that night).
      { at: '2026-03-28T23:30:00.000Z', duration: 30, cost: 0.5 },
      // 22:30 UTC on the 29th is 00:30 on the 30th (UTC+2 from then on).
      { at: '2026-03-29T22:30:00.000Z', status: 'failed', duration: null, cost: null },
      { at: '2026-03-29T21:59:59.000Z', status: 'no-answer', duration: 0, cost: 0 },
    ]);
    const result = await statsOk(account.token, {
      from: '2026-03-27T12:00:00Z',
      to: '2026-04-01T00:00:00Z',
      timeZone: 'Europe/Paris',
    });
    expect(result.bucket).toBe('DAY');
    expect(result.timeZone).toBe('Europe/Paris');
    expect(result.buckets.map((b: any) => b.localStart)).toEqual([
      '2026-03-27T00:00:00+01:00',
      '2026-03-28T00:00:00+01:00',
      '2026-03-29T00:00:00+01:00',
      '2026-03-30T00:00:00+02:00',
      '2026-03-31T00:00:00+02:00',
      '2026-04-01T00:00:00+02:00',
    ]);
    const march29 = result.buckets[2];
    expect([march29.start, march29.end]).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    expect(march29).toMatchObject({ calls: 2, completed: 1, noAnswer: 1, answered: 1, totalDurationSeconds: 30 });
    expect(march29.averageDurationSeconds).toBe(15);
    expect(march29.spend).toBe(0.5);
    expect(march29.averageCost).toBe(0.25);
    expect(result.buckets[3]).toMatchObject({
      calls: 1,
      failed: 1,
      spend: 0,
      averageCost: 0,
      averageDurationSeconds: 0,
    });
    for (const index of [0, 1, 4, 5]) {
      expect(result.buckets[index]).toMatchObject({
        calls: 0,
        answered: 0,
        spend: 0,
        totalDurationSeconds: 0,
        ongoing: 0,
      });
    }
    expect(result.totals).toMatchObject({ calls: 3, completed: 1, failed: 1, totalDurationSeconds: 30, spend: 0.5 });
  });

  it('splits the hour that holds a half-hour edge (Asia/Kolkata, UTC+05:30), in days and in hours', async () => {
    const account = await accountWithCampaigns('spring');
    // Midnight in Kolkata is 18:30 UTC: the first call is on 1 June there, the second on 2 June.
    await insertCalls(account.id, [
      { at: '2026-06-01T18:20:00.000Z', cost: 1 },
      { at: '2026-06-01T18:40:00.000Z', cost: 2, status: 'busy' },
      { at: '2026-06-01T19:10:00.000Z', cost: 4, status: 'busy' },
    ]);
    const days = await statsOk(account.token, {
      from: '2026-06-01T00:00:00Z',
      to: '2026-06-02T12:00:00Z',
      timeZone: 'Asia/Kolkata',
    });
    expect(days.buckets.map((b: any) => [b.localStart, b.calls, b.spend])).toEqual([
      ['2026-06-01T00:00:00+05:30', 1, 1],
      ['2026-06-02T00:00:00+05:30', 2, 6],
    ]);
    const hours = await statsOk(account.token, {
      from: '2026-06-01T17:45:00Z',
      to: '2026-06-01T19:45:00Z',
      bucket: 'HOUR',
      timeZone: 'Asia/Kolkata',
    });
    expect(hours.buckets.map((b: any) => [b.start, b.calls, b.busy])).toEqual([
      ['2026-06-01T17:30:00.000Z', 1, 0],
      ['2026-06-01T18:30:00.000Z', 2, 2],
      ['2026-06-01T19:30:00.000Z', 0, 0],
    ]);
    // The same calls in UTC hours: no hour is split.
    const utc = await statsOk(account.token, {
      from: '2026-06-01T18:00:00Z',
      to: '2026-06-01T20:00:00Z',
      bucket: 'HOUR',
    });
    expect(utc.buckets.map((b: any) => b.calls)).toEqual([2, 1]);
  });

  it('starts weeks on Monday and months on the first, in the zone', async () => {
    const account = await accountWithCampaigns('spring');
    await insertCalls(account.id, [
      { at: '2026-11-30T04:59:00.000Z' }, // Sunday 29 November 23:59 in New York
      { at: '2026-11-30T05:00:00.000Z' }, // Monday 30 November 00:00 there
      { at: '2026-12-01T05:00:00.000Z' }, // 1 December there
    ]);
    const weeks = await statsOk(account.token, {
      from: '2026-11-25T12:00:00Z',
      to: '2026-12-02T12:00:00Z',
      bucket: 'WEEK',
      timeZone: 'America/New_York',
    });
    expect(weeks.buckets.map((b: any) => [b.localStart, b.calls])).toEqual([
      ['2026-11-23T00:00:00-05:00', 1],
      ['2026-11-30T00:00:00-05:00', 2],
    ]);
    const months = await statsOk(account.token, {
      from: '2026-11-15T00:00:00Z',
      to: '2026-12-15T00:00:00Z',
      bucket: 'MONTH',
      timeZone: 'America/New_York',
    });
    expect(months.buckets.map((b: any) => [b.localStart, b.calls])).toEqual([
      ['2026-11-01T00:00:00-04:00', 2],
      ['2026-12-01T00:00:00-05:00', 1],
    ]);
  });
});

describe('callStats in odd zones (probes kept)', () => {
  it('keeps the sign and the seconds of an offset under an hour west of UTC (Africa/Monrovia, 1950: -00:44:30)', async () => {
    const account = await accountWithCampaigns('spring');
    await insertCalls(account.id, [{ at: '1950-06-01T00:30:00.000Z' }, { at: '1950-06-01T01:00:00.000Z' }]);
    const result = await statsOk(account.token, {
      from: '1950-05-31T12:00:00Z',
      to: '1950-06-01T12:00:00Z',
      timeZone: 'Africa/Monrovia',
    });
    expect(result.buckets.map((b: any) => [b.localStart, b.calls])).toEqual([
      ['1950-05-31T00:00:00-00:44:30', 1],
      ['1950-06-01T00:00:00-00:44:30', 1],
    ]);
  });

  it('starts a day whose midnight clocks skip at the first instant after the gap (America/Santiago)', async () => {
    const account = await accountWithCampaigns('spring');
    // 03:30 UTC on 7 September 2025 is 23:30 on the 6th in Santiago; clocks then skip from 00:00 to 01:00 (04:00 UTC).
    await insertCalls(account.id, [{ at: '2025-09-07T03:30:00.000Z' }, { at: '2025-09-07T04:10:00.000Z' }]);
    const result = await statsOk(account.token, {
      from: '2025-09-06T12:00:00Z',
      to: '2025-09-08T12:00:00Z',
      timeZone: 'America/Santiago',
    });
    expect(result.buckets.map((b: any) => [b.localStart, b.start, b.calls])).toEqual([
      ['2025-09-06T00:00:00-04:00', '2025-09-06T04:00:00.000Z', 1],
      ['2025-09-07T01:00:00-03:00', '2025-09-07T04:00:00.000Z', 1],
      ['2025-09-08T00:00:00-03:00', '2025-09-08T03:00:00.000Z', 0],
    ]);
  });

  it('answers an explicit null for an argument with a default as BAD_USER_INPUT, not an unexpected error', async () => {
    const account = await accountWithCampaigns('spring');
    for (const [document, variables] of [
      [
        'query ($tz: String) { callStats(from: "2026-05-01T00:00:00Z", to: "2026-05-02T00:00:00Z", timeZone: $tz) { timeZone } }',
        { tz: null },
      ],
      [
        'query ($b: CallStatsBucketSize) { callStats(from: "2026-05-01T00:00:00Z", to: "2026-05-02T00:00:00Z", bucket: $b) { bucket } }',
        { b: null },
      ],
    ] as const) {
      const reply = await t.gql(document, variables, account.token);
      expect(reply.body.errors?.[0]?.extensions?.code, reply.text).toBe('BAD_USER_INPUT');
    }
  });
});

describe('callStats counters follow every write', () => {
  it('moves a call between statuses as its callbacks arrive, and leaves it alone when its texts are recorded', async () => {
    const account = await accountWithCampaigns('spring');
    const [callId] = await insertCalls(account.id, [
      { at: '2026-05-05T10:00:00.000Z', status: 'ringing', duration: null, cost: null },
    ]);
    const span = { from: '2026-05-05T00:00:00Z', to: '2026-05-06T00:00:00Z' };
    expect((await statsOk(account.token, span)).buckets[0]).toMatchObject({ calls: 1, ongoing: 1, answered: 0 });
    await t.app.database.db
      .updateTable('call_logs')
      .set({ status: 'completed', duration_seconds: 90, cost: 0.25 })
      .where('account_id', '=', account.id)
      .where('call_id', '=', callId!)
      .execute();
    const after = (await statsOk(account.token, span)).buckets[0];
    expect(after).toMatchObject({
      calls: 1,
      ongoing: 0,
      answered: 1,
      completed: 1,
      totalDurationSeconds: 90,
      spend: 0.25,
    });
    await t.app.database.db
      .updateTable('call_logs')
      .set({ transcript: 'hello', summary: 'fine' })
      .where('account_id', '=', account.id)
      .execute();
    expect((await statsOk(account.token, span)).buckets[0]).toEqual(after);
  });

  it("takes a deleted campaign's calls out of the account's statistics", async () => {
    const account = await accountWithCampaigns('spring', 'autumn');
    await insertCalls(account.id, [
      { at: '2026-05-05T10:00:00.000Z', campId: 'spring' },
      { at: '2026-05-05T11:00:00.000Z', campId: 'autumn' },
      { at: '2026-05-05T11:30:00.000Z', campId: 'autumn' },
    ]);
    const span = { from: '2026-05-05T00:00:00Z', to: '2026-05-06T00:00:00Z' };
    expect((await statsOk(account.token, span)).totals.calls).toBe(3);
    expect((await statsOk(account.token, { ...span, campIds: ['autumn'] })).totals.calls).toBe(2);
    const deleted = await t.gql(
      'mutation { campaignDelete(input: { campId: "autumn" }) { __typename } }',
      {},
      account.token,
    );
    expect(deleted.body.errors, deleted.text).toBeUndefined();
    expect((await statsOk(account.token, span)).totals.calls).toBe(1);
    expect((await statsOk(account.token, { ...span, campIds: ['spring'] })).totals.calls).toBe(1);
  });

  it("counts one account's calls only, and refuses another account's campaign as unknown", async () => {
    const mine = await accountWithCampaigns('spring');
    const theirs = await accountWithCampaigns('spring', 'theirs-only');
    await insertCalls(theirs.id, [{ at: '2026-05-05T10:00:00.000Z' }]);
    const span = { from: '2026-05-05T00:00:00Z', to: '2026-05-06T00:00:00Z' };
    expect((await statsOk(mine.token, span)).totals.calls).toBe(0);
    expect((await statsOk(mine.token, { ...span, campIds: ['spring'] })).totals.calls).toBe(0);
    const other = await stats(mine.token, { ...span, campIds: ['theirs-only'] });
    expect(other.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('counts the calls written before the counters existed (the migration fills them)', async () => {
    const account = await accountWithCampaigns('spring');
    await insertCalls(account.id, [
      { at: '2026-05-05T10:00:00.000Z', cost: 0.1 },
      { at: '2026-05-05T10:10:00.000Z', cost: 0.2, status: 'busy' },
    ]);
    const span = { from: '2026-05-05T00:00:00Z', to: '2026-05-06T00:00:00Z' };
    const before = await statsOk(account.token, span);
    const db = t.app.database.db;
    const schema = t.databaseUrl.startsWith('postgres')
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async (): Promise<Record<string, Migration>> => migrations },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    const down = await migrator.migrateTo('0019_event_trace_parent');
    expect(down.error).toBeUndefined();
    await insertCalls(account.id, [{ at: '2026-05-05T12:00:00.000Z', cost: 0.4, status: 'failed' }]);
    const up = await migrator.migrateToLatest();
    expect(up.error).toBeUndefined();
    const after = await statsOk(account.token, span);
    expect(after.totals).toEqual({
      ...before.totals,
      calls: 3,
      failed: 1,
      totalDurationSeconds: 180,
      averageDurationSeconds: 60,
      spend: 0.7,
      averageCost: 0.7 / 3,
    });
    // And the triggers are back: a new call counts.
    await insertCalls(account.id, [{ at: '2026-05-05T13:00:00.000Z', cost: 0 }]);
    expect((await statsOk(account.token, span)).totals.calls).toBe(4);
  });
});

describe('callStats refusals', () => {
  const span = { from: '2026-05-05T00:00:00Z', to: '2026-05-06T00:00:00Z' };

  it.each([
    ['an unknown time zone', { timeZone: 'Mars/Olympus_Mons' }, 'timeZone'],
    ['a time zone name of 65 characters', { timeZone: 'E'.repeat(65) }, 'timeZone'],
    ['an empty span', { from: span.to, to: span.to }, 'to'],
    ['a span that starts before 1900', { from: '1800-01-01T00:00:00Z' }, 'from'],
    ['a span that ends after 2200', { to: '9999-01-01T00:00:00Z', bucket: 'MONTH' }, 'to'],
    ['a span that ends before it starts', { from: span.to, to: span.from }, 'to'],
    ['more than 400 buckets', { from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z', bucket: 'HOUR' }, 'bucket'],
    ['more than 400 days', { from: '2020-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'bucket'],
    ['more than 50 campaigns', { campIds: Array.from({ length: 51 }, (_, i) => `c${i}`) }, 'campIds'],
  ])('refuses %s as BAD_USER_INPUT', async (_name, variables, argument) => {
    const account = await accountWithCampaigns('spring');
    const started = performance.now();
    const reply = await stats(account.token, { ...span, ...variables });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(reply.status).toBe(200);
    const [error] = reply.body.errors ?? [];
    expect(error.extensions.code, JSON.stringify(error)).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(error)).toContain(argument);
    expect(reply.body.data).toBeNull();
  });

  it('takes 400 buckets (a year of days plus)', async () => {
    const account = await accountWithCampaigns('spring');
    const result = await statsOk(account.token, { from: '2025-01-01T00:00:00Z', to: '2026-02-04T00:00:00Z' });
    expect(result.buckets).toHaveLength(399);
  });

  it('needs a token', async () => {
    const reply = await stats('', span);
    expect(reply.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
