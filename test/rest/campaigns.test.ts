// Legacy campaign paths (docs/decisions.md §5, §10; legacy-interface.md §2.1, §2.2, §4.1, §7):
// POST /update_campaign, GET /get_campaigns, GET /get_campaign, and the router's 404/405.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Detail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
}

let t: TestApp;
let token: string;

beforeEach(async () => {
  t = await startApp();
  ({ token } = await t.account());
});

afterEach(async () => {
  await t.close();
});

const update = (body: unknown, as = token) => t.rest('POST', '/update_campaign', { body, token: as });
const getCampaign = (campId: string, as = token) =>
  t.rest('GET', `/get_campaign?campId=${encodeURIComponent(campId)}`, { token: as });
const getCampaigns = (query = '', as = token) => t.rest('GET', `/get_campaigns${query}`, { token: as });

/** The detail[] entry at `loc`, failing the test when there is none. */
function entryAt(details: Detail[], loc: Array<string | number>): Detail {
  const found = details.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(found, `no detail entry at ${JSON.stringify(loc)} in ${JSON.stringify(details)}`).toBeDefined();
  return found as Detail;
}

async function expectNothingStored() {
  const list = await getCampaigns();
  expect(list.status, list.text).toBe(200);
  expect(list.body).toEqual([]);
}

