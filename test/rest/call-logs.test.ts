// Call logs by the legacy door (docs/decisions.md §7, §10): GET /get_call_logs_for_campaign and GET /get_call_logs_for_user,
// their shape, newest-first order, filters (status, since, until, limit, offset), FastAPI-shaped 422s, 404 for an
// unknown campaign, 401 without a token, and tenant isolation. Logs are created by signed provider callbacks.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const LOG_KEYS = [
  'callId',
  'campaignId',
  'direction',
  'fromNumber',
  'toNumber',
  'status',
  'startedAt',
  'endedAt',
  'durationSeconds',
  'cost',
  'recordingUrl',
  'transcript',
  'summary',
  'analysis',
  'createdAt',
  'updatedAt',
].sort();

interface Detail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
}

interface Log {
  callId: string;
  campaignId: string;
  status: string;
  startedAt: string;
  updatedAt: string;
  endedAt: string | null;
  [key: string]: unknown;
}

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

// Account A's calls. CA04, CA05 and CA06 start in the same millisecond: callId (descending) breaks the tie.
// CallIds are same-length upper-case ASCII, so every collation orders them alike.
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
];

// Account B reuses campId "alpha" and even one CallSid of A's ("CA01"): (account, CallSid) is the key.
const B_SPECS: Spec[] = [
  { callId: 'CA01', campId: 'alpha', status: 'completed', at: T0 + 30 * 1000 },
  { callId: 'CB01', campId: 'alpha', status: 'in-progress', at: T0 + 4 * MIN },
];
const B_AUTH_TOKEN = 'b-account-auth-token-fedcba9876543210';
const B_FROM = '+15550009999';

/** Newest first by (startedAt, callId), both descending. */
function expectedIds(specs: Spec[], filter: { campId?: string; status?: string; since?: number; until?: number } = {}) {
  return specs
    .filter((s) => filter.campId === undefined || s.campId === filter.campId)
    .filter((s) => filter.status === undefined || s.status === filter.status)
    .filter((s) => filter.since === undefined || s.at >= filter.since)
    .filter((s) => filter.until === undefined || s.at <= filter.until)
    .sort((a, b) => (a.at !== b.at ? b.at - a.at : a.callId < b.callId ? 1 : -1))
    .map((s) => s.callId);
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

async function createCampaign(campId: string, token = a.token, overrides: Record<string, unknown> = {}) {
  const reply = await t.rest('POST', '/update_campaign', {
    token,
    body: { campId, campaignModelData: campaignModelData(overrides) },
  });
  expect(reply.status, reply.text).toBe(200);
}

async function callback(apiKey: string, campId: string, params: Record<string, string>, authToken?: string) {
  const reply = await sendCallback(t, apiKey, campId, params, authToken ? { authToken } : {});
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toEqual({ received: true });
}

/**
 * Plays each call's callbacks with the clock set (Date only) to its start: "queued" at `at`, then, 30 s later, the
 * statuses that lead to its final one. Calls are played in a scrambled order, so insertion order is not the answer.
 */
async function playCalls(apiKey: string, specs: Spec[], options: { authToken?: string; from?: string } = {}) {
  const order = [...specs].sort((x, y) => (x.callId.charCodeAt(3) % 3) - (y.callId.charCodeAt(3) % 3));
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    for (const spec of order) {
      vi.setSystemTime(spec.at);
      await callback(
        apiKey,
        spec.campId,
        {
          CallSid: spec.callId,
          CallStatus: 'queued',
          From: options.from ?? '+14155550100',
          To: '+14155550123',
          Direction: 'outbound-api',
        },
        options.authToken,
      );
      vi.setSystemTime(spec.at + 30_000);
      if (spec.status === 'in-progress' || spec.status === 'completed') {
        await callback(apiKey, spec.campId, { CallSid: spec.callId, CallStatus: 'ringing' }, options.authToken);
        await callback(apiKey, spec.campId, { CallSid: spec.callId, CallStatus: 'in-progress' }, options.authToken);
      }
      if (spec.status !== 'in-progress') {
        const final: Record<string, string> = { CallSid: spec.callId, CallStatus: spec.status };
        if (spec.status === 'completed') Object.assign(final, { CallDuration: '30', Price: '-0.0150' });
        await callback(apiKey, spec.campId, final, options.authToken);
      }
    }
  } finally {
    vi.useRealTimers();
  }
}

