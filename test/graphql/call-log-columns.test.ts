// Lists read what they select (docs/performance.md; issue 52): a call-log list reads a call's long texts (transcript,
// summary, analysis) only when its query asks for them — through fragments, aliases and @include/@skip — and answers
// the same either way, on every door (GraphQL, the REST door's callLogList, MCP's call_log_list).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { gqlReading, longColumnsRead, seedCallLogs, seededCallId } from '../helpers/columns-read.js';
import { internalGql } from '../helpers/internal-graph.js';
import { mcpDoor, closeMcpDoorsAfterEach } from '../helpers/mcp-client.js';

/** 20 calls, each with a 150 000-character transcript: 3 MB of text a list must not read when not asked (and within
 * the 4 Mi characters of long text one answer may hold, MAX_ANSWER_TEXT_CHARACTERS, with one more transcript). */
const CALLS = 20;
const TRANSCRIPT_LENGTH = 150_000;
const transcriptOf = (index: number) => String.fromCharCode(65 + index).repeat(TRANSCRIPT_LENGTH);
const summaryOf = (index: number) => `Summary ${index}`;
const callIdOf = seededCallId;
const textsOf = (index: number) => ({
  transcript: transcriptOf(index),
  summary: summaryOf(index),
  analysis: JSON.stringify({ index }),
});

/** The texts each call-log select read, one entry per statement. */
const textsRead = (t: TestApp) => longColumnsRead(t, 'call_logs', ['transcript', 'summary', 'analysis']);

/** A connection's nodes. */
const nodesOf = (connection: { edges: { node: any }[] }) => connection.edges.map((edge) => edge.node);

