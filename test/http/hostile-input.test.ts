// Hostile input that must not stall the shared event loop nor answer 500 (docs/limits.md): tenant-supplied
// patterns run in linear time, lists have caps, JSON nesting has a cap on every door.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput, campaignModelData } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

let t: TestApp;
let user: Awaited<ReturnType<TestApp['account']>>;

beforeEach(async () => {
  t = await startApp();
  user = await t.account();
});
afterEach(() => t.close());

const json = { 'content-type': 'application/json' };
const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);

describe('post-call analysis patterns run in linear time', () => {
  const RECORD = /* GraphQL */ `
    mutation ($callId: String!, $analysis: JSON) {
      recordCallOutcome(callId: $callId, analysis: $analysis) {
        analysis
      }
    }
  `;

  async function campaignWithSchema(schema: Record<string, unknown>) {
    const upsert = await t.gql(
      `mutation ($data: CampaignDataInput!) { upsertCampaign(campId: "redos", data: $data) { campId } }`,
      { data: campaignInput({ postCallAnalysis: true, postCallAnalysisSchema: schema }) },
      user.token,
    );
    expect(upsert.body.errors).toBeUndefined();
    await connectTelephony(t, user.token);
    const callback = await sendCallback(t, user.apiKey, 'redos', { CallSid: 'CA1', CallStatus: 'completed' });
    expect(callback.status, callback.text).toBe(200);
  }

  test('a catastrophic-backtracking pattern answers in well under 100 ms, and /healthz stays fast meanwhile', async () => {
    await campaignWithSchema({ type: 'object', properties: { outcome: { type: 'string', pattern: '^(a+)+$' } } });
    const hostile = { outcome: `${'a'.repeat(29)}!` };
    await t.gql(RECORD, { callId: 'CA1', analysis: { outcome: 'aaa' } }, user.token); // compiles the schema once
    const started = performance.now();
    const [reply, health] = await Promise.all([
      t.gql(RECORD, { callId: 'CA1', analysis: hostile }, user.token),
      t.request('GET', '/healthz'),
    ]);
    const elapsed = performance.now() - started;
    expect(health.status, health.text).toBe(200);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(reply.body.errors?.[0]?.message).toMatch(/pattern/);
    expect(elapsed).toBeLessThan(100);
    // With 40 characters a backtracking engine would need hours; RE2 does not notice.
    const longer = await t.gql(RECORD, { callId: 'CA1', analysis: { outcome: `${'a'.repeat(40)}!` } }, user.token);
    expect(longer.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const fine = await t.gql(RECORD, { callId: 'CA1', analysis: { outcome: 'aaaa' } }, user.token);
    expect(fine.body.data.recordCallOutcome.analysis).toEqual({ outcome: 'aaaa' });
  });

  test('a pattern RE2 cannot run (backreference, lookahead) is refused when the campaign is saved, naming its path', async () => {
    for (const [schema, path] of [
      [
        { type: 'object', properties: { code: { type: 'string', pattern: '^(a)\\1$' } } },
        ['properties', 'code', 'pattern'],
      ],
      [{ type: 'object', patternProperties: { '^(?=x)': { type: 'string' } } }, ['patternProperties']],
    ] as const) {
      const upsert = await t.gql(
        `mutation ($data: CampaignDataInput!) { upsertCampaign(campId: "redos", data: $data) { campId } }`,
        { data: campaignInput({ postCallAnalysis: true, postCallAnalysisSchema: schema }) },
        user.token,
      );
      expect(upsert.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(upsert.body.errors?.[0]?.extensions?.issues[0].path).toEqual(['data', 'postCallAnalysisSchema', ...path]);
    }
  });

  test('a schema stored before that check is still refused at the call outcome, naming the schema path', async () => {
    await campaignWithSchema({ type: 'object' });
    // As a row written before save-time checking existed.
    const stored = { type: 'object', properties: { code: { type: 'string', pattern: '^(a)\\1$' } } };
    await t.app.database.db
      .updateTable('campaigns')
      .set({ post_call_analysis_schema: JSON.stringify(stored) })
      .where('camp_id', '=', 'redos')
      .execute();
    const reply = await t.gql(RECORD, { callId: 'CA1', analysis: { code: 'aa' } }, user.token);
    const error = reply.body.errors?.[0];
    expect(error?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error?.message).toContain('/properties/code/pattern');
  });
});

describe('list caps', () => {
  test('nodes(ids:) takes at most 100 ids: BAD_USER_INPUT beyond, quickly', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => Buffer.from(`Campaign:c${i}`).toString('base64'));
    const reply = await t.gql(`query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids }, user.token);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(reply.body.errors?.[0]?.message).toMatch(/at most 100/);
    const within = await t.gql(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
      { ids: ids.slice(0, 100) },
      user.token,
    );
    expect(within.body.errors).toBeUndefined();
    expect(within.body.data.nodes).toHaveLength(100);
  });

  test('33 000 ids in variables are refused before anything runs (400, BAD_USER_INPUT)', async () => {
    const ids = Array.from({ length: 33_000 }, (_, i) => `id${i}`);
    const started = performance.now();
    const reply = await t.gql(`query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids }, user.token);
    expect(performance.now() - started).toBeLessThan(500);
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors![0].extensions.code).toBe('BAD_USER_INPUT');
    // Past the count of keys and items in all (docs/limits.md), taken before the list's own length is looked at.
    expect(reply.body.errors![0].message).toMatch(/more than 10000 object keys and list items/);
    // A list of 1001, within that count, is refused for its length.
    const longList = await t.gql(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
      { ids: ids.slice(0, 1001) },
      user.token,
    );
    expect(longList.status, longList.text).toBe(400);
    expect(longList.body.errors![0].message).toMatch(/at most 1000/);
  });

  test('an inbound social delivery holds at most 1000 messages: 422 beyond, and nothing is stored', async () => {
    await t.rest('POST', '/update_campaign', {
      token: user.token,
      body: { campId: 'social', campaignModelData: campaignModelData() },
    });
    const connect = await t.rest('POST', '/add_social_info', {
      token: user.token,
      body: { pageId: 'p', accessToken: 'access-token-123', verifyToken: 'verify-token-123' },
    });
    expect(connect.status, connect.text).toBe(200);
    const messages = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ sender: { id: 's' }, message: { mid: `m${i}`, text: 'hi' } }));
    const path = `/social_webhook/${user.apiKey}/social`;
    const tooMany = await t.rest('POST', path, { body: { object: 'page', entry: [{ messaging: messages(15_000) }] } });
    expect(tooMany.status, tooMany.text).toBe(422);
    expect(JSON.stringify(tooMany.body)).toMatch(/at most 1000/);
    // Spread over many entries, the total still counts.
    const spread = Array.from({ length: 11 }, () => ({ messaging: messages(100) }));
    expect((await t.rest('POST', path, { body: { object: 'page', entry: spread } })).status).toBe(422);
    const list = await t.gql(
      `{ campaign(campId: "social") { socialMessages(first: 5) { edges { node { messageId } } } } }`,
      {},
      user.token,
    );
    expect(list.body.data.campaign.socialMessages.edges).toEqual([]);
    const fine = await t.rest('POST', path, { body: { object: 'page', entry: [{ messaging: messages(1000) }] } });
    expect(fine.status, fine.text).toBe(200);
    expect(fine.body).toEqual({ received: 1000 });
  });
});

