// Filtered lists (docs/dashboards.md "Filters"): `callLogs(filter:)` and `campaigns(filter:)` answer exactly the rows
// an oracle in the test picks, in every order, paged forwards and backwards; a filter that matches little ends a page
// early with a cursor to go on from (the walk's budget), never losing or repeating a row; every filter's page query
// walks an index, on both databases.
import { describe, expect, it } from 'vitest';
import { type Migration, Migrator, sql } from 'kysely';
import { migrations } from '../../migrations/index.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { analysisResultsOf } from '../../src/db/analysis-results.js';
import { lastStatement, planOf } from '../helpers/query-plans.js';

interface Call {
  callId: string;
  campId: string;
  status: string;
  duration: number | null;
  cost: number | null;
  from: string;
  to: string;
  at: string;
  analysis: Record<string, unknown> | null;
}

const STATUSES = ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'];
const RANK: Record<string, number> = { queued: 0, ringing: 1, 'in-progress': 2 };

/** Rows straight into the table, many at a time: `count` calls spread over 3 campaigns, statuses, numbers. */
async function insertCalls(t: TestApp, accountId: string, calls: Call[]) {
  for (let at = 0; at < calls.length; at += 400) {
    await t.app.database.db
      .insertInto('call_logs')
      .values(
        calls.slice(at, at + 400).map((call) => ({
          account_id: accountId,
          call_id: call.callId,
          camp_id: call.campId,
          direction: 'outbound-api',
          from_number: call.from,
          to_number: call.to,
          status: call.status,
          status_rank: RANK[call.status] ?? 3,
          started_at: call.at,
          ended_at: null,
          duration_seconds: call.duration,
          cost: call.cost,
          recording_url: null,
          transcript: null,
          summary: null,
          analysis: call.analysis === null ? null : JSON.stringify(call.analysis),
          // As recordCallOutcome writes them.
          analysis_results: analysisResultsOf(call.analysis),
          created_at: call.at,
          updated_at: call.at,
        })),
      )
      .execute();
  }
}

/** A deterministic spread of calls: `count` of them, one a minute (some minutes shared: ties on startedAt). */
function makeCalls(count: number, start = Date.parse('2026-05-01T00:00:00Z')): Call[] {
  return Array.from({ length: count }, (_, i) => ({
    callId: `CA${String(i).padStart(5, '0')}`,
    campId: `camp-${i % 3}`,
    status: STATUSES[(i * 7) % STATUSES.length]!,
    duration: i % 5 === 0 ? null : (i * 13) % 200,
    cost: i % 4 === 0 ? null : ((i * 17) % 50) / 10,
    from: `+1415555${String(i % 4).padStart(4, '0')}`,
    to: `+1212555${String(i % 6).padStart(4, '0')}`,
    at: new Date(start + Math.floor(i / 2) * 60_000).toISOString(),
    analysis: i % 3 === 0 ? { interested: i % 2 === 0, score: i % 10, note: `n${i % 4}` } : null,
  }));
}

async function seed(count: number) {
  // The oracle test pages every filter in every order: thousands of requests of one account.
  const t = await startApp({ RATE_LIMIT_PER_MINUTE: '1000000' });
  const account = await t.account();
  for (const campId of ['camp-0', 'camp-1', 'camp-2']) {
    const res = await t.rest('POST', '/update_campaign', {
      token: account.token,
      body: { campId, campaignModelData: campaignModelData({ title: campId }) },
    });
    expect(res.status, res.text).toBe(200);
  }
  const calls = makeCalls(count);
  await insertCalls(t, account.id, calls);
  return { t, token: account.token, accountId: account.id, calls };
}

const OUTCOMES: Record<string, string[]> = {
  ANSWERED: ['in-progress', 'completed'],
  COMPLETED: ['completed'],
  FAILED: ['failed'],
  NO_ANSWER: ['no-answer'],
  BUSY: ['busy'],
  CANCELED: ['canceled'],
  ONGOING: ['queued', 'ringing', 'in-progress'],
};

