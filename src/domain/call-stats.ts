// Call statistics over time (docs/dashboards.md): counters of the calls started in each bucket (an hour, a day, a
// week or a month in the caller's time zone), read from the counters the database keeps per UTC hour
// (migrations/0020_call_stats.ts) — a year of daily buckets reads at most 8 784 rows, however many calls it counts.
// A zone whose bucket edges are not whole UTC hours (India's +05:30) splits each edge hour with one read of the call
// logs of the part past the edge.
import { type Kysely, sql } from 'kysely';
import { badInput } from '../core/errors.js';
import { dialectOf } from '../db/dialect.js';
import type { CallCounters, Database } from '../db/types.js';
import { requireCampaign } from './campaigns.js';

export const STATS_BUCKETS = ['HOUR', 'DAY', 'WEEK', 'MONTH'] as const;
export type StatsBucket = (typeof STATS_BUCKETS)[number];

/** At most this many buckets a query: a year of days (366), 16 days of hours, 7 years of weeks, 33 years of months. */
export const MAX_STATS_BUCKETS = 400;
/** At most this many campaigns named in one query (each adds its own hourly rows to read). */
export const MAX_STATS_CAMPAIGNS = 50;
/** The longest time zone name taken (the longest IANA name is 30 characters). */
const MAX_TIME_ZONE_LENGTH = 64;

/** The counts of the calls started in a period: what each bucket, and the totals, answer. */
export interface CallCounts {
  calls: number;
  /** Answered: in progress or completed. */
  answered: number;
  completed: number;
  failed: number;
  noAnswer: number;
  busy: number;
  canceled: number;
  /** Not over yet: queued, ringing or in progress. */
  ongoing: number;
  /** Seconds, over the calls that reported a duration. */
  totalDurationSeconds: number;
  /** totalDurationSeconds over the calls that reported a duration; 0 when none did. */
  averageDurationSeconds: number;
  /** In the account's currency, to a millionth. */
  spend: number;
  /** spend over the calls that reported a cost; 0 when none did. */
  averageCost: number;
}

export interface CallStatsBucket extends CallCounts {
  /** The bucket's first instant. */
  start: Date;
  /** The next bucket's first instant (exclusive). */
  end: Date;
  /** The start in the time zone, with its offset ('2026-03-29T00:00:00+01:00'). */
  localStart: string;
}

export interface CallStats {
  bucket: StatsBucket;
  timeZone: string;
  buckets: CallStatsBucket[];
  totals: CallCounts;
}

export interface CallStatsQuery {
  /** Only these campaigns (each must exist); every campaign of the account when absent or empty. */
  campIds?: readonly string[] | null | undefined;
  from: Date;
  to: Date;
  bucket: StatsBucket;
  timeZone: string;
}

/** The raw counters, summed (the columns of migrations/0020_call_stats.ts). */
type Raw = { [K in keyof CallCounters]: number };
const COUNTER_COLUMNS = [
  'calls',
  'answered',
  'completed',
  'failed',
  'no_answer',
  'busy',
  'canceled',
  'seconds',
  'timed',
  'spent_micros',
  'costed',
] as const satisfies ReadonlyArray<keyof CallCounters>;

const zero = (): Raw => ({
  calls: 0,
  answered: 0,
  completed: 0,
  failed: 0,
  no_answer: 0,
  busy: 0,
  canceled: 0,
  seconds: 0,
  timed: 0,
  spent_micros: 0,
  costed: 0,
});

function add(into: Raw, row: Record<string, unknown>, sign = 1): void {
  // pg answers sums of bigint as numeric strings; SQLite as numbers.
  for (const column of COUNTER_COLUMNS) into[column] += sign * Number(row[column] ?? 0);
}

export function countsOf(raw: Raw): CallCounts {
  const terminal = raw.completed + raw.failed + raw.no_answer + raw.busy + raw.canceled;
  const spend = raw.spent_micros / 1_000_000;
  return {
    calls: raw.calls,
    answered: raw.answered,
    completed: raw.completed,
    failed: raw.failed,
    noAnswer: raw.no_answer,
    busy: raw.busy,
    canceled: raw.canceled,
    ongoing: raw.calls - terminal,
    totalDurationSeconds: raw.seconds,
    averageDurationSeconds: raw.timed > 0 ? raw.seconds / raw.timed : 0,
    spend,
    averageCost: raw.costed > 0 ? spend / raw.costed : 0,
  };
}

