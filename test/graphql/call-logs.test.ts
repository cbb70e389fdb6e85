// Call logs over GraphQL (docs/decisions.md §7, §10; docs/graphql.md): Query.callLogs and Campaign.callLogs connections walked forwards
// and backwards, their filters, agreement with callLogList and the legacy REST door, paging and cursor errors,
// tenant isolation, CallLog.campaign, and recordCallOutcome with the campaign's postCallAnalysisSchema.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
import { internalGql } from '../helpers/internal-graph.js';

interface LogNode {
  callId: string;
  campaignId: string;
  status: string;
  startedAt: string;
  fromNumber: string | null;
}
interface Page {
  edges: Array<{ cursor: string; node: LogNode }>;
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

const PAGE_FIELDS = /* GraphQL */ `
  edges {
    cursor
    node {
      callId
      campaignId
      status
      startedAt
      fromNumber
    }
  }
  pageInfo {
    startCursor
    endCursor
    hasNextPage
    hasPreviousPage
  }
`;

const CALL_LOGS = /* GraphQL */ `
  query Logs(
    $first: Int
    $after: String
    $last: Int
    $before: String
    $campId: String
    $status: CallStatus
    $since: DateTime
    $until: DateTime
  ) {
    callLogs(
      first: $first
      after: $after
      last: $last
      before: $before
      campId: $campId
      status: $status
      since: $since
      until: $until
    ) {
      ${PAGE_FIELDS}
    }
  }
`;

const CAMPAIGN_LOGS = /* GraphQL */ `
  query CampaignLogs(
    $campId: String!
    $first: Int
    $after: String
    $last: Int
    $before: String
    $status: CallStatus
    $since: DateTime
    $until: DateTime
  ) {
    campaign(campId: $campId) {
      campId
      callLogs(first: $first, after: $after, last: $last, before: $before, status: $status, since: $since, until: $until) {
        ${PAGE_FIELDS}
      }
    }
  }
`;

const CALL_LOG_LIST = /* GraphQL */ `
  query List($campId: String, $status: CallStatus, $since: DateTime, $until: DateTime, $limit: Int!, $offset: Int!) {
    callLogList(campId: $campId, status: $status, since: $since, until: $until, limit: $limit, offset: $offset) {
      callId
      campaignId
      status
      startedAt
      fromNumber
    }
  }
`;

const UPSERT = /* GraphQL */ `
  mutation Upsert($campId: String!, $data: CampaignDataInput!) {
    upsertCampaign(campId: $campId, data: $data) {
      campId
    }
  }
`;

const RECORD = /* GraphQL */ `
  mutation Record($callId: String!, $transcript: String, $summary: String, $analysis: JSON) {
    recordCallOutcome(callId: $callId, transcript: $transcript, summary: $summary, analysis: $analysis) {
      callId
      campaignId
      status
      transcript
      summary
      analysis
      updatedAt
    }
  }
`;

/** One call: its first callback happens at `at` (ms since epoch), which becomes its startedAt. */
interface Spec {
  callId: string;
  campId: string;
  status: string;
  at: number;
}

const T0 = Date.parse('2024-05-01T10:00:00.000Z');
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

// Account A's calls: several share a millisecond, so callId (descending) must break ties. CallIds are same-length
// upper-case ASCII, so every collation orders them alike.
const A_SPECS: Spec[] = [
  { callId: 'CA00', campId: 'alpha', status: 'completed', at: Date.parse('2019-12-31T23:59:59.999Z') },
  { callId: 'CA01', campId: 'alpha', status: 'completed', at: T0 },
  { callId: 'CA02', campId: 'alpha', status: 'in-progress', at: T0 + MIN },
  { callId: 'CA03', campId: 'beta', status: 'no-answer', at: T0 + 2 * MIN },
  { callId: 'CA04', campId: 'alpha', status: 'completed', at: T0 + 3 * MIN },
  { callId: 'CA05', campId: 'alpha', status: 'completed', at: T0 + 3 * MIN },
  { callId: 'CA06', campId: 'beta', status: 'completed', at: T0 + 3 * MIN },
  { callId: 'CA07', campId: 'alpha', status: 'busy', at: T0 + 5 * MIN },
  { callId: 'CA08', campId: 'alpha', status: 'in-progress', at: T0 + 6 * MIN },
  { callId: 'CA09', campId: 'beta', status: 'in-progress', at: T0 + 8 * MIN },
  { callId: 'CA10', campId: 'alpha', status: 'completed', at: T0 + DAY },
  { callId: 'CA11', campId: 'alpha', status: 'failed', at: T0 + DAY + 1 },
  { callId: 'CA12', campId: 'beta', status: 'completed', at: T0 + DAY + 1 },
  { callId: 'CA13', campId: 'alpha', status: 'ringing', at: T0 + DAY + 1 },
];

// Account B reuses campId "alpha" and one CallSid of A's ("CA01").
const B_SPECS: Spec[] = [
  { callId: 'CA01', campId: 'alpha', status: 'completed', at: T0 + 30 * 1000 },
  { callId: 'CB01', campId: 'alpha', status: 'in-progress', at: T0 + 4 * MIN },
  { callId: 'CB02', campId: 'alpha', status: 'completed', at: T0 + 4 * MIN },
];
const A_FROM = '+14155550100';
const B_FROM = '+15550009999';
const B_AUTH_TOKEN = 'b-account-auth-token-fedcba9876543210';

interface Filter {
  campId?: string;
  status?: string;
  since?: number;
  until?: number;
}

/** Newest first by (startedAt, callId), both descending. */
function expectedIds(specs: Spec[], filter: Filter = {}) {
  return specs
    .filter((s) => filter.campId === undefined || s.campId === filter.campId)
    .filter((s) => filter.status === undefined || s.status === filter.status)
    .filter((s) => filter.since === undefined || s.at >= filter.since)
    .filter((s) => filter.until === undefined || s.at <= filter.until)
    .sort((x, y) => (x.at !== y.at ? y.at - x.at : x.callId < y.callId ? 1 : -1))
    .map((s) => s.callId);
}

/** "in-progress" → IN_PROGRESS */
const toEnum = (status: string) => status.toUpperCase().replace('-', '_');

/** GraphQL variables for a filter (enum status, ISO DateTimes). */
function gqlFilter(filter: Filter): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  if (filter.campId !== undefined) vars.campId = filter.campId;
  if (filter.status !== undefined) vars.status = toEnum(filter.status);
  if (filter.since !== undefined) vars.since = iso(filter.since);
  if (filter.until !== undefined) vars.until = iso(filter.until);
  return vars;
}

