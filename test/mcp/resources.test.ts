// Resource templates (issue 53; docs/mcp.md "Resources"): a campaign, a call and a call's transcript of the caller's
// own, read through the public graph (another account's is not found), each answer within the budget on the wire, a
// transcript in pieces that advance on whole characters; their ids completed from the caller's own records; and the
// cache hints of the 2026-07-28 revision (the schema may be kept, the account's data not).
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { seedCallLogs, seededCallId } from '../helpers/columns-read.js';
import { loopbackGateways, mcpCampaignInput } from '../helpers/gateway.js';
import { legacyMcpClient } from '../helpers/mcp-client.js';

const gateway = loopbackGateways();

const agentOf = (url: URL, token: string) => legacyMcpClient(url, token, 'resources-test');

/** One raw JSON-RPC POST to /mcp of the 2025 family (no handshake needed: the stateless fallback answers it). */
async function rawRead(url: URL, token: string, uri: string, id: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri } }),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, bytes: bytes.length, text: new TextDecoder().decode(bytes) };
}

/** An account with campaign `calls` and one call (CA0000) whose transcript is `transcript`. */
async function accountWithCall(t: Awaited<ReturnType<ReturnType<typeof loopbackGateways>>>['t'], transcript: string) {
  const account = await t.account();
  const created = await t.gql(
    'mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { campId } } }',
    { input: { ...mcpCampaignInput({ campId: 'calls' }) } },
    account.token,
  );
  expect(created.body.errors, JSON.stringify(created.body.errors)).toBeUndefined();
  await seedCallLogs(t, account.id, 1, () => ({ transcript, summary: 'They agreed.', analysis: null }));
  return account;
}

const textOf = (content: object | undefined) => String((content as { text?: unknown } | undefined)?.text ?? '');

