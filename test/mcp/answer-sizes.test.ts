// Answers an agent can afford (docs/mcp.md, "Answer sizes"): a campaign_list row leaves out the long texts (they are
// read with campaign_get), so ten campaigns whose every text is at its maximum length, in 4-byte characters, answer
// under the documented bound; and tools/list stays under its own.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { loopbackGateways, mcpCampaignInput } from '../helpers/gateway.js';

const gateway = loopbackGateways();

/** A gateway on a loopback port and a client of its MCP door with a new account's token. */
async function mcpDoor() {
  const { t: app, url } = await gateway();
  const { token, id: accountId } = await app.account();
  const client = new Client({ name: 'answer-sizes-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  await client.listTools();
  return { client, app, accountId: accountId as string };
}

/** docs/mcp.md: a campaign_list answer (structured content and its text copy) is at most this per campaign. */
const CAMPAIGN_ROW_BOUND = 7_500;
/** docs/mcp.md: a call-log list row without its texts (structured content and its text copy), at most. */
const CALL_LOG_ROW_BOUND = 3_000;
/** docs/mcp.md: what tools/list answers a full token, at most. */
const TOOLS_LIST_BOUND = 100_000;

const longest = (length: number) => '😀'.repeat(length);

describe('MCP answer sizes', () => {
  it('ten campaigns with every text at its longest answer campaign_list under 10 × 7.5 KB', async () => {
    const { client } = await mcpDoor();
    const voices = await client.callTool({ name: 'voice_list', arguments: {} });
    const voiceId = (voices.structuredContent as { voices: Array<{ voiceId: string }> }).voices[0]?.voiceId;
    for (let index = 0; index < 10; index++) {
      const created = await client.callTool({
        name: 'campaign_create',
        arguments: {
          input: {
            campId: `${'c'.repeat(62)}${String(index).padStart(2, '0')}`,
            title: longest(200),
            voiceId,
            language: 'zh-Hant-TW',
            timeZone: 'America/Argentina/ComodRivadavia',
            script: longest(50_000),
            systemPrompt: longest(20_000),
            purpose: longest(5_000),
            description: longest(5_000),
            knowledgeBase: longest(2_000),
            calendar: longest(2_000),
            firstLine: longest(2_000),
            tone: longest(200),
            flowName: longest(200),
            sampleSid: longest(200),
            postCallAnalysisSchema: { type: 'object', description: longest(1_000) },
          },
        },
      });
      expect(created.isError, JSON.stringify(created.content).slice(0, 300)).toBeFalsy();
      // A write answers the campaign without its long texts too.
      expect(Buffer.byteLength(JSON.stringify(created))).toBeLessThan(2 * CAMPAIGN_ROW_BOUND);
    }
    const listed = await client.callTool({ name: 'campaign_list', arguments: { first: 10 } });
    const rows = (listed.structuredContent as any).campaigns.edges;
    expect(rows).toHaveLength(10);
    expect(rows[0].node).not.toHaveProperty('script');
    const bytes =
      Buffer.byteLength(JSON.stringify(listed.structuredContent)) + Buffer.byteLength(JSON.stringify(listed.content));
    expect(bytes).toBeLessThan(10 * CAMPAIGN_ROW_BOUND);
    // The texts are one campaign_get away.
    const campId = rows[0].node.campId as string;
    const one = await client.callTool({ name: 'campaign_get', arguments: { campId } });
    expect((one.structuredContent as any).campaign.script).toBe(longest(50_000));
  });

  it('a page of call logs with every text is refused past 2 MiB, saying to ask for fewer; without texts a row is small', async () => {
    const { client, app, accountId } = await mcpDoor();
    const voices = await client.callTool({ name: 'voice_list', arguments: {} });
    const voiceId = (voices.structuredContent as { voices: Array<{ voiceId: string }> }).voices[0]?.voiceId;
    const campaign = await client.callTool({
      name: 'campaign_create',
      arguments: { input: mcpCampaignInput({ campId: 'calls', voiceId }) },
    });
    expect(campaign.isError).toBeFalsy();
    // 40 ended calls, each with a 40 000-character transcript (160 KB in 4-byte characters): 6.4 MB of texts.
    const now = new Date().toISOString();
    await app.app.database.db
      .insertInto('call_logs')
      .values(
        Array.from({ length: 40 }, (_, index) => ({
          account_id: accountId,
          call_id: `CA${String(index).padStart(32, '0')}`,
          camp_id: 'calls',
          direction: 'outbound',
          from_number: '+14155550100',
          to_number: '+14155550101',
          status: 'completed',
          status_rank: 100,
          started_at: now,
          ended_at: now,
          duration_seconds: 60,
          cost: 0.25,
          recording_url: `https://recordings.example.com/${'r'.repeat(200)}`,
          transcript: longest(40_000),
          summary: longest(2_000),
          analysis: JSON.stringify({ outcome: 'booked' }),
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const all = await client.callTool({ name: 'call_log_list', arguments: { first: 40, withTexts: true } });
    expect(all.isError).toBe(true);
    expect(JSON.stringify(all.content)).toMatch(/over the 2 MiB a tool answers: ask for fewer items \(first\)/);
    const few = await client.callTool({ name: 'call_log_list', arguments: { first: 5, withTexts: true } });
    expect(few.isError, JSON.stringify(few.content).slice(0, 300)).toBeFalsy();
    expect((few.structuredContent as any).callLogs.edges).toHaveLength(5);
    const rows = await client.callTool({ name: 'call_log_list', arguments: { first: 40 } });
    expect((rows.structuredContent as any).callLogs.edges).toHaveLength(40);
    const bytes =
      Buffer.byteLength(JSON.stringify(rows.structuredContent)) + Buffer.byteLength(JSON.stringify(rows.content));
    expect(bytes).toBeLessThan(40 * CALL_LOG_ROW_BOUND);
  });

  it('tools/list stays under its documented bound, every tool described in a few sentences', async () => {
    const { client } = await mcpDoor();
    const listed = await client.listTools();
    expect(Buffer.byteLength(JSON.stringify(listed.tools))).toBeLessThan(TOOLS_LIST_BOUND);
    for (const tool of listed.tools) expect(tool.description?.length ?? 0, tool.name).toBeLessThan(400);
  });
});