/** REST query parameters for a filter (provider words, ISO strings). */
function restFilter(filter: Filter): Record<string, string> {
  const params: Record<string, string> = {};
  if (filter.campId !== undefined) params.campId = filter.campId;
  if (filter.status !== undefined) params.status = filter.status;
  if (filter.since !== undefined) params.since = iso(filter.since);
  if (filter.until !== undefined) params.until = iso(filter.until);
  return params;
}

let t: TestApp;
let a: { token: string; apiKey: string };

beforeEach(async () => {
  t = await startApp();
  a = await t.account();
  await connectTelephony(t, a.token);
});

afterEach(async () => {
  vi.useRealTimers();
  await t.close();
});

async function ok<T = any>(query: string, variables: Record<string, unknown> = {}, token = a.token): Promise<T> {
  const reply = await t.gql<T>(query, variables, token);
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  return reply.body.data as T;
}

/** `ok` on the internal graph, for the REST door's own fields (callLogList). */
async function internalOk<T = any>(query: string, variables: Record<string, unknown> = {}, token = a.token) {
  const reply = await internalGql<T>(t, query, variables, token);
  expect(reply.errors, JSON.stringify(reply.errors)).toBeUndefined();
  return reply.data as T;
}

/** The single error of a failed operation on the internal graph. */
async function internalFailure(query: string, variables: Record<string, unknown>, token = a.token) {
  const reply = await internalGql(t, query, variables, token);
  expect(reply.errors, JSON.stringify(reply)).toHaveLength(1);
  return reply.errors![0] as { message: string; path?: string[]; extensions: { code: string; issues?: any[] } };
}

/** The single error of a failed operation, with its code. */
async function failure(query: string, variables: Record<string, unknown>, token = a.token) {
  const reply = await t.gql(query, variables, token);
  expect(reply.body.errors, JSON.stringify(reply.body)).toHaveLength(1);
  return reply.body.errors![0] as { message: string; path?: string[]; extensions: { code: string; issues?: any[] } };
}

async function createCampaign(campId: string, token = a.token, overrides: Record<string, unknown> = {}) {
  await ok(UPSERT, { campId, data: campaignInput(overrides) }, token);
}

async function callback(apiKey: string, campId: string, params: Record<string, string>, authToken?: string) {
  const reply = await sendCallback(t, apiKey, campId, params, authToken ? { authToken } : {});
  expect(reply.status, reply.text).toBe(200);
}

/** Plays each call's callbacks with Date set to its start ("queued" at `at`), in a scrambled order. */
async function playCalls(apiKey: string, specs: Spec[], options: { authToken?: string; from?: string } = {}) {
  const order = [...specs].sort((x, y) => (x.callId.charCodeAt(3) % 3) - (y.callId.charCodeAt(3) % 3));
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    for (const spec of order) {
      vi.setSystemTime(spec.at);
      await callback(
        apiKey,
        spec.campId,
        { CallSid: spec.callId, CallStatus: 'queued', From: options.from ?? A_FROM, To: '+14155550123' },
        options.authToken,
      );
      vi.setSystemTime(spec.at + 20_000);
      if (spec.status !== 'queued') {
        await callback(apiKey, spec.campId, { CallSid: spec.callId, CallStatus: spec.status }, options.authToken);
      }
    }
  } finally {
    vi.useRealTimers();
  }
}

async function seedA() {
  await createCampaign('alpha');
  await createCampaign('beta');
  await playCalls(a.apiKey, A_SPECS);
}

async function seedB() {
  const b = await t.account();
  await connectTelephony(t, b.token, B_AUTH_TOKEN);
  await createCampaign('alpha', b.token);
  await playCalls(b.apiKey, B_SPECS, { authToken: B_AUTH_TOKEN, from: B_FROM });
  return b;
}

async function rootPage(variables: Record<string, unknown>, token = a.token): Promise<Page> {
  return (await ok(CALL_LOGS, variables, token)).callLogs;
}

