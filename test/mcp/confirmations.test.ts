// The user confirms before a tool places real calls or deletes for good (issue 53, docs/mcp.md "Confirmations"):
// on 2026-07-28, a client that can ask its user (elicitation) gets `input_required` with a form saying what will
// happen, and the call runs only once the user goes ahead; a client that cannot ask runs it as before.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { loopbackGateways, mcpCampaignInput } from '../helpers/gateway.js';
import { toolAnswer } from '../helpers/mcp-client.js';

const gateway = loopbackGateways();

/** A 2026-07-28 client whose user answers every confirmation with `answer`; the questions it was asked. */
async function askingClient(answer: 'accept' | 'decline' | 'cancel') {
  const { t, url } = await gateway();
  const { token } = await t.account();
  const client = new Client(
    { name: 'asking-agent', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String((request.params as { message?: unknown }).message));
    return answer === 'accept' ? { action: 'accept', content: { goAhead: true } } : { action: answer };
  });
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return { client, asked, url, token };
}

const status = async (client: Client, campId: string) =>
  ((await toolAnswer(client, 'campaign_get', { campId })) as { data: Record<string, any> }).data.campaign.status;

describe('confirmations before real calls and deletions', () => {
  it('a client that can ask: campaign_resume runs once the user goes ahead, and the question says what happens', async () => {
    const { client, asked } = await askingClient('accept');
    // Created PAUSED: nothing to confirm.
    await toolAnswer(client, 'campaign_create', { input: mcpCampaignInput({ campId: 'spring' }) });
    expect(asked).toEqual([]);
    const resumed = await toolAnswer(client, 'campaign_resume', { input: { campId: 'spring' } });
    expect(resumed).toMatchObject({ data: { campaignResume: { campaign: { status: 'ACTIVE' } } } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('"spring"');
    expect(asked[0]).toContain('real phone calls');
    // Created ACTIVE: asked too; a delete: asked, and done.
    await toolAnswer(client, 'campaign_create', { input: mcpCampaignInput({ campId: 'loud', status: 'ACTIVE' }) });
    expect(asked[1]).toContain('ACTIVE');
    expect(await status(client, 'loud')).toBe('ACTIVE');
    const deleted = await toolAnswer(client, 'campaign_delete', { input: { campId: 'loud' } });
    expect(deleted).toHaveProperty('data');
    expect(asked[2]).toContain('cannot be undone');
    await client.close();
  });

  it('a user who declines (or dismisses the form): nothing is done, and the answer says so', async () => {
    for (const answer of ['decline', 'cancel'] as const) {
      const { client, asked } = await askingClient(answer);
      await toolAnswer(client, 'campaign_create', { input: mcpCampaignInput({ campId: 'spring' }) });
      const refused = await toolAnswer(client, 'campaign_resume', { input: { campId: 'spring' } });
      expect(refused).toMatchObject({ error: 'NOT_CONFIRMED' });
      expect('message' in refused && refused.message).toContain('did not confirm');
      expect(asked).toHaveLength(1);
      expect(await status(client, 'spring')).toBe('PAUSED');
      const kept = await toolAnswer(client, 'campaign_delete', { input: { campId: 'spring' } });
      expect(kept).toMatchObject({ error: 'NOT_CONFIRMED' });
      expect(await status(client, 'spring')).toBe('PAUSED');
      await client.close();
    }
  });

  it('a client that cannot ask (no elicitation, or 2025-11-25) runs the call as before', async () => {
    const { t, url } = await gateway();
    const { token } = await t.account();
    const modern = new Client(
      { name: 'plain-agent', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    await toolAnswer(modern, 'campaign_create', { input: mcpCampaignInput({ campId: 'a' }) });
    expect(await toolAnswer(modern, 'campaign_resume', { input: { campId: 'a' } })).toMatchObject({
      data: { campaignResume: { campaign: { status: 'ACTIVE' } } },
    });
    const legacy = new LegacyClient({ name: 'legacy-agent', version: '1.32.2' }, { capabilities: { elicitation: {} } });
    await legacy.connect(new LegacyTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    await legacy.callTool({ name: 'campaign_create', arguments: { input: mcpCampaignInput({ campId: 'b' }) } });
    const resumed = await legacy.callTool({ name: 'campaign_resume', arguments: { input: { campId: 'b' } } });
    expect(resumed.isError).toBeFalsy();
    expect(await status(modern, 'b')).toBe('ACTIVE');
    await modern.close();
    await legacy.close();
  });
});