interface Filter {
  campIds?: string[];
  statuses?: string[];
  outcomes?: string[];
  duration?: { min?: number; max?: number };
  cost?: { min?: number; max?: number };
  fromNumber?: string;
  toNumber?: string;
  analysis?: { field: string; equals: string };
}

const within = (value: number | null, range?: { min?: number; max?: number }) =>
  !range || (value !== null && value >= (range.min ?? 0) && (range.max === undefined || value <= range.max));

/** The oracle: what the filter lets through. */
function matches(call: Call, filter: Filter, since?: string, until?: string): boolean {
  if (filter.campIds && !filter.campIds.includes(call.campId)) return false;
  if (filter.statuses && !filter.statuses.map((s) => s.toLowerCase().replace('_', '-')).includes(call.status))
    return false;
  if (filter.outcomes && !filter.outcomes.some((o) => OUTCOMES[o]!.includes(call.status))) return false;
  if (!within(call.duration, filter.duration) || !within(call.cost, filter.cost)) return false;
  if (filter.fromNumber && call.from !== filter.fromNumber) return false;
  if (filter.toNumber && call.to !== filter.toNumber) return false;
  if (filter.analysis) {
    // The string itself, or the number or boolean it spells.
    const value = call.analysis?.[filter.analysis.field];
    const { equals } = filter.analysis;
    const spelled = /^(true|false|-?\d+(\.\d+)?)$/.test(equals) ? JSON.parse(equals) : undefined;
    if (value !== equals && (spelled === undefined || value !== spelled)) return false;
  }
  if (since && call.at < since) return false;
  if (until && call.at > until) return false;
  return true;
}

const SORT_VALUE: Record<string, (call: Call) => string | number> = {
  STARTED_AT: (c) => c.at,
  DURATION: (c) => c.duration ?? -1,
  COST: (c) => c.cost ?? -1,
  STATUS: (c) => c.status,
};

function sorted(calls: Call[], field: string, ascending: boolean): string[] {
  const key = SORT_VALUE[field]!;
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  const list = [...calls].sort((a, b) => compare(key(a), key(b)) || compare(a.callId, b.callId));
  return (ascending ? list : list.reverse()).map((c) => c.callId);
}

const CALL_LOGS = /* GraphQL */ `
  query (
    $filter: CallLogFilter
    $orderBy: CallLogOrder
    $since: DateTime
    $until: DateTime
    $first: Int
    $after: String
    $last: Int
    $before: String
  ) {
    callLogs(
      filter: $filter
      orderBy: $orderBy
      since: $since
      until: $until
      first: $first
      after: $after
      last: $last
      before: $before
    ) {
      edges {
        node {
          key: callId
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`;

/** Every id of a list, page by page, forwards or backwards, and how many pages it took and how many were short. */
async function pages(
  t: TestApp,
  token: string,
  document: string,
  variables: Record<string, unknown>,
  size: number,
  backwards = false,
  path = ['callLogs'],
) {
  const keys: string[] = [];
  let cursor: string | null = null;
  let short = 0;
  for (let page = 0; page < 400; page++) {
    const step = backwards ? { last: size, before: cursor } : { first: size, after: cursor };
    const reply: { body: { data?: any; errors?: any[] }; text: string } = await t.gql(
      document,
      { ...variables, ...step },
      token,
    );
    expect(reply.body.errors, reply.text).toBeUndefined();
    const connection: any = path.reduce((value: any, key) => value[key], reply.body.data);
    const shown: string[] = connection.edges.map((edge: any) => edge.node.key);
    if (backwards) keys.unshift(...shown);
    else keys.push(...shown);
    const { hasNextPage, hasPreviousPage, startCursor, endCursor } = connection.pageInfo;
    if (!(backwards ? hasPreviousPage : hasNextPage)) return { keys, pages: page + 1, short };
    if (shown.length < size) short++;
    const next = backwards ? startCursor : endCursor;
    expect(next, 'a page that goes on has a cursor to go on from').not.toBeNull();
    cursor = next;
  }
  throw new Error('more than 400 pages');
}