describe('POST /update_campaign', () => {
  it('creates the campaign and answers the stored campaign with every default filled and metrics 0', async () => {
    const data = campaignModelData();
    const res = await update({ campId: 'spring-2024', campaignModelData: data });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({
      campId: 'spring-2024',
      status: 'active',
      creationDate: expect.stringMatching(ISO_UTC),
      updatedAt: expect.stringMatching(ISO_UTC),
      title: data.title,
      voice: 'en-US-aria',
      language: 'en-US',
      script: data.script,
      purpose: data.purpose,
      knowledgeBase: data.knowledgeBase,
      calendar: data.calendar,
      firstLine: data.firstLine,
      tone: data.tone,
      postCallAnalysisSchema: data.postCallAnalysisSchema,
      flowName: '',
      systemPrompt: '',
      maxCallTimeout: 1,
      inactiveCallTimeout: 15,
      postCallAnalysis: false,
      timeZone: 'UTC',
      isFreeflow: true,
      public: false,
      sampleSid: '',
      description: '',
      totalCallTime: 0,
      totalNumCall: 0,
      totalSpent: 0,
      averageCallCost: 0,
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.creationDate));

    const stored = await getCampaign('spring-2024');
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body).toEqual(res.body);
  });

  it('replaces the whole campaign on a second call: omitted optional fields return to their defaults', async () => {
    const first = await update({
      campId: 'replace-me',
      campaignModelData: campaignModelData({
        title: 'First title',
        description: 'Calls our best customers',
        maxCallTimeout: 30,
        inactiveCallTimeout: 120,
        timeZone: 'Europe/Paris',
        isFreeflow: false,
        postCallAnalysis: true,
        public: true,
        flowName: 'main-flow',
        systemPrompt: 'Be brief.',
        sampleSid: 'SID123',
      }),
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      title: 'First title',
      description: 'Calls our best customers',
      maxCallTimeout: 30,
      inactiveCallTimeout: 120,
      timeZone: 'Europe/Paris',
      isFreeflow: false,
      postCallAnalysis: true,
      public: true,
      flowName: 'main-flow',
      systemPrompt: 'Be brief.',
      sampleSid: 'SID123',
    });

    await sleep(5);
    const second = await update({
      campId: 'replace-me',
      campaignModelData: campaignModelData({
        title: 'Second title',
        voice: 'en-US-aria',
        tone: 'calm',
        postCallAnalysisSchema: { type: 'object' },
      }),
    });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({
      campId: 'replace-me',
      status: 'active',
      title: 'Second title',
      tone: 'calm',
      postCallAnalysisSchema: { type: 'object' },
      description: '',
      maxCallTimeout: 1,
      inactiveCallTimeout: 15,
      timeZone: 'UTC',
      isFreeflow: true,
      postCallAnalysis: false,
      public: false,
      flowName: '',
      systemPrompt: '',
      sampleSid: '',
    });
    expect(second.body.creationDate).toBe(first.body.creationDate);
    expect(second.body.updatedAt).toMatch(ISO_UTC);
    expect(Date.parse(second.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(second.body.creationDate));
    expect(Date.parse(second.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.body.updatedAt));

    const stored = await getCampaign('replace-me');
    expect(stored.body).toEqual(second.body);
    const list = await getCampaigns();
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ campaignId: 'replace-me', name: 'Second title', details: null });
  });

  it('ignores client-sent metrics: they are derived from call logs', async () => {
    const res = await update({
      campId: 'metrics',
      campaignModelData: campaignModelData({
        totalCallTime: 3600,
        totalNumCall: 42,
        totalSpent: 999,
        averageCallCost: 23.5,
      }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ totalCallTime: 0, totalNumCall: 0, totalSpent: 0, averageCallCost: 0 });

    const stored = await getCampaign('metrics');
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body).toMatchObject({ totalCallTime: 0, totalNumCall: 0, totalSpent: 0, averageCallCost: 0 });
  });

  it('coerces leniently: numeric strings for numbers, "true"/"false" for booleans', async () => {
    const res = await update({
      campId: 'lenient',
      campaignModelData: campaignModelData({
        maxCallTimeout: '5',
        inactiveCallTimeout: '30',
        isFreeflow: 'false',
        postCallAnalysis: 'true',
        public: 'true',
        totalSpent: '999',
      }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      maxCallTimeout: 5,
      inactiveCallTimeout: 30,
      isFreeflow: false,
      postCallAnalysis: true,
      public: true,
      totalSpent: 0,
    });
    const stored = await getCampaign('lenient');
    expect(stored.body.maxCallTimeout).toBe(5);
    expect(stored.body.inactiveCallTimeout).toBe(30);
    expect(stored.body.isFreeflow).toBe(false);
    expect(stored.body.postCallAnalysis).toBe(true);
    expect(stored.body.public).toBe(true);
  });

  it('reports every problem of the body at once, each with its loc, type, msg and input', async () => {
    const data = campaignModelData({
      maxCallTimeout: 121,
      inactiveCallTimeout: 601,
      language: 'english',
      timeZone: 'Mars/Base',
      voice: 'nope',
    });
    delete data.title;
    delete data.tone;
    delete data.totalSpent;

    const res = await update({ campId: 'bad', campaignModelData: data });
    expect(res.status, res.text).toBe(422);
    const details = res.body.detail as Detail[];
    expect(Array.isArray(details)).toBe(true);
    for (const d of details) {
      expect(Object.keys(d)).toEqual(expect.arrayContaining(['type', 'loc', 'msg', 'input']));
      expect(typeof d.msg).toBe('string');
    }

    const field = (name: string) => ['body', 'campaignModelData', name];
    expect(details.map((d) => JSON.stringify(d.loc)).sort()).toEqual(
      ['title', 'tone', 'totalSpent', 'maxCallTimeout', 'inactiveCallTimeout', 'language', 'timeZone', 'voice']
        .map((name) => JSON.stringify(field(name)))
        .sort(),
    );

    for (const name of ['title', 'tone', 'totalSpent']) {
      const missing = entryAt(details, field(name));
      expect(missing.type).toBe('missing');
      expect(missing.msg).toBe('Field required');
      // pydantic reports the object the field is missing from.
      expect(missing.input).toEqual(data);
    }

    const tooLong = entryAt(details, field('maxCallTimeout'));
    expect(tooLong).toMatchObject({
      type: 'less_than_equal',
      msg: 'Input should be less than or equal to 120',
      input: 121,
    });
    const tooInactive = entryAt(details, field('inactiveCallTimeout'));
    expect(tooInactive).toMatchObject({
      type: 'less_than_equal',
      msg: 'Input should be less than or equal to 600',
      input: 601,
    });

    for (const [name, input] of [
      ['language', 'english'],
      ['timeZone', 'Mars/Base'],
      ['voice', 'nope'],
    ] as const) {
      const entry = entryAt(details, field(name));
      expect(entry.type).toBe('value_error');
      expect(entry.msg.startsWith('Value error, ')).toBe(true);
      expect(entry.msg.length).toBeGreaterThan('Value error, '.length);
      expect(entry.input).toBe(input);
    }

    await expectNothingStored();
  });

  it('rejects maxCallTimeout 0 (greater_than_equal) and "abc" (int_parsing)', async () => {
    const zero = await update({ campId: 'zero', campaignModelData: campaignModelData({ maxCallTimeout: 0 }) });
    expect(zero.status, zero.text).toBe(422);
    expect(zero.body.detail).toHaveLength(1);
    expect(zero.body.detail[0]).toMatchObject({
      type: 'greater_than_equal',
      loc: ['body', 'campaignModelData', 'maxCallTimeout'],
      msg: 'Input should be greater than or equal to 1',
      input: 0,
    });

    const abc = await update({ campId: 'abc', campaignModelData: campaignModelData({ maxCallTimeout: 'abc' }) });
    expect(abc.status, abc.text).toBe(422);
    expect(abc.body.detail).toHaveLength(1);
    expect(abc.body.detail[0]).toMatchObject({
      type: 'int_parsing',
      loc: ['body', 'campaignModelData', 'maxCallTimeout'],
      msg: 'Input should be a valid integer, unable to parse string as an integer',
      input: 'abc',
    });

    await expectNothingStored();
  });

  it('requires campId', async () => {
    const res = await update({ campaignModelData: campaignModelData() });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'campId'], msg: 'Field required' });
    await expectNothingStored();
  });

  it.each([
    ['a space', 'has space'],
    ['65 characters', 'x'.repeat(65)],
    ['an empty string', ''],
  ])('rejects a campId with %s at loc ["body","campId"]', async (_label, campId) => {
    const res = await update({ campId, campaignModelData: campaignModelData() });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0].loc).toEqual(['body', 'campId']);
    expect(res.body.detail[0].input).toBe(campId);
    await expectNothingStored();
  });

  it('accepts a campId of exactly 64 allowed characters', async () => {
    const campId = `A-z_0${'9'.repeat(59)}`;
    expect(campId).toHaveLength(64);
    const res = await update({ campId, campaignModelData: campaignModelData() });
    expect(res.status, res.text).toBe(200);
    expect(res.body.campId).toBe(campId);
  });

  it('rejects a campaignModelData that is not an object', async () => {
    const res = await update({ campId: 'x', campaignModelData: 'not an object' });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    const [entry] = res.body.detail as Detail[];
    expect(entry?.loc).toEqual(['body', 'campaignModelData']);
    expect(['dict_type', 'model_attributes_type']).toContain(entry?.type);
    expect(entry?.input).toBe('not an object');
    await expectNothingStored();
  });

  it('rejects a postCallAnalysisSchema that is an array (dict_type)', async () => {
    const res = await update({
      campId: 'x',
      campaignModelData: campaignModelData({ postCallAnalysisSchema: [1, 2] }),
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0]).toMatchObject({
      type: 'dict_type',
      loc: ['body', 'campaignModelData', 'postCallAnalysisSchema'],
      msg: 'Input should be a valid dictionary',
      input: [1, 2],
    });
    await expectNothingStored();
  });

  it('answers broken JSON with json_invalid at ["body", <position>]', async () => {
    const raw = '{"campId": "x", "campaignModelData": {';
    const res = await t.rest('POST', '/update_campaign', {
      raw,
      headers: { 'content-type': 'application/json' },
      token,
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    const [entry] = res.body.detail as Detail[];
    expect(entry?.type).toBe('json_invalid');
    expect(entry?.loc).toHaveLength(2);
    expect(entry?.loc[0]).toBe('body');
    expect(Number.isInteger(entry?.loc[1])).toBe(true);
    expect(entry?.loc[1] as number).toBeGreaterThanOrEqual(0);
    expect(entry?.loc[1] as number).toBeLessThanOrEqual(raw.length);
    await expectNothingStored();
  });

  it('puts the position where parsing failed in the json_invalid loc, as FastAPI does', async () => {
    // Python's json.loads fails here at position 37 (the "}" where a value is expected); FastAPI reports that.
    const raw = '{"campId": "x", "campaignModelData": }';
    const res = await t.rest('POST', '/update_campaign', {
      raw,
      headers: { 'content-type': 'application/json' },
      token,
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body', 37] });
  });

  it('rejects a body that is a JSON array at loc ["body"]', async () => {
    const res = await update([{ campId: 'x', campaignModelData: campaignModelData() }]);
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0].loc).toEqual(['body']);
    await expectNothingStored();
  });

  it('requires a bearer token, checked before the body', async () => {
    const res = await t.rest('POST', '/update_campaign', { body: { nonsense: true } });
    expect(res.status, res.text).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
    await expectNothingStored();
  });

  it('refuses to replace a completed campaign (409)', async () => {
    const created = await update({ campId: 'done', campaignModelData: campaignModelData({ title: 'Original' }) });
    expect(created.status, created.text).toBe(200);

    const completed = await t.gql('mutation { completeCampaign(campId: "done") { status } }', {}, token);
    expect(completed.body.errors).toBeUndefined();
    expect(completed.body.data).toEqual({ completeCampaign: { status: 'COMPLETED' } });

    const res = await update({ campId: 'done', campaignModelData: campaignModelData({ title: 'Changed' }) });
    expect(res.status, res.text).toBe(409);
    expect(res.body).toEqual({ detail: expect.stringMatching(/completed/i) });

    const stored = await getCampaign('done');
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body).toMatchObject({ status: 'completed', title: 'Original' });
  });
});