describe('resource templates', () => {
  it("lists a campaign, a call and a call's transcript, and reads each of the caller's own", async () => {
    const { t, url } = await gateway();
    const account = await accountWithCall(t, 'Hello, this is the clinic.');
    const client = await agentOf(url, account.token);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'campaign-gateway://campaigns/{campId}',
      'campaign-gateway://calls/{callId}',
      'campaign-gateway://calls/{callId}/transcript{?offset}',
    ]);
    for (const template of resourceTemplates) expect(template.title, template.name).toMatch(/^A /);
    // Small in every conversation that lists them.
    expect(Buffer.byteLength(JSON.stringify(resourceTemplates))).toBeLessThan(2 * 1024);

    const campaign = await client.readResource({ uri: 'campaign-gateway://campaigns/calls' });
    expect(campaign.contents[0]).toMatchObject({
      uri: 'campaign-gateway://campaigns/calls',
      mimeType: 'application/json',
    });
    expect(JSON.parse(textOf(campaign.contents[0]))).toMatchObject({ campId: 'calls', title: expect.any(String) });

    const call = await client.readResource({ uri: `campaign-gateway://calls/${seededCallId(0)}` });
    const callData = JSON.parse(textOf(call.contents[0])) as Record<string, unknown>;
    expect(callData).toMatchObject({ callId: 'CA0000', campId: 'calls', status: 'COMPLETED', summary: 'They agreed.' });
    expect(callData).not.toHaveProperty('transcript');

    const transcript = await client.readResource({ uri: 'campaign-gateway://calls/CA0000/transcript' });
    expect(transcript.contents[0]).toMatchObject({
      mimeType: 'text/plain',
      text: 'Hello, this is the clinic.',
      _meta: { offset: 0, nextOffset: 26, total: 26 },
    });
    expect(transcript.contents[0]!._meta).not.toHaveProperty('nextUri');
    await client.close();
  });

  it("another account's campaign and call are not found; a URI naming nothing here is refused, saying what is", async () => {
    const { t, url } = await gateway();
    await accountWithCall(t, 'theirs');
    const mine = await agentOf(url, (await t.account()).token);
    for (const uri of [
      'campaign-gateway://campaigns/calls',
      'campaign-gateway://calls/CA0000',
      'campaign-gateway://calls/CA0000/transcript',
    ]) {
      // The SDK's ResourceNotFoundError: -32602 whose data is exactly the URI (the specification's not-found).
      await expect(mine.readResource({ uri }), uri).rejects.toMatchObject({ code: -32602, data: { uri } });
    }
    for (const uri of [
      'campaign-gateway://campaigns/a%2Fb',
      'campaign-gateway://campaigns/%E0%A4%A',
      'campaign-gateway://calls/CA0000/transcript?offset=-1',
      'campaign-gateway://calls/CA0000/transcript?offset=99999999',
      'campaign-gateway://calls/CA0000/recording',
      `campaign-gateway://campaigns/${'x'.repeat(600)}`,
      'file:///etc/passwd',
    ]) {
      await expect(mine.readResource({ uri }), uri).rejects.toThrow(
        /Unknown resource: .*the resources are campaign-gateway:\/\/schema\.graphql and campaign-gateway:\/\/campaigns\/\{campId\}/,
      );
    }
    await mine.close();
  });

  it('reads a long transcript in pieces, each within 64 KiB on the wire, on whole characters, until it is read', async () => {
    const { t, url } = await gateway();
    // 300 000 UTF-16 units of text with 2-byte, 3-byte and 4-byte (surrogate-pair) characters, and quotes to escape.
    const transcript = 'Olá, "você" quer 😀 o horário das 9h? – Sim. '.repeat(7000).slice(0, 300_000);
    const account = await accountWithCall(t, transcript);
    const client = await agentOf(url, account.token);
    let uri: string | undefined = 'campaign-gateway://calls/CA0000/transcript';
    let read = '';
    let pieces = 0;
    while (uri) {
      const { contents } = await client.readResource({ uri });
      const [content] = contents;
      const meta = content!._meta as { offset: number; nextOffset: number; total: number; nextUri?: string };
      expect(meta.offset).toBe(read.length);
      expect(meta.total).toBe(transcript.length);
      read += textOf(content);
      expect(meta.nextOffset).toBe(read.length);
      // Never a lone surrogate at either end.
      expect(textOf(content)).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
      uri = meta.nextUri;
      pieces += 1;
      expect(pieces).toBeLessThan(30);
    }
    expect(read).toBe(transcript);
    expect(pieces).toBeGreaterThan(4);
    // With a 2 000-character request id too, a piece is within 64 KiB on the wire (counted on the bytes received).
    for (const offset of [0, 1, 150_001]) {
      const answer = await rawRead(
        url,
        account.token,
        `campaign-gateway://calls/CA0000/transcript?offset=${offset}`,
        'i'.repeat(2000),
      );
      expect(answer.status).toBe(200);
      expect(answer.text).toMatch(/"nextUri"/);
      expect(answer.bytes).toBeLessThanOrEqual(64 * 1024);
      expect(answer.bytes).toBeGreaterThan(40 * 1024);
    }
    await client.close();
  });

  it("completes a template's campId and callId from the caller's own records only", async () => {
    const { t, url } = await gateway();
    const account = await accountWithCall(t, 'mine');
    await accountWithCall(t, 'theirs');
    const client = await agentOf(url, account.token);
    const complete = (uri: string, name: string, value: string) =>
      client.complete({ ref: { type: 'ref/resource', uri }, argument: { name, value } });
    expect((await complete('campaign-gateway://campaigns/{campId}', 'campId', 'ca')).completion.values).toEqual([
      'calls',
    ]);
    const calls = await complete('campaign-gateway://calls/{callId}/transcript{?offset}', 'callId', '');
    expect(calls.completion).toMatchObject({ values: ['CA0000'], hasMore: false });
    expect((await complete('campaign-gateway://calls/{callId}', 'callId', 'zz')).completion.values).toEqual([]);
    // An argument the template does not have completes nothing.
    expect((await complete('campaign-gateway://campaigns/{campId}', 'callId', '')).completion.values).toEqual([]);
    await client.close();
  });

  it('on 2026-07-28 the schema may be kept for five minutes; a campaign, a call or a transcript is not kept', async () => {
    const { t, url } = await gateway();
    const account = await accountWithCall(t, 'short');
    const answers: Array<Record<string, unknown>> = [];
    const client = new ModernClient(
      { name: 'modern-agent', version: '2.4.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${account.token}` } },
        fetch: async (input: string | URL | Request, init?: RequestInit) => {
          const response = await fetch(input, init);
          const text = await response.clone().text();
          if (text.startsWith('{')) answers.push(JSON.parse(text) as Record<string, unknown>);
          return response;
        },
      }),
    );
    const resultOf = async (uri: string) => {
      answers.length = 0;
      await client.readResource({ uri });
      return answers.at(-1)?.result as Record<string, unknown>;
    };
    expect(await resultOf('campaign-gateway://schema.graphql')).toMatchObject({
      ttlMs: 300_000,
      cacheScope: 'private',
    });
    for (const uri of [
      'campaign-gateway://campaigns/calls',
      'campaign-gateway://calls/CA0000',
      'campaign-gateway://calls/CA0000/transcript',
    ]) {
      expect(await resultOf(uri), uri).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    }
    await client.close();
    // The revisions before it have no such keys: none is sent.
    const legacy = await rawRead(url, account.token, 'campaign-gateway://schema.graphql', 1);
    expect(legacy.status).toBe(200);
    expect(JSON.parse(legacy.text).result).not.toHaveProperty('ttlMs');
  });
});
