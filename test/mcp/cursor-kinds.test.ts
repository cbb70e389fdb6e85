// The cursors of the list tools, through the MCP door (docs/mcp.md "Retries and cursors"): a campaign_list cursor
// passed to call_log_list or webhook_delivery_list is a tool error BAD_USER_INPUT naming
// `after`, as the tools' descriptions say; `first: 0` answers an empty page whose nextCursor is accepted back.
import { describe, expect, it } from 'vitest';
import { mcpCampaignInput } from '../helpers/gateway.js';
import { closeMcpDoorsAfterEach, mcpDoor, toolAnswer } from '../helpers/mcp-client.js';

closeMcpDoorsAfterEach();

const campaign = (campId: string) => mcpCampaignInput({ campId, title: `Campaign ${campId}`, status: 'ACTIVE' });

describe('list tools and their cursors', () => {
  it("refuse another list's cursor with BAD_USER_INPUT naming after; first: 0 hands back a cursor they accept", async () => {
    const { client, t } = await mcpDoor();
    const call = async (name: string, args: Record<string, unknown>) => {
      const answer = await toolAnswer(client, name, args);
      expect(answer, `${name}: ${JSON.stringify(answer)}`).toHaveProperty('data');
      return (answer as { data: Record<string, any> }).data;
    };
    for (const campId of ['a', 'b']) await call('campaign_create', { input: campaign(campId) });
    const webhookId = (await call('webhook_create', { input: { url: 'https://hooks.example.com/in' } })).webhookCreate
      .webhook.webhookId;
    await call('webhook_attach', { input: { webhookId, campId: 'a' } });
    await call('campaign_pause', { input: { campId: 'a' } });

    const campaignCursor: string = (await call('campaign_list', { first: 1 })).campaigns.nextCursor;
    for (const [name, args] of [
      ['call_log_list', { first: 5, after: campaignCursor }],
      ['webhook_delivery_list', { webhookId, first: 5, after: campaignCursor }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      const [error] = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}').errors;
      expect(error, name).toMatchObject({
        code: 'BAD_USER_INPUT',
        issues: [{ path: ['after'], type: 'value_error', message: expect.stringMatching(/another list/) }],
      });
      // The same words as /graphql gives.
      expect(error.message, name).toMatch(/^after: a cursor of another list/);
    }

    // first: 0 — an empty page: hasMore says items follow; at the start there is no cursor to pass (no nextCursor).
    const empty = (await call('campaign_list', { first: 0 })).campaigns;
    expect(empty).toEqual({ items: [], hasMore: true });
    const first = (await call('campaign_list', { first: 1 })).campaigns;
    expect(first).toMatchObject({
      items: [{ campId: expect.any(String) }],
      hasMore: true,
      nextCursor: expect.any(String),
    });
    // After a cursor, an empty page hands the same cursor back, and it is accepted.
    const atCursor = (await call('campaign_list', { first: 0, after: first.nextCursor })).campaigns;
    expect(atCursor).toEqual({ items: [], hasMore: true, nextCursor: first.nextCursor });
    const rest = (await call('campaign_list', { first: 10, after: atCursor.nextCursor })).campaigns;
    expect(rest).toEqual({ items: [expect.objectContaining({ campId: expect.any(String) })], hasMore: false });
    expect(rest.items[0].campId).not.toBe(first.items[0].campId);
    const deliveries = (await call('webhook_delivery_list', { webhookId, first: 0 })).webhook.deliveries;
    expect(deliveries).toEqual({ items: [], hasMore: true });
    expect(await t.app.database.db.selectFrom('webhook_deliveries').select('delivery_id').execute()).toHaveLength(1);
  });
});
