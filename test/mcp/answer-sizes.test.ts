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
/** docs/mcp.md: what tools/list answers a full token, at most (64 KiB: it is paid at every session). */
const TOOLS_LIST_BOUND = 64 * 1024;

const longest = (length: number) => '😀'.repeat(length);

/** docs/mcp.md: what a tool answer weighs at most by default, both copies of its data counted. */
const ANSWER_BUDGET = 64 * 1024;

/** What an answer weighs: its structured content and its text copy, as the wire carries them. */
const answerWeight = (answer: Record<string, unknown>) =>
  Buffer.byteLength(JSON.stringify({ structuredContent: answer.structuredContent, content: answer.content }));

/** A whole long text, read piece by piece with text_read. */
async function readWhole(client: Client, id: string, field: string): Promise<string> {
  let text = '';
  for (let offset = 0, calls = 0; calls < 100; calls++) {
    const piece = await client.callTool({ name: 'text_read', arguments: { id, field, offset } });
    expect(piece.isError, JSON.stringify(piece.content).slice(0, 300)).toBeFalsy();
    expect(answerWeight(piece)).toBeLessThanOrEqual(ANSWER_BUDGET);
    const { text: part, nextOffset, total } = piece.structuredContent as Record<string, any>;
    text += part;
    if (nextOffset >= total) return text;
    expect(nextOffset).toBeGreaterThan(offset);
    offset = nextOffset;
  }
  throw new Error('text_read never reached the end');
}