const FILTERS: Array<[string, Filter, { since?: string; until?: string }?]> = [
  ['several campaigns', { campIds: ['camp-0', 'camp-2'] }],
  ['several statuses', { statuses: ['COMPLETED', 'NO_ANSWER', 'BUSY'] }],
  ['outcomes', { outcomes: ['ANSWERED', 'FAILED'] }],
  ['campaigns and statuses', { campIds: ['camp-1', 'camp-2'], statuses: ['COMPLETED', 'FAILED'] }],
  ['a duration range', { duration: { min: 30, max: 120 } }],
  ['a duration ceiling (unreported ones are out)', { duration: { max: 40 } }],
  ['a cost range', { cost: { min: 1, max: 2.5 } }],
  ['a cost floor of 0 (unreported ones are out)', { cost: { min: 0 } }],
  ['the number called', { toNumber: '+12125550003' }],
  ['the calling number and a campaign', { fromNumber: '+14155550001', campIds: ['camp-1'] }],
  ['an analysis field', { analysis: { field: 'interested', equals: 'true' } }],
  ['an analysis number, spelled with a zero', { analysis: { field: 'score', equals: '6.0' } }],
  ['an analysis string', { analysis: { field: 'note', equals: 'n2' } }],
  [
    'every filter at once',
    {
      campIds: ['camp-0', 'camp-1'],
      outcomes: ['COMPLETED', 'BUSY', 'NO_ANSWER'],
      duration: { min: 1 },
      cost: { max: 4 },
    },
    { since: '2026-05-01T00:10:00.000Z', until: '2026-05-01T01:30:00.000Z' },
  ],
  ['a time range with several statuses', { statuses: ['QUEUED', 'CANCELED'] }, { since: '2026-05-01T00:20:00.000Z' }],
];