describe('GraphQL', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp({}, [], { worker: false });
    const account = await t.account();
    token = account.token;
    await createLegacyCampaign(t, token, 'calls');
    await seedCallLogs(t, account.id, CALLS, textsOf);
  });
  afterAll(() => t.close());

  /** The query's data (no errors), and the texts its call-log selects read. */
  const run = (query: string, variables: Record<string, unknown> = {}) =>
    gqlReading(t, token, query, variables, textsRead);

  test.each([
    ['callLogs', '{ callLogs(first: 100) { edges { node { callId status cost } } pageInfo { hasNextPage } } }'],
    [
      'Campaign.callLogs',
      '{ campaign(campId: "calls") { callLogs(first: 100) { edges { node { callId startedAt } } } } }',
    ],
    [
      'a fragment without texts',
      '{ callLogs(first: 100) { edges { node { ...Short } } } } fragment Short on CallLog { callId }',
    ],
    [
      '@include(if: false)',
      'query ($t: Boolean = false) { callLogs(first: 100) { edges { node { callId transcript @include(if: $t) } } } }',
    ],
    [
      '@skip(if: true)',
      '{ callLogs(first: 100) { edges { node { callId summary @skip(if: true) transcript @skip(if: true) } } } }',
    ],
  ])('%s selecting no text reads no text column', async (_what, query) => {
    const { read } = await run(query);
    expect(read).toEqual([[]]);
  });

  test('callLogList (the REST door’s field) selecting no text reads none either', async () => {
    t.resetQueries();
    const reply = await internalGql(t, '{ callLogList(limit: 100) { callId status } }', {}, token);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.callLogList).toHaveLength(CALLS);
    expect(textsRead(t)).toEqual([[]]);
  });

  test('a list of 20 calls with 400 000-character transcripts answers quickly when it selects no text', async () => {
    const query = '{ callLogs(first: 100) { edges { node { callId } } } }';
    const timings: number[] = [];
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      const reply = await t.gql(query, {}, token);
      timings.push(performance.now() - started);
      expect(reply.body.data?.callLogs.edges).toHaveLength(CALLS);
      expect(reply.text.length).toBeLessThan(5_000);
    }
    // Reading the transcripts took 100-700 ms; without them the page is a few milliseconds (the best of five runs,
    // so that a busy machine does not fail the test).
    expect(Math.min(...timings)).toBeLessThan(100);
  });

  test.each([
    [
      'the field',
      '{ callLogs(first: 100) { edges { node { callId transcript summary } } } }',
      ['transcript', 'summary'],
    ],
    ['an alias', '{ callLogs(first: 100) { edges { node { callId text: transcript } } } }', ['transcript']],
    [
      'a named fragment',
      '{ callLogs(first: 100) { edges { node { callId ...Texts } } } } fragment Texts on CallLog { transcript }',
      ['transcript'],
    ],
    [
      'an inline fragment',
      '{ callLogs(first: 100) { edges { node { callId ... on CallLog { summary } } } } }',
      ['summary'],
    ],
    [
      '@include(if: $withTexts) with true',
      'query ($withTexts: Boolean = false) { callLogs(first: 100) { edges { node { callId transcript @include(if: $withTexts) } } } }',
      ['transcript'],
    ],
    [
      'a fragment spread under @include(if: true)',
      '{ callLogs(first: 100) { edges { node { callId ...Texts @include(if: true) } } } } fragment Texts on CallLog { transcript }',
      ['transcript'],
    ],
    ['analysis', '{ callLogs(first: 100) { edges { node { callId analysis } } } }', ['analysis']],
  ])('a text asked through %s is read and answered', async (_what, query, texts) => {
    const { data, read } = await run(query, { withTexts: true });
    expect(read).toEqual([texts]);
    const nodes = nodesOf(data.callLogs);
    expect(nodes).toHaveLength(CALLS);
    const index = Number(nodes[0].callId.slice(2));
    if (texts.includes('transcript')) expect(nodes[0].transcript ?? nodes[0].text).toBe(transcriptOf(index));
    if (texts.includes('summary')) expect(nodes[0].summary).toBe(summaryOf(index));
    if (texts.includes('analysis')) expect(nodes[0].analysis).toEqual({ index });
  });

  test('one request asking for the same calls without and with their transcript answers both correctly', async () => {
    const id = Buffer.from(`CallLog:${callIdOf(3)}`).toString('base64');
    const { data } = await run(`{
      short: callLogs(first: 100) { edges { node { callId } } }
      long: callLogs(first: 100) { edges { node { callId transcript } } }
      campaign(campId: "calls") { callLogs(first: 100) { edges { node { callId summary } } } }
      one: node(id: "${id}") { ... on CallLog { callId transcript } }
    }`);
    expect(nodesOf(data.short).map((node: { callId: string }) => node.callId)).toEqual(
      nodesOf(data.long).map((node: { callId: string }) => node.callId),
    );
    for (const node of nodesOf(data.long)) expect(node.transcript).toBe(transcriptOf(Number(node.callId.slice(2))));
    for (const node of nodesOf(data.campaign.callLogs))
      expect(node.summary).toBe(summaryOf(Number(node.callId.slice(2))));
    expect(data.one).toEqual({ callId: callIdOf(3), transcript: transcriptOf(3) });
  });

  test('a fragment spread in two places, merged with a text in one only, reads the text there only', async () => {
    const query = `query ($t: Boolean!) {
      a: campaign(campId: "calls") { ...Logs callLogs(first: 100) { edges { node { transcript @include(if: $t) } } } }
      b: campaign(campId: "calls") { ...Logs }
    }
    fragment Logs on Campaign { callLogs(first: 100) { edges { node { callId } } } }`;
    for (const withText of [true, false, true]) {
      const { data, read } = await run(query, { t: withText });
      expect(read.sort()).toEqual(withText ? [[], ['transcript']] : [[], []]);
      expect(nodesOf(data.a.callLogs)[0].transcript).toBe(withText ? transcriptOf(CALLS - 1) : undefined);
      expect(nodesOf(data.b.callLogs)[0]).toEqual({ callId: callIdOf(CALLS - 1) });
    }
  });

  test('the REST door’s call-log lists still answer every text', async () => {
    t.resetQueries();
    const reply = await t.rest('GET', '/get_call_logs_for_campaign?campId=calls&limit=2', { token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body[0]).toMatchObject({
      callId: callIdOf(CALLS - 1),
      transcript: transcriptOf(CALLS - 1),
      summary: summaryOf(CALLS - 1),
      analysis: { index: CALLS - 1 },
    });
    expect(textsRead(t)).toEqual([['transcript', 'summary', 'analysis']]);
  });
});

describe('MCP', () => {
  closeMcpDoorsAfterEach();

  test('call_log_list reads the texts only with withTexts', async () => {
    const { t, token, client } = await mcpDoor();
    await createLegacyCampaign(t, token, 'calls');
    // The gateway's one account: the one mcpDoor signed up.
    const { id } = await t.app.database.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
    await seedCallLogs(t, id, CALLS, textsOf);
    t.resetQueries();
    const short = await client.callTool({ name: 'call_log_list', arguments: { first: 5 } });
    expect(short.isError).toBeFalsy();
    expect((short.structuredContent as any).callLogs.items[0]).not.toHaveProperty('transcript');
    expect(textsRead(t)).toEqual([[]]);
    t.resetQueries();
    const long = await client.callTool({ name: 'call_log_list', arguments: { first: 1, withTexts: true } });
    expect(long.isError).toBeFalsy();
    expect((long.structuredContent as any).callLogs.items[0].summary).toBe(summaryOf(CALLS - 1));
    expect(textsRead(t)).toEqual([['transcript', 'summary', 'analysis']]);
  });
});