/** Account A with campaigns alpha and beta and A_SPECS; account B with its own telephony, "alpha" and B_SPECS. */
async function seedTwoAccounts() {
  await createCampaign('alpha');
  await createCampaign('beta');
  await playCalls(a.apiKey, A_SPECS);
  const b = await t.account();
  await connectTelephony(t, b.token, B_AUTH_TOKEN);
  await createCampaign('alpha', b.token);
  await playCalls(b.apiKey, B_SPECS, { authToken: B_AUTH_TOKEN, from: B_FROM });
  return b;
}

/** `token` null: no Authorization header at all. */
const forCampaign = (query: string, token: string | null = a.token) =>
  t.rest('GET', `/get_call_logs_for_campaign?${query}`, token === null ? {} : { token });
const forUser = (query = '', token: string | null = a.token) =>
  t.rest('GET', `/get_call_logs_for_user${query ? `?${query}` : ''}`, token === null ? {} : { token });

async function idsOf(reply: Promise<{ status: number; body: Log[]; text: string }>) {
  const r = await reply;
  expect(r.status, r.text).toBe(200);
  expect(Array.isArray(r.body)).toBe(true);
  return r.body.map((log) => log.callId);
}

/** The detail[] entry at `loc`, failing the test when there is none. */
function entryAt(details: Detail[], loc: Array<string | number>): Detail {
  const found = details.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(found, `no detail entry at ${JSON.stringify(loc)} in ${JSON.stringify(details)}`).toBeDefined();
  return found as Detail;
}

async function expect422(reply: Promise<{ status: number; body: any; text: string }>, loc: string[]) {
  const r = await reply;
  expect(r.status, r.text).toBe(422);
  expect(Array.isArray(r.body.detail)).toBe(true);
  for (const d of r.body.detail)
    expect(Object.keys(d).sort()).toEqual(expect.arrayContaining(['input', 'loc', 'msg', 'type']));
  return entryAt(r.body.detail, loc);
}