async function campaignPage(campId: string, variables: Record<string, unknown>, token = a.token): Promise<Page> {
  const data = await ok(CAMPAIGN_LOGS, { campId, ...variables }, token);
  expect(data.campaign).not.toBeNull();
  return data.campaign.callLogs;
}

type PageFn = (variables: Record<string, unknown>) => Promise<Page>;

/** Follows first/after to the end; checks every page's size, cursors and pageInfo on the way. */
async function walkForward(page: PageFn, size: number, filter: Record<string, unknown> = {}) {
  const ids: string[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const p = await page({ ...filter, first: size, ...(after ? { after } : {}) });
    expect(p.edges.length).toBeLessThanOrEqual(size);
    ids.push(...p.edges.map((e) => e.node.callId));
    if (p.edges.length) {
      expect(p.pageInfo.startCursor).toBe(p.edges[0]!.cursor);
      expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)!.cursor);
    }
    if (!after) expect(p.pageInfo.hasPreviousPage).toBe(false);
    if (!p.pageInfo.hasNextPage) return ids;
    expect(p.edges).toHaveLength(size);
    after = p.pageInfo.endCursor!;
  }
  throw new Error('walkForward did not end');
}

/** Follows last/before to the start; returns the ids in newest-first order. */
async function walkBackward(page: PageFn, size: number, filter: Record<string, unknown> = {}) {
  const ids: string[] = [];
  let before: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const p = await page({ ...filter, last: size, ...(before ? { before } : {}) });
    expect(p.edges.length).toBeLessThanOrEqual(size);
    ids.unshift(...p.edges.map((e) => e.node.callId));
    if (p.edges.length) {
      expect(p.pageInfo.startCursor).toBe(p.edges[0]!.cursor);
      expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)!.cursor);
    }
    if (!before) expect(p.pageInfo.hasNextPage).toBe(false);
    if (!p.pageInfo.hasPreviousPage) return ids;
    expect(p.edges).toHaveLength(size);
    before = p.pageInfo.startCursor!;
  }
  throw new Error('walkBackward did not end');
}

/** callLogList with limit/offset to the end. */
async function walkList(filter: Record<string, unknown>, limit: number, token = a.token) {
  const ids: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const { callLogList } = await internalOk(CALL_LOG_LIST, { ...filter, limit, offset }, token);
    ids.push(...callLogList.map((log: LogNode) => log.callId));
    if (callLogList.length < limit) return ids;
  }
}

/** A REST list path with limit/offset to the end. */
async function walkRest(path: string, params: Record<string, string>, limit: number, token = a.token) {
  const ids: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const query = new URLSearchParams({ ...params, limit: String(limit), offset: String(offset) });
    const reply = await t.rest('GET', `${path}?${query}`, { token });
    expect(reply.status, reply.text).toBe(200);
    ids.push(...reply.body.map((log: LogNode) => log.callId));
    if (reply.body.length < limit) return ids;
  }
}

const expectNoDuplicates = (ids: string[]) => expect(new Set(ids).size).toBe(ids.length);

