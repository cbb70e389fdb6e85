// Lists read what they select (docs/performance.md; issue 52): a campaign list (campaigns, callLogList's sibling
// campaignList) reads a campaign's long texts (script, systemPrompt, postCallAnalysisSchema, purpose, description…)
// only when its query asks for them, and answers the same either way; MCP's campaign_list reads none of them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { gqlReading, longColumnsRead } from '../helpers/columns-read.js';
import { internalGql } from '../helpers/internal-graph.js';
import { closeMcpDoorsAfterEach, mcpDoor } from '../helpers/mcp-client.js';

const LONG_COLUMNS = [
  'script',
  'system_prompt',
  'post_call_analysis_schema',
  'purpose',
  'description',
  'knowledge_base',
  'first_line',
  'calendar',
];
const SCRIPT = 's'.repeat(50_000);

/** The long columns each campaign select read, one entry per statement. */
const textsRead = (t: TestApp) => longColumnsRead(t, 'campaigns', LONG_COLUMNS);

describe('GraphQL', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp({}, [], { worker: false });
    ({ token } = await t.account());
    for (const campId of ['a', 'b']) await createLegacyCampaign(t, token, campId, { script: SCRIPT });
  });
  afterAll(() => t.close());

  const run = (query: string, variables: Record<string, unknown> = {}) =>
    gqlReading(t, token, query, variables, textsRead);

  test('a page that selects no long text reads none, and answers as one that reads them all', async () => {
    const short = await run('{ campaigns(first: 10) { edges { node { id campId title status tone voiceId } } } }');
    expect(short.read).toEqual([[]]);
    const whole = await run(`{ campaigns(first: 10) { edges { node { id campId title status tone voiceId
      script systemPrompt postCallAnalysisSchema purpose description knowledgeBase firstLine calendar } } } }`);
    expect(whole.read.map((columns) => [...columns].sort())).toEqual([[...LONG_COLUMNS].sort()]);
    expect(whole.data.campaigns.edges[0].node.script).toBe(SCRIPT);
    expect(short.data.campaigns.edges).toEqual(
      whole.data.campaigns.edges.map(({ node }: { node: Record<string, unknown> }) => ({
        node: {
          id: node.id,
          campId: node.campId,
          title: node.title,
          status: node.status,
          tone: node.tone,
          voiceId: node.voiceId,
        },
      })),
    );
  });

  test.each([
    ['the field', '{ campaigns { edges { node { campId script } } } }', ['script']],
    ['an alias', '{ campaigns { edges { node { campId text: systemPrompt } } } }', ['system_prompt']],
    [
      'a named fragment',
      '{ campaigns { edges { node { ...Texts } } } } fragment Texts on Campaign { campId postCallAnalysisSchema }',
      ['post_call_analysis_schema'],
    ],
    [
      '@include(if: $on) with true',
      'query ($on: Boolean!) { campaigns { edges { node { campId script @include(if: $on) } } } }',
      ['script'],
    ],
    [
      '@include(if: $on) with false',
      'query ($on: Boolean = false) { campaigns { edges { node { campId script @include(if: $on) } } } }',
      [],
    ],
  ])('a long text asked through %s is read (only it)', async (_what, query, columns) => {
    const { data, read } = await run(query, { on: columns.length > 0 });
    expect(read).toEqual([columns]);
    const node = data.campaigns.edges[0].node;
    if (columns.includes('script')) expect(node.script).toBe(SCRIPT);
    if (columns.includes('system_prompt')) expect(node.text).toBe('');
    if (columns.includes('post_call_analysis_schema')) expect(node.postCallAnalysisSchema).toHaveProperty('type');
    if (columns.length === 0) expect(node).toEqual({ campId: 'b' });
  });

  test('campaignList (the internal graph) reads only the long texts it asks for, beyond the list-entry fields', async () => {
    t.resetQueries();
    const reply = await internalGql(t, '{ campaignList { campId tone script } }', {}, token);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.campaignList.map((c: { script: string }) => c.script)).toEqual([SCRIPT, SCRIPT]);
    expect(textsRead(t)).toEqual([['script']]);
  });

  test('one request asking for the same campaigns without and with their script answers both', async () => {
    const { data } = await run(`{
      short: campaigns { edges { node { campId } } }
      long: campaigns { edges { node { campId script } } }
      one: campaign(campId: "a") { script }
    }`);
    expect(data.short.edges.map((edge: any) => edge.node.campId)).toEqual(['b', 'a']);
    expect(data.long.edges.map((edge: any) => edge.node.script)).toEqual([SCRIPT, SCRIPT]);
    expect(data.one.script).toBe(SCRIPT);
  });
});

describe('MCP', () => {
  closeMcpDoorsAfterEach();

  test('campaign_list reads no long text; campaign_get still answers them', async () => {
    const { t, token, client } = await mcpDoor();
    await createLegacyCampaign(t, token, 'a', { script: SCRIPT });
    t.resetQueries();
    const list = await client.callTool({ name: 'campaign_list', arguments: {} });
    expect(list.isError).toBeFalsy();
    expect((list.structuredContent as any).campaigns.items[0].campId).toBe('a');
    expect(textsRead(t)).toEqual([[]]);
    const one = await client.callTool({ name: 'campaign_get', arguments: { campId: 'a' } });
    expect(one.isError).toBeFalsy();
    expect((one.structuredContent as any).campaign.script).toMatch(/^s+/);
  });
});