describe('filtered call logs', () => {
  it('answer exactly the calls each filter lets through, in every order, forwards and backwards', async () => {
    const { t, token, calls } = await seed(240);
    try {
      for (const [name, filter, range] of FILTERS) {
        const expectedSet = calls.filter((call) => matches(call, filter, range?.since, range?.until));
        expect(expectedSet.length, `${name}: the oracle picks some but not all`).toBeGreaterThan(0);
        expect(expectedSet.length, name).toBeLessThan(calls.length);
        for (const field of ['STARTED_AT', 'DURATION', 'COST', 'STATUS']) {
          for (const direction of ['ASC', 'DESC']) {
            const expected = sorted(expectedSet, field, direction === 'ASC');
            const variables = { filter, orderBy: { field, direction }, ...range };
            const forwards = await pages(t, token, CALL_LOGS, variables, 7);
            expect(forwards.keys, `${name}, ${field} ${direction}, forwards`).toEqual(expected);
            const backwards = await pages(t, token, CALL_LOGS, variables, 7, true);
            expect(backwards.keys, `${name}, ${field} ${direction}, backwards`).toEqual(expected);
          }
        }
      }
    } finally {
      await t.close();
    }
  }, 120_000);

  it("a campaign's list takes the filter too, within that campaign", async () => {
    const { t, token, calls } = await seed(90);
    try {
      const document = /* GraphQL */ `
        query ($filter: CallLogFilter, $first: Int, $after: String, $last: Int, $before: String) {
          campaign(campId: "camp-1") {
            callLogs(filter: $filter, first: $first, after: $after, last: $last, before: $before) {
              edges {
                node {
                  key: callId
                }
              }
              pageInfo {
                hasNextPage
                hasPreviousPage
                startCursor
                endCursor
              }
            }
          }
        }
      `;
      const filter = { statuses: ['COMPLETED', 'BUSY', 'FAILED'], campIds: ['camp-1', 'camp-2'] };
      const expected = sorted(
        calls.filter((c) => c.campId === 'camp-1' && matches(c, filter)),
        'STARTED_AT',
        false,
      );
      expect(expected.length).toBeGreaterThan(3);
      const { keys } = await pages(t, token, document, { filter }, 4, false, ['campaign', 'callLogs']);
      expect(keys).toEqual(expected);
    } finally {
      await t.close();
    }
  });

  it('a filter that matches little ends pages early at the budget, with a cursor that loses and repeats nothing', async () => {
    // 9 000 calls; the one number called 3 times, once among the newest and twice among the oldest: sorted by
    // duration the number is no index's prefix, so a page reads at most 4 000 calls and ends where it stopped.
    const { t, token, accountId, calls } = await seed(9000);
    try {
      const rare = makeCalls(3, Date.parse('2026-04-01T00:00:00Z')).map((call, i) => ({
        ...call,
        callId: `RARE${i}`,
        to: '+19995550000',
        duration: [7, 150, 151][i]!,
      }));
      await insertCalls(t, accountId, rare);
      const filter = { toNumber: '+19995550000' };
      for (const direction of ['ASC', 'DESC']) {
        const variables = { filter, orderBy: { field: 'DURATION', direction } };
        const expected = sorted(rare, 'DURATION', direction === 'ASC');
        const forwards = await pages(t, token, CALL_LOGS, variables, 10);
        expect(forwards.keys).toEqual(expected);
        expect(forwards.short, 'some pages ended early, at the budget').toBeGreaterThan(0);
        expect(forwards.pages).toBeLessThanOrEqual(Math.ceil((calls.length + 3) / 4000) + 1);
        const backwards = await pages(t, token, CALL_LOGS, variables, 10, true);
        expect(backwards.keys).toEqual(expected);
      }
      // In the default order the number is the index's prefix: one page, all three.
      const one = await pages(t, token, CALL_LOGS, { filter }, 10);
      expect(one).toEqual({ keys: sorted(rare, 'STARTED_AT', false), pages: 1, short: 0 });
    } finally {
      await t.close();
    }
  }, 120_000);
});

describe('filtered lists walk an index', () => {
  const cases: Array<[string, Filter, string, RegExp]> = [
    ['several campaigns', { campIds: ['camp-0', 'camp-2'] }, 'STARTED_AT', /call_logs_campaign_started/],
    ['several statuses', { statuses: ['COMPLETED', 'BUSY'] }, 'STARTED_AT', /call_logs_account_status_started/],
    [
      'campaigns and statuses',
      { campIds: ['camp-1'], statuses: ['FAILED', 'BUSY'] },
      'STARTED_AT',
      /call_logs_campaign_status_started/,
    ],
    ['the number called', { toNumber: '+12125550003' }, 'STARTED_AT', /call_logs_account_to_started/],
    ['the calling number', { fromNumber: '+14155550001' }, 'STARTED_AT', /call_logs_account_from_started/],
    ['a duration range', { duration: { min: 30, max: 120 } }, 'DURATION', /call_logs_account_duration/],
    ['a cost range', { cost: { min: 1 } }, 'COST', /call_logs_account_cost/],
    ['statuses in status order', { statuses: ['COMPLETED', 'BUSY'] }, 'STATUS', /call_logs_account_status_id/],
    ['campaigns by cost', { campIds: ['camp-0', 'camp-1'], cost: { max: 3 } }, 'COST', /call_logs_campaign_cost/],
    [
      'an analysis field',
      { analysis: { field: 'interested', equals: 'true' } },
      'STARTED_AT',
      /call_logs_account_started/,
    ],
    ['a cost range by duration', { cost: { min: 1 } }, 'DURATION', /call_logs_account_duration/],
  ];
  for (const [name, filter, field, index] of cases) {
    it(`${name} (${field})`, async () => {
      const { t, token } = await seed(30);
      try {
        t.resetQueries();
        const reply = await t.gql(CALL_LOGS, { filter, orderBy: { field }, first: 5 }, token);
        expect(reply.body.errors, reply.text).toBeUndefined();
        const plan = await planOf(t, lastStatement(t, 'call_logs'));
        // The arms of several values are subqueries read whole: each at most a page.
        expect(
          plan.scans.filter((scan) => !/^arm\d+$/.test(scan)),
          plan.text,
        ).toEqual([]);
        expect(plan.indexes.join(' '), plan.text).toMatch(index);
        // One arm walks its index in order; several are merged from arms of at most a page each.
        if (!/campaigns|several|statuses in/.test(name)) expect(plan.sorts, plan.text).toBe(false);
      } finally {
        await t.close();
      }
    });
  }
});