describe('Query.callLogs', () => {
  test('walking every page of 3 visits each log once, newest first, ties broken by callId', async () => {
    await seedA();
    const all = expectedIds(A_SPECS);
    expect(all.slice(0, 4)).toEqual(['CA13', 'CA12', 'CA11', 'CA10']);
    const forward = await walkForward(rootPage, 3);
    expectNoDuplicates(forward);
    expect(forward).toEqual(all);
    // each node carries its own startedAt, the time of its first callback
    const first = await rootPage({ first: 100 });
    expect(first.edges.map((e) => [e.node.callId, e.node.startedAt])).toEqual(
      all.map((id) => [id, iso(A_SPECS.find((s) => s.callId === id)!.at)]),
    );
    expect(first.pageInfo.hasNextPage).toBe(false);
  });

  test('walking backwards with last/before visits the same logs in the same order', async () => {
    await seedA();
    const backward = await walkBackward(rootPage, 3);
    expectNoDuplicates(backward);
    expect(backward).toEqual(expectedIds(A_SPECS));
    // the last page is the oldest logs
    const tail = await rootPage({ last: 2 });
    expect(tail.edges.map((e) => e.node.callId)).toEqual(['CA01', 'CA00']);
    expect(tail.pageInfo.hasPreviousPage).toBe(true);
  });

  test('after and before from the middle of the list', async () => {
    await seedA();
    const all = expectedIds(A_SPECS);
    const { edges } = await rootPage({ first: 100 });
    const mid = edges[5]!;
    expect(mid.node.callId).toBe('CA08');
    const after = await rootPage({ first: 3, after: mid.cursor });
    expect(after.edges.map((e) => e.node.callId)).toEqual(all.slice(6, 9));
    expect(after.pageInfo.hasNextPage).toBe(true);
    const before = await rootPage({ last: 3, before: mid.cursor });
    expect(before.edges.map((e) => e.node.callId)).toEqual(all.slice(2, 5));
    expect(before.pageInfo.hasPreviousPage).toBe(true);
    // a cursor inside a run of equal startedAt (CA06, CA05, CA04) splits it by callId
    const ca05 = edges.find((e) => e.node.callId === 'CA05')!;
    expect((await rootPage({ first: 2, after: ca05.cursor })).edges.map((e) => e.node.callId)).toEqual([
      'CA04',
      'CA03',
    ]);
    expect((await rootPage({ last: 2, before: ca05.cursor })).edges.map((e) => e.node.callId)).toEqual([
      'CA07',
      'CA06',
    ]);
    // the last cursor: nothing after it
    const end = await rootPage({ first: 3, after: edges.at(-1)!.cursor });
    expect(end.edges).toEqual([]);
    expect(end.pageInfo.hasNextPage).toBe(false);
  });

  test('without first or last, answers one bounded page that starts the walk', async () => {
    await createCampaign('alpha');
    for (let i = 0; i < 23; i++) {
      await callback(a.apiKey, 'alpha', { CallSid: `CX${String(i).padStart(3, '0')}`, CallStatus: 'completed' });
    }
    const page = await rootPage({});
    const all = await walkForward(rootPage, 7);
    expect(all).toHaveLength(23);
    expectNoDuplicates(all);
    expect(page.edges.length).toBeGreaterThan(0);
    expect(page.edges.map((e) => e.node.callId)).toEqual(all.slice(0, page.edges.length));
    expect(page.pageInfo.hasNextPage).toBe(page.edges.length < 23);
  });

  test('filters by status (enum), campId, since and until (inclusive)', async () => {
    await seedA();
    const ids = async (filter: Filter) =>
      (await rootPage({ first: 100, ...gqlFilter(filter) })).edges.map((e) => e.node);
    const completed = await ids({ status: 'completed' });
    expect(completed.map((n) => n.callId)).toEqual(['CA12', 'CA10', 'CA06', 'CA05', 'CA04', 'CA01', 'CA00']);
    expect(completed.every((n) => n.status === 'COMPLETED')).toBe(true);
    const inProgress = await ids({ status: 'in-progress' });
    expect(inProgress.map((n) => n.callId)).toEqual(['CA09', 'CA08', 'CA02']);
    expect(inProgress.every((n) => n.status === 'IN_PROGRESS')).toBe(true);
    expect((await ids({ status: 'no-answer' })).map((n) => [n.callId, n.status])).toEqual([['CA03', 'NO_ANSWER']]);
    expect((await ids({ status: 'ringing' })).map((n) => [n.callId, n.status])).toEqual([['CA13', 'RINGING']]);
    expect(await ids({ status: 'queued' })).toEqual([]);
    expect((await ids({ campId: 'beta' })).map((n) => n.callId)).toEqual(['CA12', 'CA09', 'CA06', 'CA03']);
    expect((await ids({ since: T0 + 3 * MIN, until: T0 + 6 * MIN })).map((n) => n.callId)).toEqual([
      'CA08',
      'CA07',
      'CA06',
      'CA05',
      'CA04',
    ]);
    expect((await ids({ until: Date.parse('2019-12-31T23:59:59.999Z') })).map((n) => n.callId)).toEqual(['CA00']);
    expect((await ids({ since: T0 + DAY + 1 })).map((n) => n.callId)).toEqual(['CA13', 'CA12', 'CA11']);
    expect((await ids({ since: T0 + DAY + 2 })).map((n) => n.callId)).toEqual([]);
    // DateTime with an offset is the same instant
    const offset = await rootPage({
      first: 100,
      since: '2024-05-01T12:03:00+02:00',
      until: '2024-05-01T12:03:00+02:00',
    });
    expect(offset.edges.map((e) => e.node.callId)).toEqual(['CA06', 'CA05', 'CA04']);
    // all filters together
    expect(
      (await ids({ campId: 'alpha', status: 'completed', since: T0, until: T0 + DAY })).map((n) => n.callId),
    ).toEqual(['CA10', 'CA05', 'CA04', 'CA01']);
  });

  test('a filtered walk forwards and backwards visits each matching log once', async () => {
    await seedA();
    for (const filter of [{ status: 'completed' }, { campId: 'alpha' }, { since: T0, until: T0 + DAY }] as Filter[]) {
      const expected = expectedIds(A_SPECS, filter);
      expect(await walkForward(rootPage, 3, gqlFilter(filter)), JSON.stringify(filter)).toEqual(expected);
      expect(await walkBackward(rootPage, 3, gqlFilter(filter)), JSON.stringify(filter)).toEqual(expected);
      expect(await walkForward(rootPage, 1, gqlFilter(filter)), JSON.stringify(filter)).toEqual(expected);
    }
  });

  test('refuses pages over 100 and negative sizes with BAD_USER_INPUT', async () => {
    await seedA();
    for (const variables of [{ first: 101 }, { last: 101 }, { first: -1 }, { first: 1000, campId: 'alpha' }]) {
      const error = await failure(CALL_LOGS, variables);
      expect(error.extensions.code, JSON.stringify(variables)).toBe('BAD_USER_INPUT');
      expect(Array.isArray(error.extensions.issues)).toBe(true);
    }
    const campaignError = await failure(CAMPAIGN_LOGS, { campId: 'alpha', first: 101 });
    expect(campaignError.extensions.code).toBe('BAD_USER_INPUT');
    // 100 is allowed
    expect((await rootPage({ first: 100 })).edges).toHaveLength(A_SPECS.length);
  });

  test('refuses a cursor it did not make with BAD_USER_INPUT', async () => {
    await seedA();
    const forged = [
      'not-a-cursor',
      '!!!',
      Buffer.from(JSON.stringify(['only-one'])).toString('base64url'),
      Buffer.from(JSON.stringify([1, 2])).toString('base64url'),
      Buffer.from('{"startedAt":"x"}').toString('base64url'),
    ];
    for (const cursor of forged) {
      for (const variables of [
        { first: 3, after: cursor },
        { last: 3, before: cursor },
      ]) {
        const error = await failure(CALL_LOGS, variables);
        expect(error.extensions.code, `${JSON.stringify(variables)}: ${error.message}`).toBe('BAD_USER_INPUT');
      }
      const error = await failure(CAMPAIGN_LOGS, { campId: 'alpha', first: 3, after: cursor });
      expect(error.extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  test('an unknown campId is NOT_FOUND', async () => {
    await seedA();
    expect((await failure(CALL_LOGS, { campId: 'nope', first: 3 })).extensions.code).toBe('NOT_FOUND');
    const listed = await internalFailure(CALL_LOG_LIST, { campId: 'nope', limit: 10, offset: 0 });
    expect(listed.extensions.code).toBe('NOT_FOUND');
    const missing = await ok(CAMPAIGN_LOGS, { campId: 'nope', first: 3 });
    expect(missing.campaign).toBeNull();
  });

  test('a malformed campId is BAD_USER_INPUT', async () => {
    const error = await failure(CALL_LOGS, { campId: 'no spaces!', first: 3 });
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
  });

  test('requires authentication', async () => {
    const reply = await t.gql(CALL_LOGS, { first: 3 });
    expect(reply.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('Campaign.callLogs', () => {
  test("walks one campaign's logs forwards and backwards, newest first", async () => {
    await seedA();
    for (const campId of ['alpha', 'beta']) {
      const page: PageFn = (variables) => campaignPage(campId, variables);
      const expected = expectedIds(A_SPECS, { campId });
      const forward = await walkForward(page, 3);
      expectNoDuplicates(forward);
      expect(forward).toEqual(expected);
      expect(await walkBackward(page, 3)).toEqual(expected);
      const nodes = (await page({ first: 100 })).edges.map((e) => e.node);
      expect(nodes.every((n) => n.campaignId === campId)).toBe(true);
    }
  });

  test('filters by status, since and until', async () => {
    await seedA();
    const ids = async (filter: Filter) =>
      (await campaignPage('alpha', { first: 100, ...gqlFilter(filter) })).edges.map((e) => e.node.callId);
    expect(await ids({ status: 'completed' })).toEqual(['CA10', 'CA05', 'CA04', 'CA01', 'CA00']);
    expect(await ids({ status: 'in-progress' })).toEqual(['CA08', 'CA02']);
    expect(await ids({ status: 'failed' })).toEqual(['CA11']);
    expect(await ids({ status: 'no-answer' })).toEqual([]);
    expect(await ids({ since: T0 + 3 * MIN, until: T0 + 6 * MIN })).toEqual(['CA08', 'CA07', 'CA05', 'CA04']);
    expect(await ids({ since: T0 + 3 * MIN + 1, until: T0 + 6 * MIN - 1 })).toEqual(['CA07']);
    expect(await ids({ status: 'completed', since: Date.parse('2020-01-01T00:00:00Z') })).toEqual([
      'CA10',
      'CA05',
      'CA04',
      'CA01',
    ]);
  });

  test('several campaigns in one query each get their own logs', async () => {
    await seedA();
    const data = await ok(/* GraphQL */ `
      query {
        campaigns(first: 10) {
          edges {
            node {
              campId
              callLogs(first: 2) {
                edges {
                  node {
                    callId
                    campaignId
                  }
                }
              }
            }
          }
        }
      }
    `);
    const byCampaign = Object.fromEntries(
      data.campaigns.edges.map((e: any) => [e.node.campId, e.node.callLogs.edges.map((x: any) => x.node.callId)]),
    );
    expect(byCampaign).toEqual({ alpha: ['CA13', 'CA11'], beta: ['CA12', 'CA09'] });
  });
});

describe('the doors agree', () => {
  const FILTERS: Filter[] = [
    {},
    { campId: 'alpha' },
    { campId: 'beta' },
    { status: 'completed' },
    { status: 'in-progress' },
    { campId: 'alpha', status: 'completed' },
    { since: T0 + 3 * MIN },
    { until: T0 + 3 * MIN },
    { since: T0, until: T0 + DAY },
    { campId: 'beta', since: T0 + 2 * MIN, until: T0 + 8 * MIN },
    { status: 'completed', since: Date.parse('2020-01-01T00:00:00Z'), until: T0 + 3 * MIN },
    { since: T0 + DAY, until: T0 },
  ];

  test.each(FILTERS.map((filter) => [JSON.stringify(restFilter(filter)), filter] as const))(
    'REST limit/offset, callLogList and the connection walks list the same logs for %s',
    async (_name, filter) => {
      await seedA();
      await seedB(); // noise that must never show
      const expected = expectedIds(A_SPECS, filter);
      const vars = gqlFilter(filter);
      const params = restFilter(filter);

      const restAll = await t.rest('GET', `/get_call_logs_for_user?${new URLSearchParams(params)}`, { token: a.token });
      expect(restAll.status, restAll.text).toBe(200);
      expect(restAll.body.map((log: LogNode) => log.callId)).toEqual(expected);
      expect(await walkRest('/get_call_logs_for_user', params, 2)).toEqual(expected);
      expect(await walkRest('/get_call_logs_for_user', params, 5)).toEqual(expected);
      expect(await walkList(vars, 2)).toEqual(expected);
      expect(await walkList(vars, 100)).toEqual(expected);
      expect(await walkForward(rootPage, 3, vars)).toEqual(expected);
      expect(await walkBackward(rootPage, 3, vars)).toEqual(expected);

      if (filter.campId !== undefined) {
        expect(await walkRest('/get_call_logs_for_campaign', params, 2)).toEqual(expected);
        const { campId, ...rest } = vars;
        const page: PageFn = (variables) => campaignPage(campId as string, variables);
        expect(await walkForward(page, 3, rest)).toEqual(expected);
        expect(await walkBackward(page, 3, rest)).toEqual(expected);
      }
    },
  );

  test('REST and GraphQL report the same fields for the same log', async () => {
    await seedA();
    const rest = await t.rest('GET', '/get_call_logs_for_campaign?campId=beta', { token: a.token });
    const gql = (await rootPage({ first: 100, campId: 'beta' })).edges.map((e) => e.node);
    expect(
      rest.body.map((log: LogNode) => [log.callId, log.campaignId, log.status, log.startedAt, log.fromNumber]),
    ).toEqual(
      gql.map((n) => [n.callId, n.campaignId, n.status.toLowerCase().replace('_', '-'), n.startedAt, n.fromNumber]),
    );
  });

  test('callLogList validates limit and offset', async () => {
    for (const variables of [
      { limit: 0, offset: 0 },
      { limit: 1001, offset: 0 },
      { limit: 10, offset: -1 },
    ]) {
      const error = await internalFailure(CALL_LOG_LIST, variables);
      expect(error.extensions.code, JSON.stringify(variables)).toBe('BAD_USER_INPUT');
    }
  });
});

describe('tenant isolation', () => {
  test("another account's logs never appear in callLogs, Campaign.callLogs or callLogList", async () => {
    await seedA();
    const b = await seedB();
    const bExpected = ['CB02', 'CB01', 'CA01'];

    const bRoot = (await rootPage({ first: 100 }, b.token)).edges.map((e) => e.node);
    expect(bRoot.map((n) => n.callId)).toEqual(bExpected);
    expect(bRoot.every((n) => n.fromNumber === B_FROM)).toBe(true);
    expect(await walkForward((v) => rootPage(v, b.token), 1)).toEqual(bExpected);
    expect(await walkBackward((v) => rootPage(v, b.token), 1)).toEqual(bExpected);
    expect(
      (await campaignPage('alpha', { first: 100 }, b.token)).edges.map((e) => [e.node.callId, e.node.fromNumber]),
    ).toEqual(bExpected.map((id) => [id, B_FROM]));
    expect(await walkList({}, 2, b.token)).toEqual(bExpected);
    expect(await walkList({ campId: 'alpha', status: 'COMPLETED' }, 10, b.token)).toEqual(['CB02', 'CA01']);
    const bCa01 = bRoot.find((n) => n.callId === 'CA01')!;
    expect(bCa01.startedAt).toBe(iso(T0 + 30 * 1000));

    const aRoot = (await rootPage({ first: 100 })).edges.map((e) => e.node);
    expect(aRoot.map((n) => n.callId)).toEqual(expectedIds(A_SPECS));
    expect(aRoot.every((n) => n.fromNumber === A_FROM)).toBe(true);
    expect(aRoot.find((n) => n.callId === 'CA01')!.startedAt).toBe(iso(T0));
    expect(await walkList({ campId: 'alpha' }, 4)).toEqual(expectedIds(A_SPECS, { campId: 'alpha' }));

    // B's cursors page B's logs only, even when they come from the same (startedAt, callId) space as A's
    const aCursor = (await rootPage({ first: 100 })).edges.find((e) => e.node.callId === 'CA05')!.cursor;
    expect((await rootPage({ first: 100, after: aCursor }, b.token)).edges.map((e) => e.node.callId)).toEqual(['CA01']);

    // A campaign only A has
    expect((await failure(CALL_LOGS, { campId: 'beta', first: 3 }, b.token)).extensions.code).toBe('NOT_FOUND');
    expect(
      (await internalFailure(CALL_LOG_LIST, { campId: 'beta', limit: 3, offset: 0 }, b.token)).extensions.code,
    ).toBe('NOT_FOUND');
    expect((await ok(CAMPAIGN_LOGS, { campId: 'beta', first: 3 }, b.token)).campaign).toBeNull();
  });
});

describe('CallLog.campaign', () => {
  test('resolves to the Campaign the call belongs to', async () => {
    await createCampaign('alpha', a.token, { title: 'Alpha title' });
    await createCampaign('beta', a.token, { title: 'Beta title' });
    await callback(a.apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'completed' });
    await callback(a.apiKey, 'beta', { CallSid: 'CB1', CallStatus: 'ringing' });
    // callLogList is the REST door's (internal graph); the internal graph holds the public one too.
    const data = await internalOk(/* GraphQL */ `
      query {
        callLogs(first: 10) {
          edges {
            node {
              callId
              campaignId
              campaign {
                id
                campId
                title
                status
              }
            }
          }
        }
        callLogList(limit: 10) {
          callId
          campaign {
            campId
          }
        }
      }
    `);
    const nodes = data.callLogs.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => [n.callId, n.campaign.campId, n.campaign.title, n.campaign.status])).toEqual(
      expect.arrayContaining([
        ['CA1', 'alpha', 'Alpha title', 'ACTIVE'],
        ['CB1', 'beta', 'Beta title', 'ACTIVE'],
      ]),
    );
    for (const n of nodes) expect(n.campaign.campId).toBe(n.campaignId);
    expect(data.callLogList.map((n: any) => n.campaign.campId).sort()).toEqual(['alpha', 'beta']);
    // the same Campaign by its node id
    const alpha = nodes.find((n: any) => n.callId === 'CA1');
    const node = await ok(`query ($id: ID!) { node(id: $id) { ... on Campaign { campId } } }`, {
      id: alpha.campaign.id,
    });
    expect(node.node).toEqual({ campId: 'alpha' });
  });
});

describe('recordCallOutcome', () => {
  const ANALYSIS_SCHEMA = {
    type: 'object',
    required: ['outcome'],
    properties: {
      outcome: { type: 'string', enum: ['booked', 'declined'] },
      score: { type: 'number', minimum: 0, maximum: 10 },
    },
  };

  async function restLog(campId: string, callId: string, token = a.token) {
    const reply = await t.rest('GET', `/get_call_logs_for_campaign?campId=${campId}`, { token });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.find((log: LogNode) => log.callId === callId);
  }

  test('stores transcript, summary and analysis, visible by both doors', async () => {
    await createCampaign('alpha');
    await callback(a.apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'completed', CallDuration: '12' });
    const before = await restLog('alpha', 'CA1');
    const analysis = { outcome: 'anything', nested: { list: [1, 'two', null], flag: true }, score: 99 };
    const { recordCallOutcome } = await ok(RECORD, {
      callId: 'CA1',
      transcript: 'Agent: Hello.\nCustomer: Hi!',
      summary: 'A friendly hello.',
      analysis,
    });
    expect(recordCallOutcome).toMatchObject({
      callId: 'CA1',
      campaignId: 'alpha',
      status: 'COMPLETED',
      transcript: 'Agent: Hello.\nCustomer: Hi!',
      summary: 'A friendly hello.',
      analysis,
    });
    const after = await restLog('alpha', 'CA1');
    expect(after).toMatchObject({
      callId: 'CA1',
      status: 'completed',
      durationSeconds: 12,
      transcript: 'Agent: Hello.\nCustomer: Hi!',
      summary: 'A friendly hello.',
      analysis,
    });
    expect(after.startedAt).toBe(before.startedAt);
    expect(after.updatedAt >= before.updatedAt).toBe(true);
    const node = (await rootPage({ first: 1 })).edges[0]!.node;
    expect(node.callId).toBe('CA1');
  });

  test('leaves the fields it is not given as they are', async () => {
    await createCampaign('alpha');
    await callback(a.apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'completed' });
    await ok(RECORD, { callId: 'CA1', transcript: 'T1', summary: 'S1', analysis: { a: 1 } });
    await ok(RECORD, { callId: 'CA1', summary: 'S2' });
    expect(await restLog('alpha', 'CA1')).toMatchObject({ transcript: 'T1', summary: 'S2', analysis: { a: 1 } });
  });

  test('without postCallAnalysis, any JSON analysis is stored as is', async () => {
    await createCampaign('alpha', a.token, { postCallAnalysis: false, postCallAnalysisSchema: ANALYSIS_SCHEMA });
    await callback(a.apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'completed' });
    for (const analysis of [
      { outcome: 'maybe', score: 11 },
      [1, 'two', { three: 3 }],
      'just a string',
      42,
      true,
      { deeply: { nested: { value: [{}, []] } }, unicode: 'héllo ☎' },
    ]) {
      const { recordCallOutcome } = await ok(RECORD, { callId: 'CA1', analysis });
      expect(recordCallOutcome.analysis).toEqual(analysis);
      expect((await restLog('alpha', 'CA1')).analysis, JSON.stringify(analysis)).toEqual(analysis);
    }
  });

  test('with postCallAnalysis, an analysis that breaks the schema is BAD_USER_INPUT listing every failure; nothing is stored', async () => {
    await createCampaign('scored', a.token, { postCallAnalysis: true, postCallAnalysisSchema: ANALYSIS_SCHEMA });
    await callback(a.apiKey, 'scored', { CallSid: 'CA1', CallStatus: 'completed' });
    const error = await failure(RECORD, {
      callId: 'CA1',
      transcript: 'should not be stored',
      summary: 'nor this',
      analysis: { outcome: 'maybe', score: 11 },
    });
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    const issues = error.extensions.issues!;
    expect(Array.isArray(issues)).toBe(true);
    const paths = issues.map((i: { path: unknown[] }) => JSON.stringify(i.path));
    expect(paths).toContain(JSON.stringify(['analysis', 'outcome']));
    expect(paths).toContain(JSON.stringify(['analysis', 'score']));
    for (const issue of issues) expect(typeof issue.message).toBe('string');
    const stored = await restLog('scored', 'CA1');
    expect(stored).toMatchObject({ transcript: null, summary: null, analysis: null });

    // a missing required property, a wrong type
    for (const analysis of [{ score: 5 }, { outcome: 'booked', score: 'high' }, 'booked', [{ outcome: 'booked' }]]) {
      const e = await failure(RECORD, { callId: 'CA1', analysis });
      expect(e.extensions.code, JSON.stringify(analysis)).toBe('BAD_USER_INPUT');
      expect(e.extensions.issues!.length).toBeGreaterThan(0);
      expect(e.extensions.issues!.every((i: { path: unknown[] }) => i.path[0] === 'analysis')).toBe(true);
    }
    expect((await restLog('scored', 'CA1')).analysis).toBeNull();

    // valid analyses are stored
    for (const analysis of [
      { outcome: 'booked', score: 7.5 },
      { outcome: 'declined' },
      { outcome: 'booked', score: 0, extra: 'allowed' },
    ]) {
      const { recordCallOutcome } = await ok(RECORD, { callId: 'CA1', transcript: 'ok', analysis });
      expect(recordCallOutcome.analysis).toEqual(analysis);
      expect(await restLog('scored', 'CA1')).toMatchObject({ transcript: 'ok', analysis });
    }
  });

  test('with postCallAnalysis, transcript and summary alone need no analysis', async () => {
    await createCampaign('scored', a.token, { postCallAnalysis: true, postCallAnalysisSchema: ANALYSIS_SCHEMA });
    await callback(a.apiKey, 'scored', { CallSid: 'CA1', CallStatus: 'completed' });
    await ok(RECORD, { callId: 'CA1', transcript: 'T', summary: 'S' });
    expect(await restLog('scored', 'CA1')).toMatchObject({ transcript: 'T', summary: 'S', analysis: null });
  });

  test('a schema with unknown keywords still validates (non-strict)', async () => {
    await createCampaign('loose', a.token, {
      postCallAnalysis: true,
      postCallAnalysisSchema: {
        type: 'object',
        'x-ui': 'card',
        properties: { outcome: { type: 'string', 'x-widget': 'select', enum: ['booked', 'declined'] } },
      },
    });
    await callback(a.apiKey, 'loose', { CallSid: 'CA1', CallStatus: 'completed' });
    const { recordCallOutcome } = await ok(RECORD, { callId: 'CA1', analysis: { outcome: 'booked', anything: 1 } });
    expect(recordCallOutcome.analysis).toEqual({ outcome: 'booked', anything: 1 });
    // the known keywords are still enforced
    const error = await failure(RECORD, { callId: 'CA1', analysis: { outcome: 'maybe' } });
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.issues!.map((i: { path: unknown[] }) => i.path)).toContainEqual(['analysis', 'outcome']);
    const notObject = await failure(RECORD, { callId: 'CA1', analysis: 'a string' });
    expect(notObject.extensions.code).toBe('BAD_USER_INPUT');
    expect((await restLog('loose', 'CA1')).analysis).toEqual({ outcome: 'booked', anything: 1 });
  });

  test('the simplest unknown-keyword schema {"type":"object","x-ui":"card"} accepts any object', async () => {
    await createCampaign('card', a.token, {
      postCallAnalysis: true,
      postCallAnalysisSchema: { type: 'object', 'x-ui': 'card' },
    });
    await callback(a.apiKey, 'card', { CallSid: 'CA1', CallStatus: 'completed' });
    const { recordCallOutcome } = await ok(RECORD, { callId: 'CA1', analysis: { free: ['form'] } });
    expect(recordCallOutcome.analysis).toEqual({ free: ['form'] });
  });

  test('an unknown callId is NOT_FOUND', async () => {
    await createCampaign('alpha');
    await callback(a.apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'completed' });
    const error = await failure(RECORD, { callId: 'CA-nope', transcript: 'x' });
    expect(error.extensions.code).toBe('NOT_FOUND');
  });

  test("another account's callId is NOT_FOUND and stays untouched; the same CallSid of each account is its own", async () => {
    await seedA();
    const b = await seedB();
    // CA05 is A's only
    const error = await failure(RECORD, { callId: 'CA05', transcript: 'B was here', analysis: { x: 1 } }, b.token);
    expect(error.extensions.code).toBe('NOT_FOUND');
    expect(await restLog('alpha', 'CA05')).toMatchObject({ transcript: null, analysis: null });
    // CA01 exists in both: B's outcome lands on B's call only
    const { recordCallOutcome } = await ok(RECORD, { callId: 'CA01', transcript: 'B transcript' }, b.token);
    expect(recordCallOutcome.transcript).toBe('B transcript');
    expect(await restLog('alpha', 'CA01', b.token)).toMatchObject({ transcript: 'B transcript', fromNumber: B_FROM });
    expect(await restLog('alpha', 'CA01')).toMatchObject({ transcript: null, fromNumber: A_FROM });
  });

  test('requires authentication', async () => {
    await createCampaign('alpha');
    await callback(a.apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'completed' });
    const reply = await t.gql(RECORD, { callId: 'CA1', transcript: 'x' });
    expect(reply.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await restLog('alpha', 'CA1')).transcript).toBeNull();
  });
});
