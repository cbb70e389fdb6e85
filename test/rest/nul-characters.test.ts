// Text holding NUL (U+0000) is refused the same way on SQLite and PostgreSQL (issue 41), naming the field: REST 422
// at its `loc` (not `["body"]`, and no internal variables echoed), GraphQL and MCP BAD_USER_INPUT at its path.
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { closeMcpDoorsAfterEach, mcpDoor, toolAnswer } from '../helpers/mcp-client.js';

closeMcpDoorsAfterEach();
let t: TestApp | undefined;
afterEach(() => t?.close());

describe('NUL in text', () => {
  it('REST: 422 at the field, nothing stored', async () => {
    t = await startApp({}, [], { worker: false });
    const { token } = await t.account();
    const reply = await t.rest('POST', '/update_campaign', {
      token,
      body: { campId: 'spring', campaignModelData: campaignModelData({ title: 'Spring\u0000sale' }) },
    });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail).toHaveLength(1);
    expect(reply.body.detail[0].loc).toEqual(['body', 'campaignModelData', 'title']);
    expect(reply.body.detail[0].msg).toMatch(/NUL/);
    expect(reply.body.detail[0].input).toBe('Spring\u0000sale');
    const list = await t.rest('GET', '/get_campaigns', { token });
    expect(JSON.stringify(list.body)).not.toContain('spring');
  });

  it('GraphQL: BAD_USER_INPUT at the path, for a variable and for a literal', async () => {
    t = await startApp({}, [], { worker: false });
    const { token } = await t.account();
    const byVariable = await t.gql(
      'mutation ($input: WebhookCreateInput!) { webhookCreate(input: $input) { webhook { id } } }',
      { input: { url: 'https://example.com/hook', events: ['campaign.updated'], description: 'a\u0000b' } },
      token,
    );
    expect(byVariable.body.errors?.[0]?.extensions.code, byVariable.text).toBe('BAD_USER_INPUT');
    expect(byVariable.body.errors?.[0]?.extensions.issues[0].path).toEqual(['input', 'description']);
    const byLiteral = await t.gql('{ voices(language: "en\\u0000") { voiceId } }', {}, token);
    expect(byLiteral.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(byLiteral.body.errors?.[0]?.message).toMatch(/NUL/);
  });

  it('MCP: a tool error naming the argument', async () => {
    const door = await mcpDoor();
    t = undefined;
    const answer = await toolAnswer(door.client, 'webhook_create', {
      input: { url: 'https://example.com/hook', description: 'a\u0000b' },
    });
    expect(answer).toMatchObject({ error: 'BAD_USER_INPUT' });
    expect('message' in answer && answer.message).toMatch(/description.*NUL|NUL/);
  });
});