interface SeededCampaign {
  campId: string;
  title: string;
  description: string;
  status: string;
  language: string;
  voice: string;
  created: string;
  updated: string;
}

async function seedCampaigns(count: number) {
  const t = await startApp({ RATE_LIMIT_PER_MINUTE: '1000000' });
  const account = await t.account();
  const campaigns: SeededCampaign[] = [];
  for (let i = 0; i < count; i++) {
    const campaign: SeededCampaign = {
      campId: `c-${String(i).padStart(3, '0')}`,
      title: ['spring', 'summer', 'autumn', 'winter', 'spring sale'][i % 5]!,
      description: i % 7 === 0 ? 'Renewals 50% off' : 'Outreach',
      status: ['active', 'paused', 'completed'][(i * 5) % 3]!,
      language: ['en-US', 'de-DE', 'fr-FR'][i % 3]!,
      voice: ['en-US-aria', 'de-DE-katja'][i % 2]!,
      // Ties on the minute (two campaigns each): campIds break them.
      created: new Date(Date.parse('2026-03-01T00:00:00Z') + Math.floor(i / 2) * 3_600_000).toISOString(),
      updated: new Date(Date.parse('2026-06-01T00:00:00Z') - (i % 11) * 86_400_000).toISOString(),
    };
    const res = await t.rest('POST', '/update_campaign', {
      token: account.token,
      body: { campId: campaign.campId, campaignModelData: campaignModelData({ title: campaign.title }) },
    });
    expect(res.status, res.text).toBe(200);
    await t.app.database.db
      .updateTable('campaigns')
      .set({
        description: campaign.description,
        status: campaign.status,
        language: campaign.language,
        voice: campaign.voice,
        created_at: campaign.created,
        updated_at: campaign.updated,
      })
      .where('account_id', '=', account.id)
      .where('camp_id', '=', campaign.campId)
      .execute();
    campaigns.push(campaign);
  }
  return { t, token: account.token, campaigns };
}

interface CampaignFilter {
  statuses?: string[];
  language?: string;
  voice?: string;
  created?: { from?: string; to?: string };
  updated?: { from?: string; to?: string };
}

function campaignMatches(c: SeededCampaign, filter: CampaignFilter, status?: string, searched?: string): boolean {
  if (status && c.status !== status.toLowerCase()) return false;
  if (filter.statuses && !filter.statuses.map((s) => s.toLowerCase()).includes(c.status)) return false;
  if (filter.language && c.language !== filter.language) return false;
  if (filter.voice && c.voice !== filter.voice) return false;
  for (const [span, value] of [
    [filter.created, c.created],
    [filter.updated, c.updated],
  ] as const) {
    if (span?.from && value < span.from) return false;
    if (span?.to && value > span.to) return false;
  }
  const search = searched?.toLowerCase();
  if (search && ![c.title, c.description, c.campId].some((text) => text.toLowerCase().includes(search))) return false;
  return true;
}

const CAMPAIGN_SORT: Record<string, (c: SeededCampaign) => string | number> = {
  CREATED_AT: (c) => c.created,
  UPDATED_AT: (c) => c.updated,
  TITLE: (c) => c.title,
  STATUS: (c) => c.status,
  CALLS: () => 0,
  SPEND: () => 0,
};