describe('GET /get_campaigns', () => {
  it('is an empty bare array for a new account', async () => {
    const res = await getCampaigns();
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('lists list entries, newest first, and pages with limit/offset', async () => {
    const created: Array<{ campId: string; creationDate: string }> = [];
    for (const [campId, title, description] of [
      ['c1', 'First', ''],
      ['c2', 'Second', 'The second one'],
      ['c3', 'Third', ''],
    ] as const) {
      const res = await update({ campId, campaignModelData: campaignModelData({ title, description }) });
      expect(res.status, res.text).toBe(200);
      created.push({ campId, creationDate: res.body.creationDate });
      await sleep(5);
    }

    const res = await getCampaigns();
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([
      { campaignId: 'c3', name: 'Third', status: 'active', creationDate: created[2]?.creationDate, details: null },
      {
        campaignId: 'c2',
        name: 'Second',
        status: 'active',
        creationDate: created[1]?.creationDate,
        details: 'The second one',
      },
      { campaignId: 'c1', name: 'First', status: 'active', creationDate: created[0]?.creationDate, details: null },
    ]);
    for (const entry of res.body) {
      expect(Object.keys(entry).sort()).toEqual(['campaignId', 'creationDate', 'details', 'name', 'status']);
      expect(entry.creationDate).toMatch(ISO_UTC);
    }

    const page = await getCampaigns('?limit=2&offset=1');
    expect(page.status, page.text).toBe(200);
    expect(page.body.map((e: { campaignId: string }) => e.campaignId)).toEqual(['c2', 'c1']);

    const first = await getCampaigns('?limit=1');
    expect(first.body.map((e: { campaignId: string }) => e.campaignId)).toEqual(['c3']);

    const past = await getCampaigns('?offset=3');
    expect(past.status, past.text).toBe(200);
    expect(past.body).toEqual([]);
  });

  it('shows the status of a completed campaign in lower case', async () => {
    await update({ campId: 'c1', campaignModelData: campaignModelData() });
    await t.gql('mutation { completeCampaign(campId: "c1") { status } }', {}, token);
    const res = await getCampaigns();
    expect(res.body[0]).toMatchObject({ campaignId: 'c1', status: 'completed' });
  });

  it.each([
    ['0', 'greater_than_equal'],
    ['abc', 'int_parsing'],
  ])('rejects limit=%s at loc ["query","limit"]', async (limit, type) => {
    const res = await getCampaigns(`?limit=${limit}`);
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    // As in FastAPI, a query parameter's input is the raw string.
    expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type, input: limit });
  });

  it('needs a bearer token', async () => {
    const res = await t.rest('GET', '/get_campaigns');
    expect(res.status, res.text).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });
});

