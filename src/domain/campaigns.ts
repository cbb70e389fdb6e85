// Campaigns: create, upsert (full replacement), partial update, delete, status transitions, listing (docs/decisions.md §5).
import {
  type Kysely,
  type RawBuilder,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
  type Transaction,
} from 'kysely';
import { dialectOf } from '../db/dialect.js';
import { allOf, bothAllow, keptNodes, type Walk, walkPage } from '../db/filtered-walk.js';
import { isUniqueViolation } from '../db/errors.js';
import {
  type Keyset,
  type KeysetPage,
  type KeysetParameters,
  keysetOf,
  keysetPage,
  keysetParameters,
} from '../db/keyset.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { CampaignsTable, Database } from '../db/types.js';
import { newId } from '../security/api-keys.js';
import {
  CAMPAIGN_FIELD_NAMES,
  CAMPAIGN_FIELDS,
  type CampaignColumns,
  type CampaignData,
  type CampaignDataInput,
  type CampaignFieldName,
  type CampaignPatch,
  FIELD_KINDS,
  withDefaults,
} from './campaigns.schema.js';
import { conflict, notFound } from '../core/errors.js';
import { withEvents } from './events.js';

export const CAMPAIGN_STATUSES = ['active', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export interface Campaign extends CampaignData {
  campId: string;
  status: CampaignStatus;
  createdAt: string;
  updatedAt: string;
}

type Row = Selectable<CampaignsTable>;

/**
 * A campaign's long texts (a script runs to 50 000 characters, its analysis schema as much): a list reads them only
 * when its query asks for them (docs/performance.md, "Lists read what they select"). The same texts as MCP's
 * campaign_get adds to a campaign_list entry.
 */
export const CAMPAIGN_LONG_FIELDS = [
  'script',
  'systemPrompt',
  'postCallAnalysisSchema',
  'purpose',
  'description',
  'knowledgeBase',
  'firstLine',
  'calendar',
] as const satisfies readonly CampaignFieldName[];
export type CampaignLongField = (typeof CAMPAIGN_LONG_FIELDS)[number];
/** Which long texts a list reads. */
export type CampaignTexts = ReadonlySet<CampaignLongField>;
/** Every long text: what the lists read unless told otherwise. */
export const ALL_CAMPAIGN_TEXTS: CampaignTexts = new Set(CAMPAIGN_LONG_FIELDS);
const LONG_FIELDS: ReadonlySet<CampaignFieldName> = ALL_CAMPAIGN_TEXTS;

/** The columns a list always reads: the short fields', the key, the status and the times. */
const SHORT_COLUMNS = [
  'camp_id',
  ...CAMPAIGN_FIELD_NAMES.filter((name) => !LONG_FIELDS.has(name)).map((name) => CAMPAIGN_FIELDS[name].column),
  'status',
  'created_at',
  'updated_at',
] as (keyof Row)[];

/** A list's columns: the short ones, and the long texts asked for. */
const listColumns = (p: TextParameters) => [
  ...SHORT_COLUMNS,
  ...CAMPAIGN_LONG_FIELDS.filter((name) => p[name]).map((name) => CAMPAIGN_FIELDS[name].column),
];

/** The given fields → their columns (fields left undefined are left out, so a patch changes only what it names). */
function toColumns(data: Partial<CampaignData>): Partial<CampaignColumns> {
  return Object.fromEntries(
    CAMPAIGN_FIELD_NAMES.flatMap((name) => {
      const value = data[name];
      if (value === undefined) return [];
      const { kind, column } = CAMPAIGN_FIELDS[name];
      return [[column, (FIELD_KINDS[kind].toColumn as (value: unknown) => unknown)(value)]];
    }),
  ) as Partial<CampaignColumns>;
}

/**
 * A stored row → the campaign: its key, every declared field converted as CAMPAIGN_FIELDS declares its kind, its
 * status and times. Compiled once from the declarations into one object literal of a fixed shape (as
 * src/db/database.ts does for rows): a list page maps every field of 50 rows, and building each object entry by entry
 * cost about 7 % of a GraphQL list request.
 */
const toCampaign = ((): ((row: Row) => Campaign) => {
  // Names and columns come from the declarations only, and are quoted; a name that is no plain identifier starting
  // with a letter (so never `__proto__`, which a literal would not make a property) is refused here, at start-up.
  for (const name of CAMPAIGN_FIELD_NAMES)
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) throw new Error(`Bad campaign field name ${name}`);
  const convert = CAMPAIGN_FIELD_NAMES.map((name) => FIELD_KINDS[CAMPAIGN_FIELDS[name].kind].fromColumn);
  // A long text a list did not read stays undefined (nothing asks it of that campaign).
  const fields = CAMPAIGN_FIELD_NAMES.map((name, index) => {
    const column = `row[${JSON.stringify(CAMPAIGN_FIELDS[name].column)}]`;
    const value = `convert[${index}](${column})`;
    return `${JSON.stringify(name)}: ${LONG_FIELDS.has(name) ? `${column} === undefined ? undefined : ${value}` : value}`;
  });
  const compiled = new Function(
    'convert',
    'row',
    `return { campId: row.camp_id, ${fields.join(', ')}, status: row.status, createdAt: row.created_at, ` +
      'updatedAt: row.updated_at };',
  ) as (converters: typeof convert, row: Row) => Campaign;
  return (row) => compiled(convert, row);
})();