const CAMPAIGNS = /* GraphQL */ `
  query (
    $filter: CampaignFilter
    $status: CampaignStatus
    $search: String
    $orderBy: CampaignOrder
    $first: Int
    $after: String
    $last: Int
    $before: String
  ) {
    campaigns(
      filter: $filter
      status: $status
      search: $search
      orderBy: $orderBy
      first: $first
      after: $after
      last: $last
      before: $before
    ) {
      edges {
        node {
          key: campId
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`;

/** A name, the filter, and the `status` and `search` arguments beside it. */
const CAMPAIGN_FILTERS: Array<[string, CampaignFilter, string?, string?]> = [
  ['several statuses', { statuses: ['ACTIVE', 'COMPLETED'] }],
  ['statuses and the status argument (both hold)', { statuses: ['ACTIVE', 'PAUSED'] }, 'PAUSED'],
  ['a language', { language: 'de-DE' }],
  ['a voice and a language', { voice: 'en-US-aria', language: 'fr-FR' }],
  ['a created span', { created: { from: '2026-03-01T04:00:00.000Z', to: '2026-03-01T12:00:00.000Z' } }],
  ['an updated span', { updated: { to: '2026-05-27T00:00:00.000Z' } }],
  ['a search (LIKE characters are plain)', {}, undefined, '50%'],
  ['a search in titles', { statuses: ['ACTIVE', 'PAUSED'] }, undefined, 'SPRING'],
];

describe('filtered campaigns', () => {
  it('answer exactly the campaigns each filter lets through, in every order, forwards and backwards', async () => {
    const { t, token, campaigns } = await seedCampaigns(36);
    try {
      for (const [name, filter, status, search] of CAMPAIGN_FILTERS) {
        const expectedSet = campaigns.filter((c) => campaignMatches(c, filter, status, search));
        expect(expectedSet.length, `${name}: the oracle picks some but not all`).toBeGreaterThan(0);
        expect(expectedSet.length, name).toBeLessThan(campaigns.length);
        for (const field of Object.keys(CAMPAIGN_SORT)) {
          for (const direction of ['ASC', 'DESC']) {
            const key = CAMPAIGN_SORT[field]!;
            const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
            const list = [...expectedSet].sort((a, b) => compare(key(a), key(b)) || compare(a.campId, b.campId));
            const expected = (direction === 'ASC' ? list : list.reverse()).map((c) => c.campId);
            const variables = { filter, status, search, orderBy: { field, direction } };
            const forwards = await pages(t, token, CAMPAIGNS, variables, 4, false, ['campaigns']);
            expect(forwards.keys, `${name}, ${field} ${direction}, forwards`).toEqual(expected);
            const backwards = await pages(t, token, CAMPAIGNS, variables, 4, true, ['campaigns']);
            expect(backwards.keys, `${name}, ${field} ${direction}, backwards`).toEqual(expected);
          }
        }
      }
    } finally {
      await t.close();
    }
  }, 120_000);

  const cases: Array<[string, CampaignFilter & { search?: string }, string, RegExp]> = [
    ['several statuses', { statuses: ['ACTIVE', 'PAUSED'] }, 'CREATED_AT', /campaigns_account_status_created/],
    ['a language', { language: 'de-DE' }, 'CREATED_AT', /campaigns_account_language_created/],
    ['a voice', { voice: 'de-DE-katja' }, 'CREATED_AT', /campaigns_account_voice_created/],
    ['a created span', { created: { from: '2026-03-01T04:00:00.000Z' } }, 'CREATED_AT', /campaigns_account_created/],
    ['an updated span', { updated: { to: '2026-05-27T00:00:00.000Z' } }, 'UPDATED_AT', /campaigns_account_updated/],
    ['a search', { search: 'spring' }, 'TITLE', /campaigns_account_title/],
    ['statuses in status order', { statuses: ['ACTIVE', 'PAUSED'] }, 'STATUS', /campaigns_account_status_id/],
  ];
  for (const [name, filter, field, index] of cases) {
    it(`${name} walks an index (${field})`, async () => {
      // Enough campaigns, and their statistics, that PostgreSQL prices a walk of the filter's own index below a walk
      // of the order's index filtering (both read an index; on 6 rows it picks either).
      const { t, token } = await seedCampaigns(60);
      try {
        if (DIALECT === 'postgres') await sql`analyze campaigns`.execute(t.app.database.db);
        t.resetQueries();
        const { search, ...rest } = filter;
        const reply = await t.gql(CAMPAIGNS, { filter: rest, search, orderBy: { field }, first: 3 }, token);
        expect(reply.body.errors, reply.text).toBeUndefined();
        const plan = await planOf(t, lastStatement(t, 'campaigns'));
        expect(
          plan.scans.filter((scan) => !/^arm\d+$/.test(scan)),
          plan.text,
        ).toEqual([]);
        // PostgreSQL may price a walk of the order's own index, checking the equality on its way, at or below a walk
        // of the filter's index (60 campaigns, a third of them per status): both are index walks a page long.
        const expected =
          DIALECT === 'postgres' && field === 'CREATED_AT'
            ? new RegExp(`${index.source}|campaigns_account_created`)
            : index;
        expect(plan.indexes.join(' '), plan.text).toMatch(expected);
        if (!/several|statuses in/.test(name)) expect(plan.sorts, plan.text).toBe(false);
      } finally {
        await t.close();
      }
    });
  }
});