describe('GET /get_call_logs_for_campaign', () => {
  it('answers a bare array of logs with exactly the legacy keys, values as the callbacks reported them', async () => {
    await createCampaign('alpha');
    await callback(a.apiKey, 'alpha', {
      CallSid: 'CAshape',
      CallStatus: 'queued',
      From: '+14155550100',
      To: '+14155550123',
      Direction: 'outbound-api',
    });
    await callback(a.apiKey, 'alpha', {
      CallSid: 'CAshape',
      CallStatus: 'completed',
      CallDuration: '42',
      Price: '-0.0125',
      RecordingUrl: 'https://recordings.example.com/CAshape.mp3',
    });
    const reply = await forCampaign('campId=alpha');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(reply.body).toHaveLength(1);
    const [log] = reply.body;
    expect(Object.keys(log).sort()).toEqual(LOG_KEYS);
    expect(log).toEqual({
      callId: 'CAshape',
      campaignId: 'alpha',
      direction: 'outbound-api',
      fromNumber: '+14155550100',
      toNumber: '+14155550123',
      status: 'completed',
      startedAt: expect.stringMatching(ISO_UTC),
      endedAt: expect.stringMatching(ISO_UTC),
      durationSeconds: 42,
      cost: 0.0125,
      recordingUrl: 'https://recordings.example.com/CAshape.mp3',
      transcript: null,
      summary: null,
      analysis: null,
      createdAt: expect.stringMatching(ISO_UTC),
      updatedAt: expect.stringMatching(ISO_UTC),
    });
    expect(log.endedAt >= log.startedAt).toBe(true);
  });

  it('answers [] for a campaign without calls', async () => {
    await createCampaign('alpha');
    const reply = await forCampaign('campId=alpha');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual([]);
  });

  it('lists newest first by the time of the first callback; later callbacks do not move a call', async () => {
    await createCampaign('alpha');
    const started: Record<string, [string, string]> = {};
    for (const callId of ['CR1', 'CR2', 'CR3']) {
      const before = new Date().toISOString();
      await callback(a.apiKey, 'alpha', { CallSid: callId, CallStatus: 'ringing' });
      started[callId] = [before, new Date().toISOString()];
      await sleep(5);
    }
    // CR1 is the oldest call but the last one to hear from the provider.
    await callback(a.apiKey, 'alpha', { CallSid: 'CR1', CallStatus: 'in-progress' });
    const reply = await forCampaign('campId=alpha');
    expect(reply.body.map((log: Log) => log.callId)).toEqual(['CR3', 'CR2', 'CR1']);
    for (const log of reply.body as Log[]) {
      const [before, after] = started[log.callId]!;
      expect(log.startedAt >= before && log.startedAt <= after, `${log.callId} startedAt ${log.startedAt}`).toBe(true);
    }
    const cr1 = (reply.body as Log[]).find((log) => log.callId === 'CR1')!;
    expect(cr1.status).toBe('in-progress');
    expect(cr1.updatedAt > cr1.startedAt).toBe(true);
    expect(cr1.endedAt).toBeNull();
  });

  it("reports statuses in the provider's words (in-progress, no-answer), newest first with callId breaking ties", async () => {
    await seedTwoAccounts();
    const reply = await forCampaign('campId=beta');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.map((log: Log) => [log.callId, log.status, log.startedAt])).toEqual([
      ['CA09', 'in-progress', iso(T0 + 8 * MIN)],
      ['CA06', 'completed', iso(T0 + 3 * MIN)],
      ['CA03', 'no-answer', iso(T0 + 2 * MIN)],
    ]);
    expect(await idsOf(forCampaign('campId=alpha'))).toEqual(expectedIds(A_SPECS, { campId: 'alpha' }));
    const alpha = (await forCampaign('campId=alpha')).body as Log[];
    expect(alpha.map((log) => log.callId).slice(-5)).toEqual(['CA05', 'CA04', 'CA02', 'CA01', 'CA00']);
    expect(alpha.every((log) => log.campaignId === 'alpha')).toBe(true);
  });

  it('filters by status', async () => {
    await seedTwoAccounts();
    expect(await idsOf(forCampaign('campId=alpha&status=completed'))).toEqual(['CA10', 'CA05', 'CA04', 'CA01', 'CA00']);
    expect(await idsOf(forCampaign('campId=alpha&status=in-progress'))).toEqual(['CA08', 'CA02']);
    expect(await idsOf(forCampaign('campId=beta&status=no-answer'))).toEqual(['CA03']);
    expect(await idsOf(forCampaign('campId=alpha&status=no-answer'))).toEqual([]);
    expect(await idsOf(forCampaign('campId=alpha&status=failed'))).toEqual(['CA11']);
    expect(await idsOf(forCampaign('campId=alpha&status=busy'))).toEqual(['CA07']);
    expect(await idsOf(forCampaign('campId=alpha&status=queued'))).toEqual([]);
  });

  it('filters by since and until, both inclusive to the millisecond, with offsets and date-only values', async () => {
    await seedTwoAccounts();
    const q = (params: Record<string, string>) =>
      idsOf(forCampaign(new URLSearchParams({ campId: 'alpha', ...params }).toString()));
    const all = expectedIds(A_SPECS, { campId: 'alpha' });
    // date-only: midnight UTC
    expect(await q({ since: '2020-01-01' })).toEqual(all.filter((id) => id !== 'CA00'));
    expect(await q({ until: '2020-01-01' })).toEqual(['CA00']);
    expect(await q({ until: '2019-12-31T23:59:59.999Z' })).toEqual(['CA00']);
    expect(await q({ until: '2019-12-31T23:59:59.998Z' })).toEqual([]);
    expect(await q({ since: '2019-12-31T23:59:59.999Z' })).toEqual(all);
    // exact bounds are inclusive
    expect(await q({ since: iso(T0 + 3 * MIN), until: iso(T0 + 6 * MIN) })).toEqual(['CA08', 'CA07', 'CA05', 'CA04']);
    expect(await q({ since: iso(T0 + 3 * MIN + 1), until: iso(T0 + 6 * MIN - 1) })).toEqual(['CA07']);
    // the same instant written with an offset, and without seconds
    expect(await q({ since: '2024-05-01T12:03:00+02:00', until: '2024-05-01T10:06' })).toEqual([
      'CA08',
      'CA07',
      'CA05',
      'CA04',
    ]);
    // an empty window
    expect(await q({ since: iso(T0 + DAY), until: iso(T0) })).toEqual([]);
    // combined with status
    expect(await q({ status: 'completed', since: iso(T0), until: iso(T0 + DAY) })).toEqual([
      'CA10',
      'CA05',
      'CA04',
      'CA01',
    ]);
  });

  it('pages with limit and offset over the same order', async () => {
    await seedTwoAccounts();
    const all = expectedIds(A_SPECS, { campId: 'alpha' });
    expect(all).toHaveLength(9);
    expect(await idsOf(forCampaign('campId=alpha&limit=2'))).toEqual(all.slice(0, 2));
    expect(await idsOf(forCampaign('campId=alpha&limit=2&offset=2'))).toEqual(all.slice(2, 4));
    expect(await idsOf(forCampaign('campId=alpha&limit=4&offset=7'))).toEqual(all.slice(7));
    expect(await idsOf(forCampaign('campId=alpha&offset=9'))).toEqual([]);
    expect(await idsOf(forCampaign('campId=alpha&offset=500'))).toEqual([]);
    expect(await idsOf(forCampaign('campId=alpha&limit=1000'))).toEqual(all);
    expect(await idsOf(forCampaign('campId=alpha&limit=1'))).toEqual(['CA11']);
    // numeric strings are coerced leniently, as pydantic did
    expect(await idsOf(forCampaign('campId=alpha&limit=%203%20&offset=+1'))).toEqual(all.slice(1, 4));
    // walking pages of 2 visits each log once, in order
    const walked: string[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = await idsOf(forCampaign(`campId=alpha&limit=2&offset=${offset}`));
      walked.push(...page);
      if (page.length < 2) break;
    }
    expect(walked).toEqual(all);
    // with a filter
    expect(await idsOf(forCampaign('campId=alpha&status=completed&limit=2&offset=1'))).toEqual(['CA05', 'CA04']);
  });

  it('returns at most 100 logs by default', async () => {
    await createCampaign('alpha');
    for (let i = 0; i < 101; i++) {
      await callback(a.apiKey, 'alpha', { CallSid: `CX${String(i).padStart(3, '0')}`, CallStatus: 'completed' });
    }
    const everything = (await forCampaign('campId=alpha&limit=1000')).body as Log[];
    expect(everything).toHaveLength(101);
    // newest first; ties (same millisecond) by callId descending
    for (let i = 1; i < everything.length; i++) {
      const [prev, cur] = [everything[i - 1]!, everything[i]!];
      expect(prev.startedAt > cur.startedAt || (prev.startedAt === cur.startedAt && prev.callId > cur.callId)).toBe(
        true,
      );
    }
    expect(everything.at(-1)!.callId).toBe('CX000');
    const byDefault = (await forCampaign('campId=alpha')).body as Log[];
    expect(byDefault.map((log) => log.callId)).toEqual(everything.slice(0, 100).map((log) => log.callId));
    expect(await idsOf(forCampaign('campId=alpha&offset=100'))).toEqual(['CX000']);
  });

  it.each([
    ['1001', 'less_than_equal'],
    ['0', 'greater_than_equal'],
    ['-5', 'greater_than_equal'],
    ['abc', 'int_parsing'],
    ['1.5', 'int_parsing'],
  ])('refuses limit=%s with 422 at ["query","limit"] (%s)', async (limit, type) => {
    await createCampaign('alpha');
    const entry = await expect422(forCampaign(`campId=alpha&limit=${limit}`), ['query', 'limit']);
    expect(entry.type).toBe(type);
    expect(entry.input).toBe(limit);
    if (type === 'less_than_equal') expect(entry.msg).toBe('Input should be less than or equal to 1000');
    if (type === 'greater_than_equal') expect(entry.msg).toBe('Input should be greater than or equal to 1');
    if (type === 'int_parsing') {
      expect(entry.msg).toBe('Input should be a valid integer, unable to parse string as an integer');
    }
  });

  it('refuses a negative or non-numeric offset with 422 at ["query","offset"]', async () => {
    await createCampaign('alpha');
    expect((await expect422(forCampaign('campId=alpha&offset=-1'), ['query', 'offset'])).type).toBe(
      'greater_than_equal',
    );
    expect((await expect422(forCampaign('campId=alpha&offset=x'), ['query', 'offset'])).type).toBe('int_parsing');
  });

  it('refuses a since or until that is no ISO 8601 date-time with 422 datetime_parsing', async () => {
    await createCampaign('alpha');
    // Also a day its month lacks (Date.parse would roll it over) and a moment before the year 0000 in UTC.
    for (const bad of [
      'bad',
      '2024-13-01',
      '2024-05-01T25:00:00Z',
      '1714557600',
      'yesterday',
      '2026-02-31',
      '2026-04-31T09:00:00Z',
      '0000-01-01T00:00+01:00',
    ]) {
      const since = await expect422(forCampaign(`campId=alpha&since=${encodeURIComponent(bad)}`), ['query', 'since']);
      expect(since.type, bad).toBe('datetime_parsing');
      expect(since.input).toBe(bad);
    }
    const until = await expect422(forCampaign('campId=alpha&until=bad'), ['query', 'until']);
    expect(until.type).toBe('datetime_parsing');
  });

  it('refuses an unknown status with 422 at ["query","status"]', async () => {
    await createCampaign('alpha');
    for (const bad of ['weird', 'IN_PROGRESS', 'in_progress', 'Completed']) {
      const entry = await expect422(forCampaign(`campId=alpha&status=${bad}`), ['query', 'status']);
      expect(entry.input, bad).toBe(bad);
    }
  });

  it('reports every problem at once', async () => {
    await createCampaign('alpha');
    const reply = await forCampaign('campId=alpha&limit=0&since=bad&status=weird&offset=-1');
    expect(reply.status, reply.text).toBe(422);
    const locs = (reply.body.detail as Detail[]).map((d) => d.loc.join('.')).sort();
    expect(locs).toEqual(['query.limit', 'query.offset', 'query.since', 'query.status']);
  });

  it('requires campId: 422 missing at ["query","campId"]', async () => {
    await createCampaign('alpha');
    for (const query of ['', 'status=completed', 'campaignIdx=alpha']) {
      const entry = await expect422(forCampaign(query), ['query', 'campId']);
      expect(entry.type).toBe('missing');
      expect(entry.msg).toBe('Field required');
    }
  });

  it('refuses a malformed campId with 422 at ["query","campId"]', async () => {
    await expect422(forCampaign(`campId=${encodeURIComponent('no spaces!')}`), ['query', 'campId']);
    await expect422(forCampaign(`campId=${'x'.repeat(65)}`), ['query', 'campId']);
  });

  it('answers 404 {"detail":"Campaign not found"} for an unknown campaign, even with filters', async () => {
    await createCampaign('alpha');
    for (const query of ['campId=nope', 'campId=nope&status=completed&limit=5', 'campId=ALPHA']) {
      const reply = await forCampaign(query);
      expect(reply.status, query).toBe(404);
      expect(reply.body).toEqual({ detail: 'Campaign not found' });
    }
  });

  it('answers 401 Not authenticated without a token, and 401 with a bad one', async () => {
    await createCampaign('alpha');
    const reply = await forCampaign('campId=alpha', null);
    expect(reply.status, reply.text).toBe(401);
    expect(reply.body).toEqual({ detail: 'Not authenticated' });
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    const bad = await forCampaign('campId=alpha', 'not.a.jwt');
    expect(bad.status, bad.text).toBe(401);
    expect(bad.body).toEqual({ detail: 'Could not validate credentials' });
  });
});