/** Whether Intl knows the zone (an IANA name such as Europe/Paris, or UTC). */
function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The refusal of a bad time zone name, or null when Intl knows it. */
export function timeZoneProblem(name: string): string | null {
  if (name.length === 0 || name.length > MAX_TIME_ZONE_LENGTH || !knownTimeZone(name)) {
    return 'an IANA time zone name (Europe/Paris, America/New_York, Asia/Kolkata) or UTC';
  }
  return null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The span a query may ask about: calls are of this century and the next (time zone rules are not known past it). */
const EARLIEST = Date.UTC(1900, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);

/**
 * The zone's offset from UTC at each instant, in ms, as Intl writes it (`GMT-00:44:30`, `GMT+05:30`, `GMT`): one
 * formatter per query. (@date-fns/tz's tzOffset loses the sign of offsets under an hour west of UTC and rounds seconds.)
 */
function offsetsOf(timeZone: string): (instant: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
  return (instant) => {
    const name = format.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
    const match = /^GMT([+-])(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(name);
    if (!match) return 0;
    const [, sign, hours, minutes, seconds] = match;
    const ms = ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds ?? 0)) * 1000;
    return sign === '-' ? -ms : ms;
  };
}

/**
 * The instant the zone's clocks show `wall` (a wall-clock time, as ms of a clock read as UTC). Clocks going back
 * show it twice: the later one. Clocks going forward skip it: the instant as far past the gap (a skipped midnight
 * starts the day at the first instant after the gap, 01:00).
 */
function instantOf(offsetAt: (instant: number) => number, wall: number): number {
  // The offsets on either side of any change near `wall` (changes are months apart).
  const offsets = [...new Set([offsetAt(wall - DAY), offsetAt(wall), offsetAt(wall + DAY)])];
  const shown = offsets.map((offset) => wall - offset).filter((instant) => instant + offsetAt(instant) === wall);
  if (shown.length > 0) return Math.max(...shown);
  return wall - Math.min(...offsets);
}

/** The first wall-clock time of each bucket after `wall` (a bucket's first). */
const NEXT_WALL: Record<Exclude<StatsBucket, 'HOUR'>, (wall: number) => number> = {
  DAY: (wall) => wall + DAY,
  WEEK: (wall) => wall + 7 * DAY,
  MONTH: (wall) => {
    const date = new Date(wall);
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  },
};

/** The first wall-clock time of the bucket that holds `wall`: midnight, Monday's midnight, the first's midnight. */
const FIRST_WALL: Record<Exclude<StatsBucket, 'HOUR'>, (wall: number) => number> = {
  DAY: (wall) => Math.floor(wall / DAY) * DAY,
  WEEK: (wall) => {
    const midnight = Math.floor(wall / DAY) * DAY;
    return midnight - ((new Date(midnight).getUTCDay() + 6) % 7) * DAY;
  },
  MONTH: (wall) => {
    const date = new Date(wall);
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  },
};

/**
 * The edges (instants, ms) of the buckets that meet [from, to): bucket i is [edges[i], edges[i + 1]). Hours are real
 * hours from the start of the local hour that holds `from`; days, weeks (from Monday) and months start at local
 * midnight, so a day is 23 or 25 hours when clocks change. More than MAX_STATS_BUCKETS is BAD_USER_INPUT (found by
 * making at most one bucket more). Wall-clock arithmetic over the zone's offsets (Intl): date-fns's own startOfDay and
 * addDays in a zone give the same edges (test/domain/call-stats-edges.test.ts) where clocks do not skip midnight.
 */
export function bucketEdges(from: Date, to: Date, bucket: StatsBucket, timeZone: string): number[] {
  return cutBuckets(from, to, bucket, timeZone).edges;
}