describe('JSON nesting is capped at 64 levels on every door', () => {
  test('REST: 100 000 "[" and valid JSON 5 000 deep are 422s, not 500s', async () => {
    for (const raw of ['['.repeat(100_000), nested(5000), `{"campId":"a","campaignModelData":${nested(65)}}`]) {
      const reply = await t.rest('POST', '/update_campaign', { raw, token: user.token, headers: json });
      expect(reply.status, raw.slice(0, 20)).toBe(422);
      expect(reply.body.detail[0]).toMatchObject({
        type: 'json_invalid',
        ctx: { error: 'Nested deeper than 64 levels' },
      });
    }
    // Exactly 64 levels (body, campaignModelData, the schema, 61 lists) are still read.
    const ok = await t.rest('POST', '/update_campaign', {
      token: user.token,
      raw: JSON.stringify({
        campId: 'deep',
        campaignModelData: campaignModelData({ postCallAnalysisSchema: JSON.parse(`{"a":${nested(61)}}`) }),
      }),
      headers: json,
    });
    expect(ok.status, ok.text).toBe(200);
  });

  test('GraphQL: a body of 100 000 "[", deep variables and deep extensions are 400s', async () => {
    const bad = await t.request('POST', '/graphql', { raw: '['.repeat(100_000), token: user.token, headers: json });
    expect(bad.status, bad.text).toBe(400);
    const variables = await t.request('POST', '/graphql', {
      raw: `{"query":"query ($x: JSON) { __typename }","variables":{"x":${nested(5000)}}}`,
      token: user.token,
      headers: json,
    });
    expect(variables.status, variables.text).toBe(400);
    expect(variables.body.errors[0].message).toMatch(/nested deeper than 64 levels/);
    const extensions = await t.request('POST', '/graphql', {
      raw: `{"query":"{ __typename }","extensions":{"x":${nested(100)}}}`,
      headers: json,
    });
    expect(extensions.status, extensions.text).toBe(400);
    const get = await t.request(
      'GET',
      `/graphql?query=${encodeURIComponent('{ __typename }')}&variables=${encodeURIComponent(`{"x":${nested(100)}}`)}`,
      {
        headers: { accept: 'application/json' },
      },
    );
    expect(get.status, get.text).toBe(400);
  });

  test('GraphQL: a JSON scalar nested deeper than 64 levels is refused, in a literal and in a variable', async () => {
    const deepObject = (depth: number): string => (depth === 0 ? '1' : `{a: ${deepObject(depth - 1)}}`);
    const literal = await t.gql(
      `mutation { upsertCampaign(campId: "deep", data: { title: "T", voice: "en-US-aria", language: "en-US", script: "s", purpose: "p", knowledgeBase: "k", calendar: "c", firstLine: "f", tone: "t", postCallAnalysisSchema: ${deepObject(70)} }) { campId } }`,
      {},
      user.token,
    );
    expect(literal.status).toBeLessThan(500);
    expect(literal.body.errors![0].message).toMatch(/nested deeper than 64 levels/);
    const variable = await t.gql(
      `mutation ($data: CampaignDataInput!) { upsertCampaign(campId: "deep", data: $data) { campId } }`,
      { data: campaignInput({ postCallAnalysisSchema: JSON.parse(`{"a":${nested(70)}}`) }) },
      user.token,
    );
    expect(variable.status, variable.text).toBe(400);
    const fine = await t.gql(
      `mutation ($data: CampaignDataInput!) { upsertCampaign(campId: "deep", data: $data) { campId } }`,
      { data: campaignInput({ postCallAnalysisSchema: JSON.parse(`{"a":${nested(60)}}`) }) },
      user.token,
    );
    expect(fine.body.errors).toBeUndefined();
  });
});

