// Call logs: one per (account, CallSid), moved forward by call-status callbacks, listed newest first (docs/decisions.md §7).
import { type Kysely, type RawBuilder, type Selectable, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { dialectOf } from '../db/dialect.js';
import { analysisResultsOf, resultEntries } from '../db/analysis-results.js';
import { allOf, bothAllow, keptNodes, MAX_ARMS, type Walk, walkPage } from '../db/filtered-walk.js';
import {
  type Keyset,
  type KeysetPage,
  type KeysetParameters,
  keysetOf,
  keysetPage,
  keysetParameters,
  type SortKey,
} from '../db/keyset.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { CallLogsTable, Database } from '../db/types.js';
import { type CallStatus, isTerminal, STATUS_RANK } from './call-logs.schema.js';
import { requireCampaign } from './campaigns.js';
import { notFound } from '../core/errors.js';
import { withEvents } from './events.js';

export interface CallLog {
  callId: string;
  campaignId: string;
  direction: string | null;
  fromNumber: string | null;
  toNumber: string | null;
  status: CallStatus;
  startedAt: string;
  endedAt: string | null;
  durationSeconds: number | null;
  cost: number | null;
  recordingUrl: string | null;
  /** The long texts (CALL_LOG_TEXTS): undefined in a list entry read without them (never asked of it). */
  transcript: string | null;
  summary: string | null;
  analysis: unknown;
  createdAt: string;
  updatedAt: string;
}

/**
 * A call log's long texts, each a column of the same name: a transcript runs to 500 000 characters, so a list reads
 * them only when its query asks for them (docs/performance.md, "Lists read what they select").
 */
export const CALL_LOG_TEXTS = ['transcript', 'summary', 'analysis'] as const;
export type CallLogText = (typeof CALL_LOG_TEXTS)[number];
/** Which long texts a list reads. */
export type CallLogTexts = ReadonlySet<CallLogText>;
/** Every long text: what the lists read unless told otherwise. */
export const ALL_CALL_LOG_TEXTS: CallLogTexts = new Set(CALL_LOG_TEXTS);

/** The columns every read of a call log selects; the long texts are added as asked. */
const SHORT_COLUMNS = [
  'call_id',
  'camp_id',
  'direction',
  'from_number',
  'to_number',
  'status',
  'started_at',
  'ended_at',
  'duration_seconds',
  'cost',
  'recording_url',
  'created_at',
  'updated_at',
] as const;

type Row = Selectable<CallLogsTable>;
/** A row as a list reads it: its long texts only when asked for. */
type ListedRow = Pick<Row, (typeof SHORT_COLUMNS)[number]> & Partial<Pick<Row, CallLogText>>;

const toCallLog = (row: ListedRow): CallLog => ({
  callId: row.call_id,
  campaignId: row.camp_id,
  direction: row.direction,
  fromNumber: row.from_number,
  toNumber: row.to_number,
  status: row.status as CallStatus,
  startedAt: row.started_at,
  endedAt: row.ended_at,
  durationSeconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
  // A non-finite amount (stored before prices were capped) reads as unknown rather than failing the whole list.
  cost: row.cost === null || !Number.isFinite(Number(row.cost)) ? null : Number(row.cost),
  recordingUrl: row.recording_url,
  transcript: row.transcript as string | null,
  summary: row.summary as string | null,
  analysis: row.analysis === null || row.analysis === undefined ? row.analysis : (JSON.parse(row.analysis) as unknown),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export interface CallStatusUpdate {
  callId: string;
  status: CallStatus;
  direction?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  durationSeconds?: number | undefined;
  cost?: number | undefined;
  recordingUrl?: string | undefined;
  /** When the callback arrived (ISO 8601 UTC); now unless importing history. */
  receivedAt?: string | undefined;
}

/**
 * Applies one status callback in one statement: creates the log, or moves it forward. A callback whose status does
 * not rank above the stored one (a repeat, or a late non-terminal one) changes nothing. `ended` is true when this
 * callback is the one that made the call terminal; that one also raises `call.ended`.
 */
export async function applyCallStatus(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  update: CallStatusUpdate,
): Promise<{ log: CallLog; changed: boolean; ended: boolean }> {
  const now = update.receivedAt ?? new Date().toISOString();
  const terminal = isTerminal(update.status);
  return withEvents(db, accountId, async (trx, raise) => {
    const row = await trx
      .insertInto('call_logs')
      .values({
        account_id: accountId,
        call_id: update.callId,
        camp_id: campId,
        direction: update.direction ?? null,
        from_number: update.from ?? null,
        to_number: update.to ?? null,
        status: update.status,
        status_rank: STATUS_RANK[update.status],
        started_at: now,
        ended_at: terminal ? now : null,
        duration_seconds: update.durationSeconds ?? null,
        cost: update.cost ?? null,
        recording_url: update.recordingUrl ?? null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'call_id'])
          .doUpdateSet((eb) => ({
            status: eb.ref('excluded.status'),
            status_rank: eb.ref('excluded.status_rank'),
            ended_at: eb.ref('excluded.ended_at'),
            direction: eb.fn.coalesce('call_logs.direction', 'excluded.direction'),
            from_number: eb.fn.coalesce('call_logs.from_number', 'excluded.from_number'),
            to_number: eb.fn.coalesce('call_logs.to_number', 'excluded.to_number'),
            duration_seconds: eb.fn.coalesce('excluded.duration_seconds', 'call_logs.duration_seconds'),
            cost: eb.fn.coalesce('excluded.cost', 'call_logs.cost'),
            recording_url: eb.fn.coalesce('excluded.recording_url', 'call_logs.recording_url'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where((eb) => eb('excluded.status_rank', '>', eb.ref('call_logs.status_rank'))),
      )
      .returningAll()
      .executeTakeFirst();
    if (row) {
      const log = toCallLog(row);
      if (terminal) await raise(campId, 'call.ended', log);
      return { log, changed: true, ended: terminal };
    }
    const current = await getCallLog(trx, accountId, update.callId);
    if (!current) throw new Error(`call log ${update.callId} vanished during a callback`);
    return { log: current, changed: false, ended: false };
  });
}

/** The account's call logs with these call ids (those that exist), in no particular order. */
export async function getCallLogsByIds(
  db: Kysely<Database>,
  accountId: string,
  callIds: readonly string[],
): Promise<CallLog[]> {
  if (callIds.length === 0) return [];
  const rows = await db
    .selectFrom('call_logs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('call_id', 'in', callIds)
    .execute();
  return rows.map(toCallLog);
}

export async function getCallLog(db: Kysely<Database>, accountId: string, callId: string): Promise<CallLog | null> {
  const row = await db
    .selectFrom('call_logs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('call_id', '=', callId)
    .executeTakeFirst();
  return row ? toCallLog(row) : null;
}

export async function saveCallOutcome(
  db: Kysely<Database>,
  accountId: string,
  callId: string,
  outcome: { transcript?: string | null; summary?: string | null; analysis?: unknown },
): Promise<CallLog> {
  const row = await db
    .updateTable('call_logs')
    .set({
      ...(outcome.transcript !== undefined ? { transcript: outcome.transcript } : {}),
      ...(outcome.summary !== undefined ? { summary: outcome.summary } : {}),
      ...(outcome.analysis !== undefined
        ? {
            analysis: outcome.analysis === null ? null : JSON.stringify(outcome.analysis),
            analysis_results: analysisResultsOf(outcome.analysis),
          }
        : {}),
      updated_at: new Date().toISOString(),
    })
    .where('account_id', '=', accountId)
    .where('call_id', '=', callId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('Call not found');
  return toCallLog(row);
}

export interface CallLogFilter {
  campId?: string | null | undefined;
  status?: CallStatus | null | undefined;
  /** ISO 8601 UTC, inclusive. */
  since?: string | null | undefined;
  /** ISO 8601 UTC, inclusive. */
  until?: string | null | undefined;
  /** The dashboard filters (docs/dashboards.md "Filters"): any of them makes the list a filtered walk. */
  more?: CallLogFilters | null | undefined;
}

/** How a call ended (or that it has not), as callStats counts it; a filter takes the statuses of each. */
export const CALL_OUTCOMES = {
  answered: ['in-progress', 'completed'],
  completed: ['completed'],
  failed: ['failed'],
  'no-answer': ['no-answer'],
  busy: ['busy'],
  canceled: ['canceled'],
  ongoing: ['queued', 'ringing', 'in-progress'],
} as const satisfies Record<string, readonly CallStatus[]>;
export type CallOutcome = keyof typeof CALL_OUTCOMES;

/** A closed range; either end may be absent. */
export interface Range<T> {
  min?: T | null | undefined;
  max?: T | null | undefined;
}

/** The filters of a call log list beyond campaign, status and time range; every given one must hold. */
export interface CallLogFilters {
  campIds?: readonly string[] | null | undefined;
  statuses?: readonly CallStatus[] | null | undefined;
  outcomes?: readonly CallOutcome[] | null | undefined;
  /** Seconds; a call that reported no duration matches no range. */
  duration?: Range<number> | null | undefined;
  /** In the account's currency; a call that reported no cost matches no range. */
  cost?: Range<number> | null | undefined;
  fromNumber?: string | null | undefined;
  toNumber?: string | null | undefined;
  /** A top-level field of the post-call analysis holding this string, or the number or boolean it spells. */
  analysis?: { field: string; equals: string } | null | undefined;
}

/**
 * A call-log filter, and which long texts to read, as the parameters of a reusable query (src/db/reusable-query.ts:
 * the booleans choose the SQL).
 */
interface FilterParameters {
  accountId: string;
  campId: string | null;
  status: string | null;
  since: string | null;
  until: string | null;
  transcript: boolean;
  summary: boolean;
  analysis: boolean;
}

const filterParameters = (accountId: string, filter: CallLogFilter, texts: CallLogTexts): FilterParameters => ({
  accountId,
  campId: filter.campId || null,
  status: filter.status || null,
  since: filter.since || null,
  until: filter.until || null,
  transcript: texts.has('transcript'),
  summary: texts.has('summary'),
  analysis: texts.has('analysis'),
});

function filtered(db: Kysely<Database>, p: FilterParameters) {
  const columns = [...SHORT_COLUMNS, ...CALL_LOG_TEXTS.filter((text) => p[text])];
  let query = db
    .selectFrom('call_logs')
    .select(columns as unknown as typeof SHORT_COLUMNS)
    .where('account_id', '=', p.accountId);
  if (p.campId !== null) query = query.where('camp_id', '=', p.campId);
  if (p.status !== null) query = query.where('status', '=', p.status);
  if (p.since !== null) query = query.where('started_at', '>=', p.since);
  if (p.until !== null) query = query.where('started_at', '<=', p.until);
  return query;
}

/**
 * An empty page of a campaign's logs: NOT_FOUND when the campaign does not exist. A page with rows needs no check
 * (a call log's campaign exists: the foreign key cascades), so a read costs one query.
 */
async function checkedPage(db: Kysely<Database>, accountId: string, filter: CallLogFilter, rows: ListedRow[]) {
  if (rows.length === 0 && filter.campId) await requireCampaign(db, accountId, filter.campId);
  return rows.map(toCallLog);
}

const callLogList = reusableQuery((db, p: FilterParameters & { limit: number; offset: number }) =>
  filtered(db, p).orderBy('started_at', 'desc').orderBy('call_id', 'desc').limit(p.limit).offset(p.offset),
);

/**
 * Newest first, offset paging (the legacy door). An unknown campaign is NOT_FOUND. Reads only the long texts in
 * `texts` (the others are left undefined).
 */
export async function listCallLogs(
  db: Kysely<Database>,
  accountId: string,
  filter: CallLogFilter & { limit: number; offset: number },
  texts: CallLogTexts = ALL_CALL_LOG_TEXTS,
): Promise<CallLog[]> {
  const { limit, offset } = filter;
  const rows = await callLogList(db, { ...filterParameters(accountId, filter, texts), limit, offset });
  return checkedPage(db, accountId, filter, rows);
}

/** What a call log list can be sorted by; `started` (newest first) is the default. */
export const CALL_LOG_ORDERS = ['started', 'duration', 'cost', 'status'] as const;
export type CallLogOrderField = (typeof CALL_LOG_ORDERS)[number];

export interface CallLogOrder {
  field: CallLogOrderField;
  ascending: boolean;
}

export const DEFAULT_CALL_LOG_ORDER: CallLogOrder = { field: 'started', ascending: false };

/**
 * Each order's keyset (sort, id), walked by an index per account and per campaign (migrations/0006_call_logs.ts,
 * 0021_list_orders.ts). A duration or cost not reported yet sorts as -1: the indexes are on these very expressions.
 * The cursors carry the same values (sortValueOf), whole numbers where the column holds them.
 */
const ORDER_KEYSETS: Record<CallLogOrderField, readonly [SortKey, string]> = {
  started: ['started_at', 'call_id'],
  duration: [sql`coalesce(duration_seconds, -1)`, 'call_id'],
  // As toCallLog reads a cost: one that is no finite amount (stored before prices were capped) is unreported.
  cost: [sql`CASE WHEN cost >= 0 AND cost <= 1e12 THEN cost ELSE -1 END`, 'call_id'],
  status: ['status', 'call_id'],
};

/** A call log's sort value in an order: what its cursor carries (as the index holds it). */
export function sortValueOf(call: CallLog, field: CallLogOrderField): string | number {
  switch (field) {
    case 'duration':
      return call.durationSeconds ?? -1;
    case 'cost':
      return call.cost ?? -1;
    case 'status':
      return call.status;
    default:
      return call.startedAt;
  }
}

type PageParameters = FilterParameters & KeysetParameters & { ascending: boolean };

const callLogPages = Object.fromEntries(
  CALL_LOG_ORDERS.map((field) => [
    field,
    reusableQuery((db, p: PageParameters) =>
      keysetPage(filtered(db, p), ORDER_KEYSETS[field], keysetOf(p), p.ascending ? 'oldest first' : 'newest first'),
    ),
  ]),
) as Record<CallLogOrderField, (db: Kysely<Database>, p: PageParameters) => Promise<ListedRow[]>>;

/**
 * A keyset page for Relay connections, in `order` (newest first by startedAt by default), tie-broken by callId. An
 * unknown campaign is NOT_FOUND. Reads only the long texts in `texts` (the others are left undefined).
 */
export async function pageCallLogs(
  db: Kysely<Database>,
  accountId: string,
  filter: CallLogFilter,
  page: KeysetPage,
  texts: CallLogTexts = ALL_CALL_LOG_TEXTS,
  order: CallLogOrder = DEFAULT_CALL_LOG_ORDER,
): Promise<CallLog[]> {
  const rows = await callLogPages[order.field](db, {
    ...filterParameters(accountId, filter, texts),
    ...keysetParameters(page),
    ascending: order.ascending,
  });
  return checkedPage(db, accountId, filter, rows);
}

/**
 * Rows one filtered page reads at most (docs/dashboards.md "Filters"): past it, the page ends early with a cursor where
 * the walk stopped. A filter on the post-call analysis searches each call's results (up to 4 KiB), so fewer.
 */
export const CALL_LOG_WALK_BUDGET = 4000;
export const ANALYSIS_WALK_BUDGET = 1000;

const equalsOne = (column: string, values: readonly string[]) =>
  values.length === 1
    ? sql<SqlBool>`${sql.ref(column)} = ${values[0]}`
    : sql<SqlBool>`${sql.ref(column)} in (${sql.join(values)})`;

/** The arms of a walk: one per combination of the values of each column the index begins with. */
function armsOf(base: Select, columns: ReadonlyArray<readonly [string, readonly string[]]>): Select[] {
  let arms = [base];
  for (const [column, values] of columns) {
    arms = arms.flatMap((arm) => values.map((value) => arm.where(sql<SqlBool>`${sql.ref(column)} = ${value}`)));
  }
  return arms;
}

type Select = ReturnType<typeof scope>;
const scope = (db: Kysely<Database>, accountId: string) =>
  db.selectFrom('call_logs').where('account_id', '=', accountId) as unknown as SelectQueryBuilder<
    Database,
    keyof Database,
    object
  >;

/**
 * The walk of a filtered page in `order`: which index it walks (per campaign, per status, per number), which filters
 * that index serves as ranges, and which are checked on the rows walked. Null when no call can match.
 */
function callLogWalk(db: Kysely<Database>, accountId: string, filter: CallLogFilter, order: CallLogOrder): Walk | null {
  const more = filter.more ?? {};
  const camps = bothAllow(filter.campId ? [filter.campId] : null, more.campIds);
  let statuses = bothAllow(filter.status ? [filter.status] : null, more.statuses);
  if (more.outcomes)
    statuses = bothAllow(
      statuses,
      more.outcomes.flatMap((outcome) => CALL_OUTCOMES[outcome]),
    );
  if (camps?.length === 0 || statuses?.length === 0) return null;
  const field = order.field;
  const ranges: Array<RawBuilder<SqlBool>> = [];
  const residual: Array<RawBuilder<SqlBool>> = [];
  // Index-served when the order's index begins with the column (0006_call_logs.ts, 0021, 0022), else checked.
  const armColumns: Array<readonly [string, readonly string[]]> = [];
  if (camps) armColumns.push(['camp_id', camps]);
  if (statuses) {
    const statusIndexed =
      (field === 'started' || field === 'status') && (camps?.length ?? 1) * statuses.length <= MAX_ARMS;
    if (statusIndexed) armColumns.push(['status', statuses]);
    else residual.push(equalsOne('status', statuses));
  }
  for (const [column, number] of [
    ['to_number', more.toNumber],
    ['from_number', more.fromNumber],
  ] as const) {
    if (number == null) continue;
    if (field === 'started' && armColumns.length === 0) armColumns.push([column, [number]]);
    else residual.push(sql<SqlBool>`${sql.ref(column)} = ${number}`);
  }
  const [sortKey] = ORDER_KEYSETS[field];
  const bounded = (own: CallLogOrderField, conditions: Array<RawBuilder<SqlBool>>) =>
    (field === own ? ranges : residual).push(...conditions);
  const times: Array<RawBuilder<SqlBool>> = [];
  if (filter.since) times.push(sql<SqlBool>`started_at >= ${filter.since}`);
  if (filter.until) times.push(sql<SqlBool>`started_at <= ${filter.until}`);
  bounded('started', times);
  // A duration or cost range never matches an unreported one (its sort value, -1): the lower bound is at least 0.
  for (const own of ['duration', 'cost'] as const) {
    const range = more[own];
    if (!range || (range.min == null && range.max == null)) continue;
    const value = ORDER_KEYSETS[own][0] as RawBuilder<unknown>;
    const conditions = [sql<SqlBool>`${value} >= ${Math.max(range.min ?? 0, 0)}`];
    if (range.max != null) conditions.push(sql<SqlBool>`${value} <= ${range.max}`);
    bounded(own, conditions);
  }
  if (more.analysis) {
    // An entry of the call's results (src/db/analysis-results.ts): a text search, no JSON parsed.
    const entries = resultEntries(more.analysis.field, more.analysis.equals);
    const found = (needle: string) =>
      dialectOf(db) === 'postgres'
        ? sql<SqlBool>`strpos(analysis_results, ${needle}) > 0`
        : sql<SqlBool>`instr(analysis_results, ${needle}) > 0`;
    residual.push(sql<SqlBool>`(${sql.join(entries.map(found), sql` or `)})`);
  }
  let base = scope(db, accountId);
  for (const condition of ranges) base = base.where(condition);
  return {
    arms: armsOf(base, armColumns),
    keys: [sortKey, 'call_id'],
    ascending: order.ascending,
    numeric: field === 'duration' || field === 'cost',
    residual: allOf(residual),
    budget: more.analysis ? ANALYSIS_WALK_BUDGET : CALL_LOG_WALK_BUDGET,
  };
}

/** The rows of these call ids, with the long texts asked for. */
function rowsByIds(db: Kysely<Database>, accountId: string, callIds: readonly string[], texts: CallLogTexts) {
  const columns = [...SHORT_COLUMNS, ...CALL_LOG_TEXTS.filter((text) => texts.has(text))];
  return db
    .selectFrom('call_logs')
    .select(columns as unknown as typeof SHORT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('call_id', 'in', callIds)
    .execute() as Promise<ListedRow[]>;
}

/**
 * A page of a list with dashboard filters (`filter.more`): a walk of the order's index (src/db/filtered-walk.ts), then
 * the rows it found, each with the key it was found at (its cursor). A page the walk's budget cut short says where it
 * stopped (`resume`).
 */
export async function walkCallLogs(
  db: Kysely<Database>,
  accountId: string,
  filter: CallLogFilter,
  page: KeysetPage,
  texts: CallLogTexts = ALL_CALL_LOG_TEXTS,
  order: CallLogOrder = DEFAULT_CALL_LOG_ORDER,
): Promise<{ nodes: Array<{ node: CallLog; key: Keyset }>; resume: Keyset | null }> {
  const walk = callLogWalk(db, accountId, filter, order);
  if (filter.campId) await requireCampaign(db, accountId, filter.campId);
  if (!walk) return { nodes: [], resume: null };
  const walked = await walkPage(db, walk, page);
  if (walked.keys.length === 0) return { nodes: [], resume: walked.resume };
  const ids = walked.keys.map(([, id]) => id);
  const rows = new Map((await rowsByIds(db, accountId, ids, texts)).map((row) => [row.call_id, row]));
  return keptNodes(walked, page.limit, ([, id]) => {
    const row = rows.get(id);
    return row ? toCallLog(row) : undefined;
  });
}