/** bucketEdges, with the zone's offsets it read them by (the labels read the same). */
function cutBuckets(
  from: Date,
  to: Date,
  bucket: StatsBucket,
  timeZone: string,
): { edges: number[]; offsetAt: (instant: number) => number } {
  const issues = [];
  for (const [name, instant] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!(instant.getTime() >= EARLIEST && instant.getTime() <= LATEST)) {
      issues.push({ path: [name], type: 'value_error', message: 'should be between the years 1900 and 2200' });
    }
  }
  if (issues.length === 0 && !(from.getTime() < to.getTime())) {
    issues.push({ path: ['to'], type: 'value_error', message: '`to` must be later than `from`' });
  }
  const zoneProblem = timeZoneProblem(timeZone);
  if (zoneProblem) {
    issues.push({
      path: ['timeZone'],
      type: 'value_error',
      message: `should be ${zoneProblem}`,
      input: timeZone.slice(0, 100),
    });
  }
  if (issues.length > 0) throw badInput(issues);
  const tooMany = () =>
    badInput([
      {
        path: ['bucket'],
        type: 'value_error',
        message: `at most ${MAX_STATS_BUCKETS} buckets a query: ask for a shorter span or a longer bucket`,
        input: bucket,
      },
    ]);
  const start = from.getTime();
  const end = to.getTime();
  const offsetAt = offsetsOf(timeZone);
  const wallFrom = start + offsetAt(start);
  const edges: number[] = [];
  if (bucket === 'HOUR') {
    const first = start - (((wallFrom % HOUR) + HOUR) % HOUR);
    for (let edge = first; ; edge += HOUR) {
      edges.push(edge);
      if (edge >= end) break;
      if (edges.length > MAX_STATS_BUCKETS) throw tooMany();
    }
    return { edges, offsetAt };
  }
  const next = NEXT_WALL[bucket];
  for (let wall = FIRST_WALL[bucket](wallFrom); ; wall = next(wall)) {
    const edge = instantOf(offsetAt, wall);
    // A wall time skipped by clocks going forward at midnight never moves an edge back past the one before.
    if (edges.length === 0 || edge > edges.at(-1)!) edges.push(edge);
    if (edge >= end) break;
    if (edges.length > MAX_STATS_BUCKETS) throw tooMany();
  }
  return { edges, offsetAt };
}

/**
 * An instant as the zone's clocks show it, with the offset: '2026-03-29T00:00:00+01:00' (seconds in the offset only
 * when it has some: '1950-05-31T23:15:30-00:44:30').
 */
export function localTimeOf(instant: number, timeZone: string, offsetAt = offsetsOf(timeZone)): string {
  const offset = offsetAt(instant);
  const total = Math.round(Math.abs(offset) / 1000);
  const sign = offset < 0 ? '-' : '+';
  const two = (n: number) => String(n).padStart(2, '0');
  const seconds = total % 60;
  const hhmm = `${two(Math.floor(total / 3600))}:${two(Math.floor(total / 60) % 60)}${seconds ? `:${two(seconds)}` : ''}`;
  return `${new Date(instant + offset).toISOString().slice(0, 19)}${sign}${hhmm}`;
}

/** '2026-12-03T11' for any instant of that UTC hour: the key of the hourly counters. */
const hourKey = (instant: number) => new Date(instant).toISOString().slice(0, 13);

/** The counters of call log rows, summed as the migration's triggers count them (for the parts of an edge hour). */
const RAW_COUNTERS = [
  ['calls', 'COUNT(*)'],
  ['answered', "SUM(CASE WHEN status IN ('in-progress', 'completed') THEN 1 ELSE 0 END)"],
  ['completed', "SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END)"],
  ['failed', "SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END)"],
  ['no_answer', "SUM(CASE WHEN status = 'no-answer' THEN 1 ELSE 0 END)"],
  ['busy', "SUM(CASE WHEN status = 'busy' THEN 1 ELSE 0 END)"],
  ['canceled', "SUM(CASE WHEN status = 'canceled' THEN 1 ELSE 0 END)"],
  ['seconds', 'SUM(COALESCE(duration_seconds, 0))'],
  ['timed', 'SUM(CASE WHEN duration_seconds IS NULL THEN 0 ELSE 1 END)'],
  ['spent_micros', 'SUM(CASE WHEN cost >= 0 AND cost <= 1e12 THEN CAST(ROUND(cost * 1000000) AS BIGINT) ELSE 0 END)'],
  ['costed', 'SUM(CASE WHEN cost >= 0 AND cost <= 1e12 THEN 1 ELSE 0 END)'],
] as const satisfies ReadonlyArray<readonly [keyof CallCounters, string]>;