describe('GET /get_campaign', () => {
  it('answers the full campaign', async () => {
    const created = await update({
      campId: 'full',
      campaignModelData: campaignModelData({ description: 'desc', maxCallTimeout: 10 }),
    });
    const res = await getCampaign('full');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(created.body);
    expect(Object.keys(res.body)).toHaveLength(28);
  });

  it('answers 404 {"detail":"Campaign not found"} for an unknown campId', async () => {
    const res = await getCampaign('does-not-exist');
    expect(res.status, res.text).toBe(404);
    expect(res.body).toEqual({ detail: 'Campaign not found' });
  });

  it('answers 422 when campId is missing', async () => {
    const res = await t.rest('GET', '/get_campaign', { token });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0]).toMatchObject({
      type: 'missing',
      loc: ['query', 'campId'],
      msg: 'Field required',
      input: null,
    });
  });
});

describe('tenant isolation', () => {
  it('keeps campaigns of two accounts with the same campId apart', async () => {
    const b = await t.account();

    const mine = await update({ campId: 'shared', campaignModelData: campaignModelData({ title: 'Title of A' }) });
    expect(mine.status, mine.text).toBe(200);
    const theirs = await update(
      { campId: 'shared', campaignModelData: campaignModelData({ title: 'Title of B' }) },
      b.token,
    );
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.title).toBe('Title of B');
    const onlyMine = await update({ campId: 'only-a', campaignModelData: campaignModelData({ title: 'A only' }) });
    expect(onlyMine.status, onlyMine.text).toBe(200);

    const a1 = await getCampaign('shared');
    expect(a1.body.title).toBe('Title of A');
    const b1 = await getCampaign('shared', b.token);
    expect(b1.body.title).toBe('Title of B');

    const aList = await getCampaigns();
    expect(aList.body.map((e: { campaignId: string; name: string }) => [e.campaignId, e.name])).toEqual([
      ['only-a', 'A only'],
      ['shared', 'Title of A'],
    ]);
    const bList = await getCampaigns('', b.token);
    expect(bList.body.map((e: { campaignId: string; name: string }) => [e.campaignId, e.name])).toEqual([
      ['shared', 'Title of B'],
    ]);

    const hidden = await getCampaign('only-a', b.token);
    expect(hidden.status, hidden.text).toBe(404);
    expect(hidden.body).toEqual({ detail: 'Campaign not found' });

    // B replacing its own "shared" leaves A's untouched.
    await update({ campId: 'shared', campaignModelData: campaignModelData({ title: 'B again' }) }, b.token);
    expect((await getCampaign('shared')).body.title).toBe('Title of A');

    // B cannot complete A's campaign.
    const complete = await t.gql('mutation { completeCampaign(campId: "only-a") { status } }', {}, b.token);
    expect(complete.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await getCampaign('only-a')).body.status).toBe('active');
  });
});

