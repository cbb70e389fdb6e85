// Fewer tools in every conversation (issue 53; docs/mcp.md "Toolsets"): the client chooses areas when it connects
// (`?toolsets=` or `X-MCP-Toolsets`), or the read tools only (`?readonly=true`); the default list is the campaigns,
// calls and account areas, smaller than every tool; `account_get` says which account the connection acts for.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { mcpToolDefinitions } from '../../src/mcp/tool-list.js';
import { DEFAULT_TOOLSETS, TOOLSETS } from '../../src/mcp/toolsets.js';
import { loopbackGateways } from '../helpers/gateway.js';

const gateway = loopbackGateways();
const EVERY_TOOL = mcpToolDefinitions();

async function connect(query = '', headers: Record<string, string> = {}, env: Record<string, string> = {}) {
  const { t, url } = await gateway(env);
  const account = await t.account();
  const client = new Client({ name: 'toolsets-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url.href}${query}`), {
      requestInit: { headers: { authorization: `Bearer ${account.token}`, ...headers } },
    }),
  );
  return { client, account };
}

const namesOf = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('toolsets', () => {
  it('every tool is in an area; the default areas are fewer than every tool, and smaller on the wire', () => {
    for (const tool of EVERY_TOOL) {
      expect(
        Object.values(TOOLSETS).some((pattern) => pattern.test(tool.name)),
        tool.name,
      ).toBe(true);
    }
    const listed = EVERY_TOOL.filter((tool) => DEFAULT_TOOLSETS.some((area) => TOOLSETS[area]!.test(tool.name)));
    expect(listed.length).toBeLessThan(EVERY_TOOL.length / 2);
    expect(JSON.stringify(listed).length).toBeLessThan(JSON.stringify(EVERY_TOOL).length / 2);
  });

  it('without a choice: campaigns, calls and the account; a tool outside them still answers when called', async () => {
    const { client } = await connect();
    const names = await namesOf(client);
    expect(names).toEqual(expect.arrayContaining(['account_get', 'call_log_list', 'campaign_create', 'text_read']));
    expect(names).not.toContain('webhook_create');
    expect(names).not.toContain('telephony_connect');
    const listed = await client.callTool({ name: 'webhook_list', arguments: {} });
    expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
    await client.close();
  });

  it('chosen by query or header; all lists every tool; an unknown area is refused naming the others', async () => {
    const webhooks = await connect('?toolsets=webhooks');
    expect((await namesOf(webhooks.client)).every((name) => name.startsWith('webhook_'))).toBe(true);
    await webhooks.client.close();
    const byHeader = await connect('', { 'x-mcp-toolsets': 'meetings, account' });
    expect(await namesOf(byHeader.client)).toEqual([
      'account_get',
      'meeting_book',
      'meeting_cancel',
      'meeting_get',
      'meeting_upcoming_list',
    ]);
    await byHeader.client.close();
    const all = await connect('?toolsets=all');
    expect(await namesOf(all.client)).toEqual(EVERY_TOOL.map((tool) => tool.name).sort());
    await all.client.close();
    const unknown = await connect('?toolsets=campaigns,everything');
    await expect(unknown.client.listTools()).rejects.toThrow(
      /unknown toolset "everything"; the toolsets are campaigns, calls/,
    );
    await unknown.client.close();
  });

  it('readonly=true: the read tools only, and a write called by name is refused FORBIDDEN', async () => {
    const { client } = await connect('?toolsets=all&readonly=true');
    const names = await namesOf(client);
    expect(names).toContain('campaign_list');
    expect(names).not.toContain('campaign_create');
    const refused = await client.callTool({
      name: 'campaign_delete',
      arguments: { campId: 'anything' },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/FORBIDDEN.*read tools only|read tools only.*FORBIDDEN/);
    await client.close();
  });

  it('readonly=true holds for the graphql tool too: its mutations are refused, its queries answered', async () => {
    const { client } = await connect('?readonly=true', {}, { MCP_GRAPHQL_TOOL: 'true' });
    const mutation = await client.callTool({
      name: 'graphql',
      arguments: { query: 'mutation { campaignDelete(input: { campId: "anything" }) { deletedId } }' },
    });
    expect(mutation.isError).toBe(true);
    expect(JSON.stringify(mutation.content)).toContain('FORBIDDEN');
    const query = await client.callTool({ name: 'graphql', arguments: { query: '{ viewer { email } }' } });
    expect(query.isError, JSON.stringify(query.content)).toBeFalsy();
    await client.close();
  });

  it('an empty choice is no choice: the default areas', async () => {
    const { client } = await connect('?toolsets=', { 'x-mcp-toolsets': '' });
    expect(await namesOf(client)).toEqual(expect.arrayContaining(['account_get', 'campaign_create']));
    await client.close();
  });
});

describe('account_get', () => {
  it('names the account and what its token may do; takes no arguments', async () => {
    const { client, account } = await connect();
    const answer = await client.callTool({ name: 'account_get', arguments: {} });
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({
      accountId: expect.stringMatching(/^acc_/),
      email: account.email,
      access: 'READ_WRITE',
      tokenExpiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const refused = await client.callTool({ name: 'account_get', arguments: { who: 'me' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/takes no arguments: who/);
    await client.close();
  });
});