describe('the post-call analysis filter', () => {
  it('finds what recordCallOutcome wrote (any analysis size, a lone surrogate too) on both databases', async () => {
    const { t, token } = await seed(12);
    try {
      // Only the analyses recorded below.
      await t.app.database.db.updateTable('call_logs').set({ analysis: null, analysis_results: null }).execute();
      const record = async (callId: string, analysis: unknown) => {
        const reply = await t.gql(
          'mutation ($input: CallLogRecordOutcomeInput!) { callLogRecordOutcome(input: $input) { callLog { callId } } }',
          { input: { callId, analysis } },
          token,
        );
        expect(reply.body.errors, reply.text).toBeUndefined();
      };
      // A big analysis costs the filter its few short results; a lone surrogate is stored and searched as text.
      await record('CA00001', { interested: true, transcriptNotes: 'x'.repeat(500_000), mood: 'a\ud800b' });
      await record('CA00002', { interested: 'true', score: 7 });
      await record('CA00003', { interested: false, mood: 'a\ud800b' });
      const ids = async (filter: unknown) => {
        const reply = await t.gql(CALL_LOGS, { filter, first: 50 }, token);
        expect(reply.body.errors, reply.text).toBeUndefined();
        return reply.body.data.callLogs.edges.map((edge: { node: { key: string } }) => edge.node.key).sort();
      };
      expect(await ids({ analysis: { field: 'interested', equals: 'true' } })).toEqual(['CA00001', 'CA00002']);
      expect(await ids({ analysis: { field: 'mood', equals: 'a\ud800b' } })).toEqual(['CA00001', 'CA00003']);
      expect(await ids({ analysis: { field: 'score', equals: '7.0' } })).toEqual(['CA00002']);
      expect(await ids({ analysis: { field: 'transcriptNotes', equals: 'x' } })).toEqual([]);
      expect(await ids({ analysis: { field: 'x', equals: '\udc00' } })).toEqual([]);
      // Cleared: no longer found.
      await record('CA00002', null);
      expect(await ids({ analysis: { field: 'interested', equals: 'true' } })).toEqual(['CA00001']);
    } finally {
      await t.close();
    }
  });

  it('many campaigns share the budget rather than multiply it', async () => {
    // 50 campaigns of 30 calls, none matching: a page of 100 reads at most 1 000 of the 1 500 (not 50 × 101).
    const t = await startApp({ RATE_LIMIT_PER_MINUTE: '1000000' });
    try {
      const account = await t.account();
      const campIds = Array.from({ length: 50 }, (_, i) => `many-${i}`);
      for (const campId of campIds) {
        const res = await t.rest('POST', '/update_campaign', {
          token: account.token,
          body: { campId, campaignModelData: campaignModelData({ title: campId }) },
        });
        expect(res.status, res.text).toBe(200);
      }
      const calls = makeCalls(1500).map((call, i) => ({ ...call, campId: campIds[i % 50]!, analysis: { seen: 1 } }));
      await insertCalls(t, account.id, calls);
      const variables = { filter: { campIds, analysis: { field: 'seen', equals: '2' } } };
      const first = await t.gql(CALL_LOGS, { ...variables, first: 100 }, account.token);
      expect(first.body.errors, first.text).toBeUndefined();
      expect(first.body.data.callLogs.edges).toEqual([]);
      expect(first.body.data.callLogs.pageInfo.hasNextPage).toBe(true);
      const all = await pages(t, account.token, CALL_LOGS, variables, 100);
      expect(all.keys).toEqual([]);
      expect(all.pages).toBe(2);
    } finally {
      await t.close();
    }
  });

  it('finds the analyses recorded before the results existed (the migration writes them, batch after batch)', async () => {
    const { t, token, accountId } = await seed(0);
    try {
      const other = await t.account();
      await t.rest('POST', '/update_campaign', {
        token: other.token,
        body: { campId: 'camp-0', campaignModelData: campaignModelData({ title: 'theirs' }) },
      });
      const db = t.app.database.db;
      const schema = t.databaseUrl.startsWith('postgres')
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
        : undefined;
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async (): Promise<Record<string, Migration>> => migrations },
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      expect((await migrator.migrateTo('0021_list_orders')).error).toBeUndefined();
      // More calls than a batch, over two accounts; every third one not interested, one analysis not an object.
      const old = (account: string, count: number) =>
        makeCalls(count).map((call, i) => ({
          account_id: account,
          call_id: call.callId,
          camp_id: account === accountId ? call.campId : 'camp-0',
          direction: null,
          from_number: call.from,
          to_number: call.to,
          status: call.status,
          status_rank: 3,
          started_at: call.at,
          ended_at: null,
          duration_seconds: null,
          cost: null,
          recording_url: null,
          transcript: null,
          summary: null,
          analysis: JSON.stringify(i === 5 ? ['a list'] : { interested: i % 3 !== 1, big: 'x'.repeat(1000) }),
          created_at: call.at,
          updated_at: call.at,
        }));
      for (const [account, count] of [
        [accountId, 700],
        [other.id, 600],
      ] as const) {
        const rows = old(account, count);
        for (let at = 0; at < rows.length; at += 200) {
          await db
            .insertInto('call_logs')
            .values(rows.slice(at, at + 200))
            .execute();
        }
      }
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const interested = async (bearer: string) => {
        const found: string[] = [];
        const all = await pages(
          t,
          bearer,
          CALL_LOGS,
          { filter: { analysis: { field: 'interested', equals: 'true' } } },
          100,
        );
        found.push(...all.keys);
        return found.length;
      };
      const expected = (count: number) =>
        Array.from({ length: count }, (_, i) => i).filter((i) => i !== 5 && i % 3 !== 1).length;
      expect(await interested(token)).toBe(expected(700));
      expect(await interested(other.token)).toBe(expected(600));
      const { kept } = (await db
        .selectFrom('call_logs')
        .select((eb) => eb.fn.countAll<number>().as('kept'))
        .where('analysis_results', 'is not', null)
        .executeTakeFirstOrThrow()) as { kept: number | string };
      expect(Number(kept)).toBe(1298);
      // SQLite runs no DDL in the migration's transaction: a migration cut short runs again from its start.
      if (DIALECT === 'sqlite') await expect(migrations['0022_list_filters']!.up(db)).resolves.toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