describe('router', () => {
  it('answers 404 {"detail":"Not Found"} for an unknown path', async () => {
    const res = await t.rest('GET', '/nope', { token });
    expect(res.status, res.text).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
  });

  it('answers 405 for a known path with the wrong method', async () => {
    const res = await t.rest('DELETE', '/get_campaigns', { token });
    expect(res.status, res.text).toBe(405);
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
    expect(res.headers.get('allow')).toContain('GET');
  });
});

describe('POST /update_campaign: the status a new campaign is created in', () => {
  it('is active without `status` (as before), paused with status "paused", and an existing campaign keeps its own', async () => {
    const plain = await update({ campId: 'plain', campaignModelData: campaignModelData() });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body.status).toBe('active');
    const quiet = await update({ campId: 'quiet', status: 'paused', campaignModelData: campaignModelData() });
    expect(quiet.status, quiet.text).toBe(200);
    expect(quiet.body.status).toBe('paused');
    expect((await getCampaign('quiet')).body.status).toBe('paused');
    // Replacing the fields of an existing campaign leaves its status alone.
    const replaced = await update({ campId: 'quiet', status: 'active', campaignModelData: campaignModelData() });
    expect(replaced.body.status).toBe('paused');
    const bad = await update({ campId: 'x', status: 'completed', campaignModelData: campaignModelData() });
    expect(bad.status).toBe(422);
    entryAt((bad.body as { detail: Detail[] }).detail, ['body', 'status']);
  });
});