/** The distinct campaigns asked for, each checked to exist (NOT_FOUND otherwise). */
async function campaignsOf(db: Kysely<Database>, accountId: string, campIds: readonly string[]): Promise<string[]> {
  const distinct = [...new Set(campIds)];
  if (distinct.length > MAX_STATS_CAMPAIGNS) {
    throw badInput([
      {
        path: ['campIds'],
        type: 'too_long',
        message: `at most ${MAX_STATS_CAMPAIGNS} campaigns: leave campIds out for all of them`,
      },
    ]);
  }
  const found = await db
    .selectFrom('campaigns')
    .select('camp_id')
    .where('account_id', '=', accountId)
    .where('camp_id', 'in', distinct)
    .execute();
  if (found.length < distinct.length) {
    const known = new Set(found.map((row) => row.camp_id));
    await requireCampaign(
      db,
      accountId,
      distinct.find((campId) => !known.has(campId))!,
    );
  }
  return distinct;
}

/**
 * The hourly counters summed per bucket, in the database (at most 400 rows come back, however many hours): bucket i
 * is the hours from firstHours[i] to firstHours[i + 1] (keys), read through the counters' key, (account, hour) or
 * (account, campaign, hour).
 */
async function bucketSums(
  db: Kysely<Database>,
  accountId: string,
  campIds: string[] | null,
  firstHours: string[],
): Promise<Array<Record<string, unknown> & { i: number | string }>> {
  const buckets = sql.join(
    firstHours.slice(1).map((end, i) => sql`(CAST(${i} AS INTEGER), ${firstHours[i]!}, ${end})`),
  );
  const sums = sql.join(COUNTER_COLUMNS.map((column) => sql`SUM(h.${sql.ref(column)}) AS ${sql.ref(column)}`));
  const hours =
    campIds === null
      ? sql`account_call_stats_hours h ON h.account_id = ${accountId}`
      : sql`call_stats_hours h ON h.account_id = ${accountId} AND h.camp_id IN (${sql.join(campIds)})`;
  const { rows } = await sql<Record<string, unknown> & { i: number | string }>`
    WITH buckets (i, lo, hi) AS (VALUES ${buckets})
    SELECT b.i AS i, ${sums}
    FROM buckets b JOIN ${hours} AND h.hour >= b.lo AND h.hour < b.hi
    GROUP BY b.i`.execute(db);
  return rows;
}

/**
 * The counters of the calls started in [edge, end of its UTC hour) for each edge inside an hour, keyed by that hour:
 * one statement, an index range of the call logs per edge ((account, started_at), or (account, campaign, started_at)).
 */