describe('GET /get_call_logs_for_user', () => {
  it("lists every campaign's logs of the caller, newest first", async () => {
    await seedTwoAccounts();
    const reply = await forUser();
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.map((log: Log) => log.callId)).toEqual(expectedIds(A_SPECS));
    expect(reply.body.map((log: Log) => log.callId)).toEqual([
      'CA11',
      'CA10',
      'CA09',
      'CA08',
      'CA07',
      'CA06',
      'CA05',
      'CA04',
      'CA03',
      'CA02',
      'CA01',
      'CA00',
    ]);
    for (const log of reply.body as Log[]) {
      expect(Object.keys(log).sort()).toEqual(LOG_KEYS);
      expect(log.campaignId).toBe(A_SPECS.find((s) => s.callId === log.callId)!.campId);
      expect(log.fromNumber).toBe('+14155550100');
    }
  });

  it('answers [] for an account without calls', async () => {
    const reply = await forUser();
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual([]);
  });

  it('takes campId as an optional filter, and the same status, since, until, limit and offset', async () => {
    await seedTwoAccounts();
    expect(await idsOf(forUser('campId=beta'))).toEqual(['CA09', 'CA06', 'CA03']);
    expect(await idsOf(forUser('campId=alpha'))).toEqual(expectedIds(A_SPECS, { campId: 'alpha' }));
    expect(await idsOf(forUser('status=completed'))).toEqual(['CA10', 'CA06', 'CA05', 'CA04', 'CA01', 'CA00']);
    expect(await idsOf(forUser('status=in-progress'))).toEqual(['CA09', 'CA08', 'CA02']);
    expect(await idsOf(forUser('status=no-answer'))).toEqual(['CA03']);
    expect(await idsOf(forUser(`since=${iso(T0 + 2 * MIN)}&until=${iso(T0 + 3 * MIN)}`))).toEqual([
      'CA06',
      'CA05',
      'CA04',
      'CA03',
    ]);
    expect(await idsOf(forUser('since=2020-01-01&status=completed&limit=2&offset=1'))).toEqual(['CA06', 'CA05']);
    expect(await idsOf(forUser('limit=3&offset=3'))).toEqual(['CA08', 'CA07', 'CA06']);
    expect(await idsOf(forUser('campId=beta&status=completed'))).toEqual(['CA06']);
  });

  it('validates like the campaign form', async () => {
    expect((await expect422(forUser('limit=1001'), ['query', 'limit'])).type).toBe('less_than_equal');
    expect((await expect422(forUser('limit=0'), ['query', 'limit'])).type).toBe('greater_than_equal');
    expect((await expect422(forUser('limit=abc'), ['query', 'limit'])).type).toBe('int_parsing');
    expect((await expect422(forUser('since=bad'), ['query', 'since'])).type).toBe('datetime_parsing');
    await expect422(forUser('status=weird'), ['query', 'status']);
    await expect422(forUser(`campId=${encodeURIComponent('a b')}`), ['query', 'campId']);
  });

  it('answers 404 for an unknown campId', async () => {
    await createCampaign('alpha');
    const reply = await forUser('campId=nope');
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Campaign not found' });
  });

  it('answers 401 without a token', async () => {
    const reply = await forUser('', null);
    expect(reply.status, reply.text).toBe(401);
    expect(reply.body).toEqual({ detail: 'Not authenticated' });
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('tenant isolation', () => {
  it("never shows another account's logs, by either path, even under the same campId and CallSid", async () => {
    const b = await seedTwoAccounts();

    const bUser = (await forUser('', b.token)).body as Log[];
    expect(bUser.map((log) => log.callId)).toEqual(['CB01', 'CA01']);
    expect(bUser.every((log) => log.fromNumber === B_FROM)).toBe(true);
    expect(bUser.find((log) => log.callId === 'CA01')!.startedAt).toBe(iso(T0 + 30 * 1000));

    const bAlpha = (await forCampaign('campId=alpha', b.token)).body as Log[];
    expect(bAlpha.map((log) => log.callId)).toEqual(['CB01', 'CA01']);
    expect(bAlpha.every((log) => log.fromNumber === B_FROM)).toBe(true);
    expect(await idsOf(forUser('campId=alpha', b.token))).toEqual(['CB01', 'CA01']);
    expect(await idsOf(forUser('status=completed', b.token))).toEqual(['CA01']);
    expect(await idsOf(forUser('since=2000-01-01&limit=1000', b.token))).toEqual(['CB01', 'CA01']);

    // A sees only its own, its CA01 with its own start time and number
    const aAlpha = (await forCampaign('campId=alpha')).body as Log[];
    expect(aAlpha.map((log) => log.callId)).toEqual(expectedIds(A_SPECS, { campId: 'alpha' }));
    expect(aAlpha.some((log) => log.callId === 'CB01')).toBe(false);
    expect(aAlpha.every((log) => log.fromNumber === '+14155550100')).toBe(true);
    expect(aAlpha.find((log) => log.callId === 'CA01')!.startedAt).toBe(iso(T0));
    expect(await idsOf(forUser())).toEqual(expectedIds(A_SPECS));

    // B asking for a campaign only A has: 404, by both paths
    for (const reply of [await forCampaign('campId=beta', b.token), await forUser('campId=beta', b.token)]) {
      expect(reply.status, reply.text).toBe(404);
      expect(reply.body).toEqual({ detail: 'Campaign not found' });
    }
  });

  it("does not take a callback signed with another account's token, nor store it under the other account", async () => {
    const b = await seedTwoAccounts();
    // B's key with A's auth token: refused, nothing stored for either account.
    const forged = await sendCallback(t, b.apiKey, 'alpha', { CallSid: 'CFORGED', CallStatus: 'completed' });
    expect(forged.status, forged.text).toBe(403);
    expect(await idsOf(forUser('', b.token))).toEqual(['CB01', 'CA01']);
    expect(await idsOf(forUser())).toEqual(expectedIds(A_SPECS));
  });
});