describe('MCP answer sizes', () => {
  it('ten campaigns with every text at its longest: rows of at most 7.5 KB, a page and a campaign_get within the budget', async () => {
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
    // Ten such rows weigh 73.6 KB: the page stops where the 64 KB budget does, and says the rest follows.
    const listed = await client.callTool({ name: 'campaign_list', arguments: { first: 10 } });
    expect(answerWeight(listed)).toBeLessThanOrEqual(ANSWER_BUDGET);
    const page = (listed.structuredContent as any).campaigns;
    expect(page.items.length).toBeGreaterThanOrEqual(7);
    expect(page.items.length).toBeLessThan(10);
    expect(page.hasMore).toBe(true);
    expect(page.items[0]).not.toHaveProperty('script');
    expect(page.items[0]).not.toHaveProperty('_mcpCursor');
    const rest = await client.callTool({
      name: 'campaign_list',
      arguments: { first: 10, after: page.nextCursor },
    });
    const seen = [...page.items, ...(rest.structuredContent as any).campaigns.items].map((item: any) => item.campId);
    expect(new Set(seen).size).toBe(10);
    // A whole campaign fits too: its long texts are cut, each with a marker, and text_read reads them in pieces.
    const campId = page.items[0].campId as string;
    const one = await client.callTool({ name: 'campaign_get', arguments: { campId } });
    expect(answerWeight(one)).toBeLessThanOrEqual(ANSWER_BUDGET);
    const script = (one.structuredContent as any).campaign.script as string;
    expect(script).toMatch(
      /…\[cut: \d+ of 100000 characters shown; read on with text_read \{"id":"c+\d+","field":"SCRIPT","offset":\d+\}\]$/,
    );
    expect(await readWhole(client, campId, 'SCRIPT')).toBe(longest(50_000));
  });

  it('a page of call logs with every text fits the budget: texts cut, then rows, and nothing is lost', async () => {
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
    const seen = new Set<string>();
    let after: string | undefined;
    for (let pages = 0; pages < 40; pages++) {
      const answer = await client.callTool({
        name: 'call_log_list',
        arguments: { first: 40, withTexts: true, ...(after ? { after } : {}) },
      });
      expect(answer.isError, JSON.stringify(answer.content).slice(0, 300)).toBeFalsy();
      expect(answerWeight(answer)).toBeLessThanOrEqual(ANSWER_BUDGET);
      const { items, hasMore, nextCursor } = (answer.structuredContent as any).callLogs;
      for (const item of items) {
        seen.add(item.callId);
        expect(item.transcript).toMatch(/…\[cut: \d+ of 80000 characters shown; read on with text_read/);
      }
      if (!hasMore) break;
      after = nextCursor;
    }
    expect(seen.size).toBe(40);
    expect(await readWhole(client, `CA${'0'.repeat(32)}`, 'TRANSCRIPT')).toBe(longest(40_000));
    // Without the texts a row is small: the whole page of 40 fits.
    const rows = await client.callTool({ name: 'call_log_list', arguments: { first: 40 } });
    expect((rows.structuredContent as any).callLogs.items).toHaveLength(40);
    expect(answerWeight(rows)).toBeLessThan(40 * CALL_LOG_ROW_BOUND);
  });

  it('text_read cuts on whole characters: never a lone surrogate, and every piece advances', async () => {
    const { client } = await mcpDoor();
    const script = `${'😀'.repeat(5)}ab😀`;
    const created = await client.callTool({
      name: 'campaign_create',
      arguments: { input: mcpCampaignInput({ campId: 'emoji', script }) },
    });
    expect(created.isError).toBeFalsy();
    const read = async (offset: number, length: number) =>
      (await client.callTool({ name: 'text_read', arguments: { id: 'emoji', field: 'SCRIPT', offset, length } }))
        .structuredContent as { text: string; offset: number; nextOffset: number; total: number };
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    // An offset inside a pair starts at the pair.
    expect(await read(1, 4)).toEqual({ text: '😀😀', offset: 0, nextOffset: 4, total: 14 });
    // `length: 1` at a pair answers the pair, so that it advances.
    expect(await read(2, 1)).toEqual({ text: '😀', offset: 2, nextOffset: 4, total: 14 });
    // An odd length never ends inside a pair.
    expect(await read(0, 3)).toEqual({ text: '😀', offset: 0, nextOffset: 2, total: 14 });
    // Piece by piece with `length: 1`, from every offset the last answer gave: the whole text, no lone surrogate.
    let text = '';
    for (let offset = 0, calls = 0; offset < script.length && calls < 20; calls++) {
      const piece = await read(offset, 1);
      expect(piece.text).not.toMatch(lone);
      expect(piece.nextOffset).toBeGreaterThan(offset);
      text += piece.text;
      offset = piece.nextOffset;
    }
    expect(text).toBe(script);
  });

  it('the budget is a setting; text_read refuses what its schema refuses and answers NOT_FOUND for another account', async () => {
    const { t: app, url } = await gateway({ MCP_ANSWER_MAX_KB: '16' });
    const { token } = await app.account();
    const client = new Client({ name: 'answer-sizes-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    const created = await client.callTool({
      name: 'campaign_create',
      arguments: { input: mcpCampaignInput({ campId: 'small', script: 'x'.repeat(40_000) }) },
    });
    expect(created.isError).toBeFalsy();
    const one = await client.callTool({ name: 'campaign_get', arguments: { campId: 'small' } });
    expect(answerWeight(one)).toBeLessThanOrEqual(16 * 1024);
    expect(await readWhole(client, 'small', 'SCRIPT')).toBe('x'.repeat(40_000));
    const bad = await client.callTool({ name: 'text_read', arguments: { id: 'small', field: 'script', offset: -1 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/field.*offset|offset.*field/);
    const missing = await client.callTool({ name: 'text_read', arguments: { id: 'nope', field: 'TRANSCRIPT' } });
    expect(JSON.stringify(missing.content)).toContain('NOT_FOUND');
    // Another account's campaign is as missing as one that does not exist.
    const other = await app.account();
    const stranger = new Client({ name: 'answer-sizes-test', version: '1.0.0' });
    await stranger.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${other.token}` } } }),
    );
    const foreign = await stranger.callTool({ name: 'text_read', arguments: { id: 'small', field: 'SCRIPT' } });
    expect(foreign.isError).toBe(true);
    expect(JSON.stringify(foreign.content)).toContain('NOT_FOUND');
    expect(JSON.stringify(foreign.content)).not.toContain('xxxx');
    // A call's field with a campaign's campId: said so, with the campaign's own texts, not "Call small not found".
    const crossed = await client.callTool({ name: 'text_read', arguments: { id: 'small', field: 'TRANSCRIPT' } });
    expect(crossed.isError).toBe(true);
    expect(JSON.stringify(crossed.content)).toMatch(/small is a campaign's campId, and TRANSCRIPT is a call's text/);
    expect(JSON.stringify(crossed.content)).toMatch(/a campaign's texts are [A-Z_, ]*SCRIPT/);
    // …and for another account the campaign is not there: plainly not found.
    const foreignCrossed = await stranger.callTool({
      name: 'text_read',
      arguments: { id: 'small', field: 'TRANSCRIPT' },
    });
    expect(JSON.stringify(foreignCrossed.content)).toContain('Call small not found');
    // Past the end: an empty piece that says the text is read.
    const past = await client.callTool({
      name: 'text_read',
      arguments: { id: 'small', field: 'SCRIPT', offset: 999_999 },
    });
    expect(past.structuredContent).toEqual({ text: '', offset: 40_000, nextOffset: 40_000, total: 40_000 });
    await stranger.close();
    await client.close();
  });

  it('tools/list stays under its documented bound, every tool described in a few sentences', async () => {
    const { client } = await mcpDoor();
    const listed = await client.listTools();
    expect(Buffer.byteLength(JSON.stringify(listed.tools))).toBeLessThan(TOOLS_LIST_BOUND);
    for (const tool of listed.tools) expect(tool.description?.length ?? 0, tool.name).toBeLessThan(400);
  });
});