async function edgeParts(
  db: Kysely<Database>,
  accountId: string,
  campIds: string[] | null,
  edges: number[],
): Promise<Map<string, Record<string, unknown>>> {
  if (edges.length === 0) return new Map();
  const ranges = sql.join(
    edges.map((edge) => {
      const hourEnd = Math.floor(edge / HOUR) * HOUR + HOUR;
      return sql`(${hourKey(edge)}, ${new Date(edge).toISOString()}, ${new Date(hourEnd).toISOString()})`;
    }),
  );
  const counters = sql.join(RAW_COUNTERS.map(([column, sum]) => sql`${sql.raw(sum)} AS ${sql.ref(column)}`));
  const campaigns = campIds === null ? sql`` : sql`AND c.camp_id IN (${sql.join(campIds)})`;
  // Each edge's range read on its own, through the (account or campaign, started_at) index: PostgreSQL is told so with
  // LATERAL (joined, it read the account's whole index range and filtered it); SQLite, which knows no LATERAL, with
  // CROSS JOIN (the edges the outer loop) and INDEXED BY (it chose the campaign-and-status index and read every call
  // of the named campaigns once per edge: 2 s).
  const query =
    dialectOf(db) === 'postgres'
      ? sql<Record<string, unknown> & { hour: string }>`
        SELECT edges.hour AS hour, s.*
        FROM (VALUES ${ranges}) AS edges (hour, lo, hi)
        CROSS JOIN LATERAL (
          SELECT ${counters} FROM call_logs c
          WHERE c.account_id = ${accountId} AND c.started_at >= edges.lo AND c.started_at < edges.hi ${campaigns}
        ) s`
      : sql<Record<string, unknown> & { hour: string }>`
        WITH edges (hour, lo, hi) AS (VALUES ${ranges})
        SELECT edges.hour AS hour, ${counters}
        FROM edges CROSS JOIN call_logs c INDEXED BY ${sql.raw(campIds === null ? 'call_logs_account_started' : 'call_logs_campaign_started')}
        WHERE c.account_id = ${accountId} AND c.started_at >= edges.lo AND c.started_at < edges.hi ${campaigns}
        GROUP BY edges.hour`;
  // Its hundreds of small reads are priced past PostgreSQL's JIT threshold, and compiling them took 200 ms of a 235 ms
  // answer (a year of days in Asia/Kolkata over a million calls; 34 ms without): not for this one statement.
  const { rows } =
    dialectOf(db) === 'postgres'
      ? await db.transaction().execute(async (trx) => {
          await sql`SET LOCAL jit = off`.execute(trx);
          return query.execute(trx);
        })
      : await query.execute(db);
  return new Map(rows.map((row) => [row.hour, row]));
}

/**
 * The account's call statistics in buckets over [from, to): every bucket that meets the span, whole, in order,
 * empty ones as zeros; totals over those buckets. Unknown campaigns are NOT_FOUND; a bad span, zone or bucket count
 * BAD_USER_INPUT.
 */
export async function loadCallStats(
  db: Kysely<Database>,
  accountId: string,
  query: CallStatsQuery,
): Promise<CallStats> {
  const { edges, offsetAt } = cutBuckets(query.from, query.to, query.bucket, query.timeZone);
  const campIds = query.campIds && query.campIds.length > 0 ? await campaignsOf(db, accountId, query.campIds) : null;
  // The hours that start at or after each edge are those whose key is at least the key of the edge's hour rounded up.
  const firstHours = edges.map((edge) => hourKey(Math.ceil(edge / HOUR) * HOUR));
  const [sums, parts] = await Promise.all([
    bucketSums(db, accountId, campIds, firstHours),
    edgeParts(
      db,
      accountId,
      campIds,
      edges.filter((edge) => edge % HOUR !== 0),
    ),
  ]);

  /** The bucket of the hour `key` starts (by its start): -1 before the first edge, buckets.length after the last. */
  const bucketOf = (key: string): number => {
    let low = -1;
    let high = firstHours.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (firstHours[middle]! <= key) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const raws = edges.slice(1).map(zero);
  const inBuckets = (index: number) => index >= 0 && index < raws.length;
  for (const row of sums) add(raws[Number(row.i)]!, row);
  for (const [hour, part] of parts) {
    // The hour holds the next edge: its calls from the edge on belong to the bucket that edge starts.
    const index = bucketOf(hour);
    if (inBuckets(index)) add(raws[index]!, part, -1);
    if (inBuckets(index + 1)) add(raws[index + 1]!, part);
  }
  const total = zero();
  for (const raw of raws) add(total, raw);
  return {
    bucket: query.bucket,
    timeZone: query.timeZone,
    buckets: raws.map((raw, index) => ({
      start: new Date(edges[index]!),
      end: new Date(edges[index + 1]!),
      localStart: localTimeOf(edges[index]!, query.timeZone, offsetAt),
      ...countsOf(raw),
    })),
    totals: countsOf(total),
  };
}