describe('the compiled-schema cache', () => {
  test('a changed postCallAnalysisSchema takes effect at the next outcome (validators are keyed by the schema)', async () => {
    const RECORD = `mutation ($a: JSON) { recordCallOutcome(callId: "CA1", analysis: $a) { callId } }`;
    const UPSERT = `mutation ($data: CampaignDataInput!) { upsertCampaign(campId: "cached", data: $data) { campId } }`;
    const withPattern = (pattern: string) =>
      campaignInput({
        postCallAnalysis: true,
        postCallAnalysisSchema: { type: 'object', properties: { outcome: { type: 'string', pattern } } },
      });
    await t.gql(UPSERT, { data: withPattern('^booked$') }, user.token);
    await connectTelephony(t, user.token);
    expect((await sendCallback(t, user.apiKey, 'cached', { CallSid: 'CA1', CallStatus: 'completed' })).status).toBe(
      200,
    );
    expect((await t.gql(RECORD, { a: { outcome: 'booked' } }, user.token)).body.errors).toBeUndefined();
    expect((await t.gql(RECORD, { a: { outcome: 'declined' } }, user.token)).body.errors).toHaveLength(1);
    await t.gql(UPSERT, { data: withPattern('^declined$') }, user.token);
    expect((await t.gql(RECORD, { a: { outcome: 'declined' } }, user.token)).body.errors).toBeUndefined();
    expect((await t.gql(RECORD, { a: { outcome: 'booked' } }, user.token)).body.errors).toHaveLength(1);
  });
});