const completedConflict = () => conflict('Campaign is completed and can no longer be changed');

const campaignById = reusableQuery((db, p: { accountId: string; campId: string }) =>
  db.selectFrom('campaigns').selectAll().where('account_id', '=', p.accountId).where('camp_id', '=', p.campId),
);

export async function getCampaign(db: Kysely<Database>, accountId: string, campId: string): Promise<Campaign | null> {
  const [row] = await campaignById(db, { accountId, campId });
  return row ? toCampaign(row) : null;
}

export async function requireCampaign(db: Kysely<Database>, accountId: string, campId: string): Promise<Campaign> {
  const campaign = await getCampaign(db, accountId, campId);
  if (!campaign) throw notFound('Campaign not found');
  return campaign;
}

export async function getCampaignsByIds(
  db: Kysely<Database>,
  accountId: string,
  campIds: readonly string[],
): Promise<Campaign[]> {
  if (campIds.length === 0) return [];
  const rows = await db
    .selectFrom('campaigns')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('camp_id', 'in', campIds)
    .execute();
  return rows.map(toCampaign);
}

export async function createCampaign(
  db: Kysely<Database>,
  accountId: string,
  input: CampaignDataInput & { campId?: string | undefined; status?: 'active' | 'paused' | null | undefined },
): Promise<Campaign> {
  const { campId = newId('camp'), status, ...data } = input;
  const now = new Date().toISOString();
  try {
    const row = await db
      .insertInto('campaigns')
      .values({
        account_id: accountId,
        camp_id: campId,
        ...(toColumns(withDefaults(data)) as Required<ReturnType<typeof toColumns>>),
        // Active unless created paused (an agent sets a campaign up before it calls: docs/mcp.md).
        status: status ?? 'active',
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toCampaign(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A campaign with campId "${campId}" already exists`);
    throw error;
  }
}

/** Whether `db` runs on PostgreSQL. */
const onPostgres = (db: Kysely<Database>): boolean => dialectOf(db) === 'postgres';

/**
 * Locks the campaign's row until the transaction ends and returns its status and updatedAt (undefined when there is
 * no such campaign). Every change of a campaign row goes through here first, so changes of one campaign commit one at
 * a time, in the order they took the lock, and `nextUpdatedAt` sees the updatedAt the previous change committed.
 * PostgreSQL: SELECT … FOR NO KEY UPDATE, the lock the UPDATE itself takes (FOR UPDATE would also hold up inserts of
 * rows that reference the campaign, whose foreign-key checks take KEY SHARE). SQLite has no such clause and needs
 * none: its transactions run one at a time.
 */
async function lockCampaign(trx: Transaction<Database>, postgres: boolean, accountId: string, campId: string) {
  const query = trx
    .selectFrom('campaigns')
    .select(['status', 'updated_at'])
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId);
  const row = await (postgres ? query.forNoKeyUpdate() : query).executeTakeFirst();
  return row && { status: row.status as CampaignStatus, updatedAt: row.updated_at };
}

/**
 * The updatedAt of a change to a row locked by `lockCampaign`: now, but always at least 1 ms after the row's previous
 * updatedAt. Taken after the lock (not before the transaction, where two changes could take their times in one order
 * and commit in the other), it increases in commit order, even when instances' clocks disagree, so a consumer of
 * the events that keeps the greatest updatedAt (last write wins) keeps the last committed state. The same value goes
 * into the row and into the event's payload.
 */
function nextUpdatedAt(previous: string): string {
  const floor = Date.parse(previous) + 1;
  return new Date(Math.max(Date.now(), Number.isNaN(floor) ? 0 : floor)).toISOString();
}

/**
 * Creates the campaign, or replaces every model field of an existing one (omitted optional fields return to
 * their defaults). Concurrent upserts of a new campId cannot both insert: the loser's INSERT … ON CONFLICT DO NOTHING
 * waits for the winner's commit, inserts nothing, and it then updates the campaign like any existing one.
 */
export async function upsertCampaign(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  input: CampaignDataInput,
  /** The status it is created in (active by default); an existing campaign keeps its own. */
  options: { status?: 'active' | 'paused' | null | undefined } = {},
): Promise<Campaign> {
  const columns = toColumns(withDefaults(input)) as Required<ReturnType<typeof toColumns>>;
  const postgres = onPostgres(db);
  return withEvents(db, accountId, async (trx, raise) => {
    let row: Row | undefined;
    while (!row) {
      const current = await lockCampaign(trx, postgres, accountId, campId);
      if (current) {
        if (current.status === 'completed') throw completedConflict();
        row = await trx
          .updateTable('campaigns')
          .set({ ...columns, updated_at: nextUpdatedAt(current.updatedAt) })
          .where('account_id', '=', accountId)
          .where('camp_id', '=', campId)
          .returningAll()
          .executeTakeFirstOrThrow();
      } else {
        const now = new Date().toISOString();
        row = await trx
          .insertInto('campaigns')
          .values({
            account_id: accountId,
            camp_id: campId,
            ...columns,
            status: options.status ?? 'active',
            created_at: now,
            updated_at: now,
          })
          .onConflict((oc) => oc.columns(['account_id', 'camp_id']).doNothing())
          .returningAll()
          .executeTakeFirst();
      }
    }
    const campaign = toCampaign(row);
    await raise(campId, 'campaign.updated', campaign);
    return campaign;
  });
}

export async function updateCampaign(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  patch: CampaignPatch,
): Promise<Campaign> {
  const postgres = onPostgres(db);
  return withEvents(db, accountId, async (trx, raise) => {
    const current = await lockCampaign(trx, postgres, accountId, campId);
    if (!current) throw notFound('Campaign not found');
    if (current.status === 'completed') throw completedConflict();
    const row = await trx
      .updateTable('campaigns')
      .set({ ...toColumns(patch), updated_at: nextUpdatedAt(current.updatedAt) })
      .where('account_id', '=', accountId)
      .where('camp_id', '=', campId)
      .returningAll()
      .executeTakeFirstOrThrow();
    const campaign = toCampaign(row);
    await raise(campId, 'campaign.updated', campaign);
    return campaign;
  });
}

export async function deleteCampaign(db: Kysely<Database>, accountId: string, campId: string): Promise<Campaign> {
  const row = await db
    .deleteFrom('campaigns')
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('Campaign not found');
  return toCampaign(row);
}

export type CampaignAction = 'pause' | 'resume' | 'complete';

/** The campaign row locked by `lockCampaign`, as it is. */
async function unchangedCampaign(trx: Transaction<Database>, accountId: string, campId: string): Promise<Campaign> {
  const row = await trx
    .selectFrom('campaigns')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('camp_id', '=', campId)
    .executeTakeFirstOrThrow();
  return toCampaign(row);
}

const TRANSITIONS: Record<CampaignAction, { from: CampaignStatus[]; to: CampaignStatus }> = {
  pause: { from: ['active'], to: 'paused' },
  resume: { from: ['paused'], to: 'active' },
  complete: { from: ['active', 'paused'], to: 'completed' },
};

/**
 * Moves a campaign along active ⇄ paused → completed; anything else is a CONFLICT naming the current status. A
 * campaign already in the status the action leads to is answered as it is (a retry changes nothing: no new updatedAt,
 * no event). Raises `campaign.status_changed` with the campaign and its `previousStatus`.
 */
export async function transitionCampaign(
  db: Kysely<Database>,
  accountId: string,
  campId: string,
  action: CampaignAction,
): Promise<Campaign> {
  const { from, to } = TRANSITIONS[action];
  const postgres = onPostgres(db);
  return withEvents(db, accountId, async (trx, raise) => {
    const current = await lockCampaign(trx, postgres, accountId, campId);
    if (!current) throw notFound('Campaign not found');
    if (current.status === to) return unchangedCampaign(trx, accountId, campId);
    if (!from.includes(current.status)) throw conflict(`Cannot ${action} a campaign that is ${current.status}`);
    const row = await trx
      .updateTable('campaigns')
      .set({ status: to, updated_at: nextUpdatedAt(current.updatedAt) })
      .where('account_id', '=', accountId)
      .where('camp_id', '=', campId)
      .returningAll()
      .executeTakeFirstOrThrow();
    const campaign = toCampaign(row);
    await raise(campId, 'campaign.status_changed', { ...campaign, previousStatus: current.status });
    return campaign;
  });
}

export interface CampaignFilter {
  status?: CampaignStatus | null | undefined;
  search?: string | null | undefined;
  /** The dashboard filters (docs/dashboards.md "Filters"): any of them makes the list a filtered walk. */
  more?: CampaignFilters | null | undefined;
}

/** A span of time, ISO 8601 UTC, both ends inclusive; either may be absent. */
export interface TimeSpan {
  from?: string | null | undefined;
  to?: string | null | undefined;
}

/** The filters of a campaign list beyond `status` and `search`; every given one must hold. */
export interface CampaignFilters {
  statuses?: readonly CampaignStatus[] | null | undefined;
  language?: string | null | undefined;
  voice?: string | null | undefined;
  created?: TimeSpan | null | undefined;
  updated?: TimeSpan | null | undefined;
}

/** Which long texts a list reads, as query parameters (booleans: they choose the SQL). */
type TextParameters = Record<CampaignLongField, boolean>;

const textParameters = (texts: CampaignTexts): TextParameters =>
  Object.fromEntries(CAMPAIGN_LONG_FIELDS.map((name) => [name, texts.has(name)])) as TextParameters;

/** A search as its LIKE pattern: lowercase, the pattern's own characters escaped. */
const likePattern = (search: string) => `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A campaign filter as query parameters: the search as its LIKE pattern (src/db/reusable-query.ts). */
interface FilterParameters {
  accountId: string;
  status: string | null;
  pattern: string | null;
}

function filterParameters(accountId: string, filter: CampaignFilter): FilterParameters {
  const pattern = filter.search ? likePattern(filter.search) : null;
  return { accountId, status: filter.status ?? null, pattern };
}

/** The account's campaigns matching the filter, nothing selected yet (columns named with their table). */
function filteredRows(db: Kysely<Database>, p: FilterParameters) {
  let query = db.selectFrom('campaigns').where('campaigns.account_id', '=', p.accountId);
  if (p.status !== null) query = query.where('campaigns.status', '=', p.status);
  if (p.pattern !== null) {
    const pattern = p.pattern;
    query = query.where(searched(pattern));
  }
  return query;
}

/** The campaigns whose title, description or campId holds the LIKE pattern. */
const searched = (pattern: string) =>
  sql<SqlBool>`(lower(campaigns.title) like ${pattern} escape '\\' or lower(campaigns.description) like ${pattern} escape '\\' or lower(campaigns.camp_id) like ${pattern} escape '\\')`;

type OffsetParameters = FilterParameters & { limit: number; offset: number };

const campaignList = reusableQuery((db, p: OffsetParameters & TextParameters) =>
  filteredRows(db, p)
    .select(listColumns(p))
    .orderBy('created_at', 'desc')
    .orderBy('camp_id', 'desc')
    .limit(p.limit)
    .offset(p.offset),
);

/** Newest first, offset paging; reads only the long texts in `texts` (the others are left undefined). */
export async function listCampaigns(
  db: Kysely<Database>,
  accountId: string,
  filter: CampaignFilter & { limit: number; offset: number },
  texts: CampaignTexts = ALL_CAMPAIGN_TEXTS,
): Promise<Campaign[]> {
  const { limit, offset } = filter;
  const rows = await campaignList(db, {
    ...filterParameters(accountId, filter),
    limit,
    offset,
    ...textParameters(texts),
  });
  return rows.map((row) => toCampaign(row as Row));
}

/** A campaign as a list entry shows it (the legacy `get_campaigns`): five columns, not the 25 of a campaign. */
export type CampaignSummary = Pick<Campaign, 'campId' | 'title' | 'status' | 'description' | 'createdAt'>;

const campaignSummaryList = reusableQuery((db, p: OffsetParameters) =>
  filteredRows(db, p)
    .select(['camp_id', 'title', 'status', 'description', 'created_at'])
    .orderBy('created_at', 'desc')
    .orderBy('camp_id', 'desc')
    .limit(p.limit)
    .offset(p.offset),
);

/** listCampaigns, reading only what a CampaignSummary holds. */
export async function listCampaignSummaries(
  db: Kysely<Database>,
  accountId: string,
  filter: CampaignFilter & { limit: number; offset: number },
): Promise<CampaignSummary[]> {
  const { limit, offset } = filter;
  const rows = await campaignSummaryList(db, { ...filterParameters(accountId, filter), limit, offset });
  return rows.map((row) => ({
    campId: row.camp_id,
    title: row.title,
    status: row.status as CampaignStatus,
    description: row.description,
    createdAt: row.created_at,
  }));
}

/** What a campaign list can be sorted by; `created` (newest first) is the default. */
export const CAMPAIGN_ORDERS = ['created', 'updated', 'title', 'status', 'calls', 'spend'] as const;
export type CampaignOrderField = (typeof CAMPAIGN_ORDERS)[number];

export interface CampaignOrder {
  field: CampaignOrderField;
  ascending: boolean;
}

export const DEFAULT_CAMPAIGN_ORDER: CampaignOrder = { field: 'created', ascending: false };

/**
 * Each order's keyset (sort, id), each walked by an index (migrations/0003_campaigns.ts, 0021_list_orders.ts): calls
 * and spend are the totals the database keeps per campaign (0020_call_stats.ts), walked by their own indexes and
 * joined to the campaign.
 */
const ORDER_KEYSETS: Record<CampaignOrderField, { keys: readonly [string, string]; totals: boolean }> = {
  created: { keys: ['campaigns.created_at', 'campaigns.camp_id'], totals: false },
  updated: { keys: ['campaigns.updated_at', 'campaigns.camp_id'], totals: false },
  title: { keys: ['campaigns.title', 'campaigns.camp_id'], totals: false },
  status: { keys: ['campaigns.status', 'campaigns.camp_id'], totals: false },
  calls: { keys: ['campaign_call_totals.calls', 'campaign_call_totals.camp_id'], totals: true },
  spend: { keys: ['campaign_call_totals.spent_micros', 'campaign_call_totals.camp_id'], totals: true },
};

type PageParameters = FilterParameters & KeysetParameters & TextParameters & { ascending: boolean };

const campaignPages = Object.fromEntries(
  CAMPAIGN_ORDERS.map((field) => {
    const { keys, totals } = ORDER_KEYSETS[field];
    const query = reusableQuery((db, p: PageParameters) => {
      const columns = listColumns(p).map((column) => `campaigns.${String(column)}` as 'campaigns.camp_id');
      const base = totals
        ? filteredRows(db, p)
            .innerJoin('campaign_call_totals', (join) =>
              join
                .onRef('campaign_call_totals.account_id', '=', 'campaigns.account_id')
                .onRef('campaign_call_totals.camp_id', '=', 'campaigns.camp_id'),
            )
            .where('campaign_call_totals.account_id', '=', p.accountId)
            .select([...columns, sql<number | string>`${sql.ref(keys[0])}`.as('sort_value')])
        : filteredRows(db, p).select(columns);
      return keysetPage(base, keys, keysetOf(p), p.ascending ? 'oldest first' : 'newest first');
    });
    return [field, query];
  }),
) as Record<
  CampaignOrderField,
  ReturnType<typeof reusableQuery<PageParameters, Row & { sort_value?: number | string }>>
>;

/**
 * A keyset page for Relay connections, in `order` (newest first by createdAt by default), tie-broken by campId; reads
 * only the long texts in `texts` (the others are left undefined). Each campaign comes with its sort value when the
 * order is by a total (calls, spend in millionths), which the campaign itself does not hold.
 */
export async function pageCampaigns(
  db: Kysely<Database>,
  accountId: string,
  filter: CampaignFilter,
  page: KeysetPage,
  texts: CampaignTexts = ALL_CAMPAIGN_TEXTS,
  order: CampaignOrder = DEFAULT_CAMPAIGN_ORDER,
): Promise<Array<{ campaign: Campaign; total: number | null }>> {
  const rows = await campaignPages[order.field](db, {
    ...filterParameters(accountId, filter),
    ...keysetParameters(page),
    ...textParameters(texts),
    ascending: order.ascending,
  });
  return rows.map((row) => ({
    campaign: toCampaign(row as Row),
    // pg answers bigint as a string.
    total: row.sort_value === undefined ? null : Number(row.sort_value),
  }));
}

/** Rows one filtered page of campaigns reads at most (docs/dashboards.md "Filters"), as call logs. */
export const CAMPAIGN_WALK_BUDGET = 4000;

type Select = SelectQueryBuilder<Database, keyof Database, object>;

/** The conditions a time span makes of a column. */
function spanned(column: string, span: TimeSpan | null | undefined): Array<RawBuilder<SqlBool>> {
  const conditions: Array<RawBuilder<SqlBool>> = [];
  if (span?.from) conditions.push(sql<SqlBool>`${sql.ref(column)} >= ${span.from}`);
  if (span?.to) conditions.push(sql<SqlBool>`${sql.ref(column)} <= ${span.to}`);
  return conditions;
}

/**
 * The walk of a filtered page of campaigns in `order`: several statuses walk the status indexes one status each
 * (created and status orders), a language or a voice its own index (created order), a created or updated span the
 * order's index as a range; the rest, and the search, are checked on the campaigns walked. Null when none can match.
 */
function campaignWalk(
  db: Kysely<Database>,
  accountId: string,
  filter: CampaignFilter,
  order: CampaignOrder,
): Walk | null {
  const more = filter.more ?? {};
  const statuses = bothAllow(filter.status ? [filter.status] : null, more.statuses);
  if (statuses?.length === 0) return null;
  const field = order.field;
  const { keys, totals } = ORDER_KEYSETS[field];
  const residual: Array<RawBuilder<SqlBool>> = [];
  let prefix: readonly [string, readonly string[]] | null = null;
  if (statuses) {
    if (field === 'created' || field === 'status') prefix = ['campaigns.status', statuses];
    else residual.push(sql<SqlBool>`campaigns.status in (${sql.join(statuses)})`);
  }
  for (const column of ['language', 'voice'] as const) {
    const value = more[column];
    if (value == null) continue;
    if (field === 'created' && prefix === null) prefix = [`campaigns.${column}`, [value]];
    else residual.push(sql<SqlBool>`${sql.ref(`campaigns.${column}`)} = ${value}`);
  }
  let base = db.selectFrom('campaigns').where('campaigns.account_id', '=', accountId) as unknown as Select;
  if (totals) {
    base = (base as unknown as ReturnType<typeof filteredRows>)
      .innerJoin('campaign_call_totals', (join) =>
        join
          .onRef('campaign_call_totals.account_id', '=', 'campaigns.account_id')
          .onRef('campaign_call_totals.camp_id', '=', 'campaigns.camp_id'),
      )
      .where('campaign_call_totals.account_id', '=', accountId) as unknown as Select;
  }
  for (const [own, column, span] of [
    ['created', 'campaigns.created_at', more.created],
    ['updated', 'campaigns.updated_at', more.updated],
  ] as const) {
    const conditions = spanned(column, span);
    if (field === own) for (const condition of conditions) base = base.where(condition);
    else residual.push(...conditions);
  }
  if (filter.search) residual.push(searched(likePattern(filter.search)));
  const arms = prefix ? prefix[1].map((value) => base.where(sql<SqlBool>`${sql.ref(prefix[0])} = ${value}`)) : [base];
  return {
    arms,
    keys,
    ascending: order.ascending,
    numeric: totals,
    residual: allOf(residual),
    budget: CAMPAIGN_WALK_BUDGET,
  };
}

/**
 * A page of a list with dashboard filters (`filter.more`): a walk of the order's index (src/db/filtered-walk.ts), then
 * the campaigns it found, each with the key it was found at (its cursor: a total, for the calls and spend orders). A
 * page the walk's budget cut short says where it stopped (`resume`).
 */
export async function walkCampaigns(
  db: Kysely<Database>,
  accountId: string,
  filter: CampaignFilter,
  page: KeysetPage,
  texts: CampaignTexts = ALL_CAMPAIGN_TEXTS,
  order: CampaignOrder = DEFAULT_CAMPAIGN_ORDER,
): Promise<{ nodes: Array<{ node: Campaign; key: Keyset }>; resume: Keyset | null }> {
  const walk = campaignWalk(db, accountId, filter, order);
  if (!walk) return { nodes: [], resume: null };
  const walked = await walkPage(db, walk, page);
  if (walked.keys.length === 0) return { nodes: [], resume: walked.resume };
  const found = await db
    .selectFrom('campaigns')
    .select(listColumns(textParameters(texts)))
    .where('account_id', '=', accountId)
    .where(
      'camp_id',
      'in',
      walked.keys.map(([, id]) => id),
    )
    .execute();
  const rows = new Map(found.map((row) => [row.camp_id, row as Row]));
  return keptNodes(walked, page.limit, ([, id]) => {
    const row = rows.get(id);
    return row ? toCampaign(row) : undefined;
  });
}
