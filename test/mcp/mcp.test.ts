// The MCP door (docs/mcp.md) driven over HTTP by the official SDK's own client: the tool list is the declared
// operations, every tool runs, bad arguments are tool errors with the codes and messages of the other doors (and
// nothing is written), another account's records read as not found, a missing or bad credential is a 401 with
// WWW-Authenticate, an unknown tool is a protocol error, the schema is a resource, and the raw GraphQL tool exists
// only when MCP_GRAPHQL_TOOL is on.
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { MCP_OPERATIONS } from '../../src/mcp/operations.js';
import { patternsInWords } from '../../src/mcp/pattern-words.js';
import { loopbackGateways, MCP_INTEGRATION_INPUTS, mcpCampaignInput } from '../helpers/gateway.js';
import { ROOT } from '../helpers/server-process.js';
import { logCapture } from '../helpers/log-lines.js';

const gateway = loopbackGateways();
const serve = (env: Record<string, string> = {}, logStream?: Writable) => gateway(env, logStream ? { logStream } : {});

async function connect(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'campaign-gateway-test', version: '1.0.0' });
  // Every tool (docs/mcp.md "Toolsets": without a choice, the default areas only).
  const transport = new StreamableHTTPClientTransport(new URL('?toolsets=all', url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  // The client checks each tool's structuredContent against the outputSchema it listed.
  await client.listTools();
  return client;
}

/** A tool's structured answer (the call must succeed). */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  const content = result.content as Array<{ type: string; text: string }>;
  expect(JSON.parse(content[0]?.text ?? 'null')).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, any>;
}

/** A tool error's errors (the call must fail as a tool error). */
async function callError(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, `${name} should fail`).toBe(true);
  const content = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(content[0]?.text ?? '{}').errors as Array<{
    message: string;
    code: string;
    issues?: Array<{ path: Array<string | number>; type: string; message: string }>;
  }>;
}

// Created ACTIVE, as the legacy interface does (campaign_create's own default is PAUSED: test/mcp/campaign-start.test.ts).
const CAMPAIGN = mcpCampaignInput({ status: 'ACTIVE' });

const toolNameOf = (source: string) =>
  (/(?:query|mutation)\s+(\w+)/.exec(source)?.[1] ?? '').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

describe('the MCP door', () => {
  it('lists one tool per declared operation, each described, with input and output schemas and annotations', async () => {
    const { t, url } = await serve();
    const { token } = await t.account();
    const client = await connect(url, token);
    const { tools } = await client.listTools();
    // One tool per declared operation, text_read (src/mcp/text-tool.ts) and account_get (src/mcp/identity-tool.ts).
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [...MCP_OPERATIONS.map(toolNameOf), 'text_read', 'account_get'].sort(),
    );
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/\w{3,}/);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations, tool.name).toBeDefined();
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.campaign_list?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.campaign_delete?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.campaign_create?.annotations).toMatchObject({ destructiveHint: false, idempotentHint: false });
    // As strict as the server: required fields, enums, bounds, patterns.
    const input = (byName.campaign_create?.inputSchema.properties as Record<string, any>).input;
    expect(input.required).toEqual(expect.arrayContaining(['title', 'voiceId', 'language', 'script']));
    expect(input.properties.maxCallTimeout).toMatchObject({ type: 'integer', minimum: 1, maximum: 120 });
    expect(input.properties.campId.pattern).toBe('^[A-Za-z0-9_-]{1,64}$');
    expect(input.additionalProperties).toBe(false);
    const list = byName.call_log_list?.inputSchema.properties as Record<string, any>;
    expect(list.status.anyOf[0].enum).toContain('COMPLETED');
    // Nullable arguments are spelled portably: anyOf the type and null.
    expect(list.first.anyOf[0]).toMatchObject({ minimum: 0, maximum: 100 });
    expect(list.since.anyOf[0].format).toBe('date-time');
    expect(JSON.stringify(tools)).not.toMatch(/"type":\[/);
    // No raw GraphQL tool unless MCP_GRAPHQL_TOOL is set.
    expect(byName.graphql).toBeUndefined();
    await client.close();
  });

  it('runs every tool, a write then a read, with the cursors of GraphQL', async () => {
    const { t, url } = await serve();
    const account = await t.account();
    const { token } = account;
    const client = await connect(url, token);
    const called = new Set<string>();
    const run = async (name: string, args: Record<string, unknown> = {}) => {
      called.add(name);
      return call(client, name, args);
    };

    expect((await run('voice_list', { language: 'en' })).voices.length).toBeGreaterThan(0);
    // Nothing connected yet: the fields without a value (voiceProvider) are left out of the answer.
    const telephony = (await run('integration_list')).viewer.integrations.telephony;
    expect(telephony).toMatchObject({ connected: false });
    expect(telephony).not.toHaveProperty('voiceProvider');
    expect((await run('campaign_list', { status: null })).campaigns.items).toEqual([]);
    const created = await run('campaign_create', { input: CAMPAIGN });
    expect(created.campaignCreate.campaign).toMatchObject({ campId: 'spring', status: 'ACTIVE', maxCallTimeout: 1 });
    await run('campaign_create', { input: { ...CAMPAIGN, campId: 'summer', title: 'Summer' } });
    const page = await run('campaign_list', { first: 1 });
    expect(page.campaigns.items).toHaveLength(1);
    expect(page.campaigns.hasMore).toBe(true);
    const next = await run('campaign_list', { first: 1, after: page.campaigns.nextCursor });
    expect(next.campaigns.items[0].campId).not.toBe(page.campaigns.items[0].campId);
    await run('campaign_update', { input: { campId: 'spring', title: 'Spring, renamed' } });
    const renamed = (await run('campaign_get', { campId: 'spring' })).campaign;
    expect(renamed).toMatchObject({ title: 'Spring, renamed', voice: { voiceId: 'en-US-aria' } });
    // No pipeline yet: the field is left out.
    expect(renamed).not.toHaveProperty('textPipeline');
    expect((await run('campaign_metrics', { campId: 'spring' })).campaign.metrics.totalNumCall).toBe(0);

    await run('text_pipeline_set', { input: { campId: 'spring', pipeline: { goal: 'Book a demo' } } });
    expect((await run('campaign_get', { campId: 'spring' })).campaign.textPipeline.goal).toBe('Book a demo');

    const integrations = MCP_INTEGRATION_INPUTS;
    for (const [kind, input] of Object.entries(integrations)) {
      const answer = await run(`${kind}_connect`, { input });
      const text = JSON.stringify(answer);
      // Secrets are masked, as on every door.
      for (const value of Object.values(input)) if (/secret/.test(value)) expect(text).not.toContain(value);
    }
    const listed = (await run('integration_list')).viewer.integrations;
    expect(Object.values(listed).every((kind: any) => kind.connected)).toBe(true);

    expect((await run('call_log_list', { first: 5, status: 'COMPLETED' })).callLogs.items).toEqual([]);
    expect((await run('call_log_list', { campId: 'spring', first: 5 })).callLogs.items).toEqual([]);
    expect(
      (await run('call_log_list', { first: 5, orderBy: { field: 'COST', direction: 'DESC' } })).callLogs.items,
    ).toEqual([]);
    // "Which of the spring calls failed or went unanswered, the longest first?" — filters and sorting, as in GraphQL.
    for (const [i, status] of ['completed', 'failed', 'no-answer', 'busy'].entries()) {
      const at = `2026-11-30T10:0${i}:00.000Z`;
      await t.app.database.db
        .insertInto('call_logs')
        .values({
          account_id: account.id,
          call_id: `CA-mcp-${i}`,
          camp_id: i === 3 ? 'summer' : 'spring',
          direction: 'outbound-api',
          from_number: '+14155550100',
          to_number: `+1415555020${i}`,
          status,
          status_rank: 3,
          started_at: at,
          ended_at: at,
          duration_seconds: 10 * i,
          cost: null,
          recording_url: null,
          transcript: null,
          summary: null,
          analysis: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    const failed = await run('call_log_list', {
      filter: { campIds: ['spring'], outcomes: ['FAILED', 'NO_ANSWER', 'BUSY'] },
      orderBy: { field: 'DURATION' },
    });
    expect(failed.callLogs.items.map((call: { callId: string }) => call.callId)).toEqual(['CA-mcp-2', 'CA-mcp-1']);
    const summer = await run('campaign_list', { search: 'summ', filter: { statuses: ['ACTIVE', 'PAUSED'] } });
    expect(summer.campaigns.items.map((campaign: { campId: string }) => campaign.campId)).toEqual(['summer']);
    // "How did the spring campaign do this week?"
    const week = await run('call_stats', {
      campIds: ['spring'],
      from: '2026-11-30T00:00:00+01:00',
      to: '2026-12-07T00:00:00+01:00',
      timeZone: 'Europe/Paris',
    });
    expect(week.callStats.buckets).toHaveLength(7);
    // Spring's three calls above, on Monday morning in Paris.
    expect(week.callStats.buckets[0]).toMatchObject({ localStart: '2026-11-30T00:00:00+01:00', calls: 3 });
    expect(week.callStats.totals).toMatchObject({ calls: 3, spend: 0 });
    // A year of days fits the answer budget (each bucket: its start, calls, answered calls and spend).
    const year = await run('call_stats', { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' });
    expect(year.callStats.buckets).toHaveLength(365);

    const startsAt = new Date(Date.now() + 86_400_000);
    const booked = await run('meeting_book', {
      input: {
        campId: 'spring',
        title: 'Demo',
        startsAt: startsAt.toISOString(),
        endsAt: new Date(startsAt.getTime() + 1_800_000).toISOString(),
        participants: [{ name: 'Ada', email: 'ada@example.com' }],
      },
    });
    const meetingId = booked.meetingBook.meeting.meetingId;
    expect((await run('meeting_upcoming_list', { limit: 10 })).upcomingMeetings).toHaveLength(1);
    expect((await run('meeting_get', { meetingId })).meeting.title).toBe('Demo');
    expect((await run('meeting_cancel', { input: { meetingId } })).meetingCancel.meeting.status).toBe('CANCELED');

    const webhook = (await run('webhook_create', { input: { url: 'https://hooks.example.com/in' } })).webhookCreate
      .webhook;
    expect(webhook).not.toHaveProperty('secret');
    const webhookId = webhook.webhookId;
    expect((await run('webhook_list')).webhooks).toHaveLength(1);
    await run('webhook_update', { input: { webhookId, description: 'CRM' } });
    expect((await run('webhook_get', { webhookId })).webhook.description).toBe('CRM');
    await run('webhook_attach', { input: { webhookId, campId: 'spring' } });
    // A change of the campaign raises an event: the webhook gets a delivery (the worker is off: it waits).
    await run('campaign_pause', { input: { campId: 'spring' } });
    await run('campaign_resume', { input: { campId: 'spring' } });
    const deliveries = (await run('webhook_delivery_list', { webhookId, first: 10 })).webhook.deliveries.items;
    expect(deliveries.length).toBeGreaterThan(0);
    const deliveryId = deliveries[0].deliveryId;
    await t.app.database.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed' })
      .where('delivery_id', '=', deliveryId)
      .execute();
    const redelivered = await run('webhook_delivery_redeliver', { input: { deliveryId } });
    expect(redelivered.webhookDeliveryRedeliver.delivery.status).toBe('PENDING');
    await run('webhook_detach', { input: { webhookId, campId: 'spring' } });
    expect((await run('webhook_delete', { input: { webhookId } })).webhookDelete.deletedId).toBeTruthy();

    for (const kind of Object.keys(integrations)) {
      expect((await run(`${kind}_disconnect`))[`${kind}Disconnect`].integration.connected).toBe(false);
    }
    await run('campaign_complete', { input: { campId: 'summer' } });
    await run('text_pipeline_delete', { input: { campId: 'spring' } });
    await run('campaign_delete', { input: { campId: 'spring' } });
    expect((await run('campaign_get', { campId: 'spring' })).campaign).toBeNull();

    expect([...called].sort()).toEqual(MCP_OPERATIONS.map(toolNameOf).sort());
    await client.close();
  });

  it('bad arguments are a tool error with the codes and messages of /graphql, and nothing is written', async () => {
    const { t, url } = await serve();
    const { token } = await t.account();
    const client = await connect(url, token);
    const input = { ...CAMPAIGN, campId: 'no spaces allowed', language: 'not a language', maxCallTimeout: 1000 };
    const errors = await callError(client, 'campaign_create', { input });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.code).toBe('BAD_USER_INPUT');
    expect(errors[0]?.issues?.map((issue) => issue.path.join('.')).sort()).toEqual([
      'input.campId',
      'input.language',
      'input.maxCallTimeout',
    ]);
    // The same operation through /graphql answers the same, but for its patterns, said in words to an agent (the
    // regular expression of pydantic's "String should match pattern" left out: src/mcp/pattern-words.ts).
    const source = MCP_OPERATIONS.find((operation) => toolNameOf(operation) === 'campaign_create') ?? '';
    const graphql = await t.gql(source, { input }, token);
    expect(JSON.stringify(graphql.body.errors)).toMatch(/String should match pattern/);
    expect(JSON.stringify(errors)).not.toMatch(/should match pattern|\^\[/);
    const inWords = (issue: any) => {
      const { ctx, ...rest } = issue;
      const { pattern: _pattern, ...kept } = ctx ?? {};
      return {
        ...rest,
        ...(Object.keys(kept).length > 0 ? { ctx: kept } : {}),
        message: patternsInWords(issue.message),
      };
    };
    expect(
      graphql.body.errors?.map((error: any) => ({
        message: patternsInWords(error.message),
        code: error.extensions.code,
        issues: error.extensions.issues.map(inWords),
      })),
    ).toEqual(errors.map(({ message, code, issues }) => ({ message, code, issues })));
    // An argument the operation does not declare (GraphQL would ignore it: the input schema says it may not be sent).
    const extra = await callError(client, 'campaign_list', { bogus: 1 });
    expect(extra[0]).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: ['bogus'], type: 'extra_forbidden' }] });
    // A type GraphQL itself refuses (a number for a String), and a missing argument.
    const typed = await callError(client, 'campaign_get', { campId: 5 });
    expect(typed[0]).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: ['campId'], type: 'string_type', message: 'Input should be a valid string' }],
    });
    const missing = await callError(client, 'campaign_get', {});
    expect(missing[0]).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: ['campId'], type: 'missing', message: 'Field required' }],
    });
    expect(await t.app.database.db.selectFrom('campaigns').selectAll().execute()).toEqual([]);
    // Hostile shapes are refused before anything runs: a list over 1000 items is a tool error, a body nested deeper
    // than 64 a JSON-RPC parse error (400).
    const long = await callError(client, 'meeting_book', {
      input: { campId: 'x', title: 'x', startsAt: 'x', endsAt: 'x', participants: Array(1001).fill({ name: 'a' }) },
    });
    expect(long[0]).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('1000') });
    const deep = client.callTool({
      name: 'campaign_create',
      arguments: {
        input: { ...CAMPAIGN, postCallAnalysisSchema: JSON.parse(`${'{"a":'.repeat(70)}1${'}'.repeat(70)}`) },
      },
    });
    await expect(deep).rejects.toThrow(/Parse error: nested too deeply/);
    await client.close();
  });

  it("another account's records read as not found; an unknown tool is a protocol error", async () => {
    const { t, url } = await serve();
    const owner = await t.account();
    const stranger = await t.account();
    const mine = await connect(url, owner.token);
    await call(mine, 'campaign_create', { input: CAMPAIGN });
    const theirs = await connect(url, stranger.token);
    expect((await call(theirs, 'campaign_get', { campId: 'spring' })).campaign).toBeNull();
    const update = await callError(theirs, 'campaign_update', { input: { campId: 'spring', title: 'Taken' } });
    expect(update[0]?.code).toBe('NOT_FOUND');
    expect((await call(mine, 'campaign_get', { campId: 'spring' })).campaign.title).toBe('Spring outreach');

    const unknown = theirs.callTool({ name: 'drop_everything', arguments: {} });
    await expect(unknown).rejects.toBeInstanceOf(McpError);
    await expect(unknown).rejects.toMatchObject({ code: -32602 });
    await mine.close();
    await theirs.close();
  });

  it('a missing or bad credential is a 401 with WWW-Authenticate; a named access token works, read-only if so', async () => {
    const { t, url } = await serve();
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initialize),
      });
    const none = await post({});
    expect(none.status).toBe(401);
    // RFC 9728: the challenge names the protected resource metadata, where an agent finds how to sign in.
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer realm="campaign-gateway", resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect((await none.json()).error.message).toBe('Not authenticated');
    const bad = await post({ authorization: 'Bearer cgat_forged' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="campaign-gateway", resource_metadata="[^"]+", error="invalid_token"/,
    );
    await expect(connect(url, 'not-a-token')).rejects.toThrow();

    const session = await t.account();
    const create = /* GraphQL */ `
      mutation ($input: AccessTokenCreateInput!) {
        accessTokenCreate(input: $input) {
          token
        }
      }
    `;
    const reader = (await t.gql(create, { input: { name: 'reader', readOnly: true } }, session.token)).body.data
      .accessTokenCreate.token as string;
    const writer = (await t.gql(create, { input: { name: 'agent' } }, session.token)).body.data.accessTokenCreate
      .token as string;
    const agent = await connect(url, writer);
    await call(agent, 'campaign_create', { input: CAMPAIGN });
    const readOnly = await connect(url, reader);
    // A read-only token is offered the tools it can use: the queries.
    const readable = (await readOnly.listTools()).tools;
    expect(readable.length).toBeGreaterThan(10);
    expect(readable.every((tool) => tool.annotations?.readOnlyHint)).toBe(true);
    expect((await agent.listTools()).tools.length).toBe(MCP_OPERATIONS.length + 2);
    // A write tool it is not offered is still refused if called anyway: 403 insufficient_scope, the step-up
    // challenge (test/mcp/oauth.test.ts follows it through the consent page).
    expect((await call(readOnly, 'campaign_list', {})).campaigns.items).toHaveLength(1);
    await expect(
      readOnly.callTool({ name: 'campaign_delete', arguments: { input: { campId: 'spring' } } }),
    ).rejects.toThrow(/this token is read-only/);
    expect((await call(readOnly, 'campaign_get', { campId: 'spring' })).campaign).not.toBeNull();
    // One message per request: a batch would run many tool calls for the price of one request.
    const batch = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${writer}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(
        Array.from({ length: 50 }, (_, id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'campaign_list' },
        })),
      ),
    });
    expect(batch.status).toBe(400);
    expect((await batch.json()).error).toMatchObject({ code: -32600, message: expect.stringContaining('batches') });
    // GET (a stream to resume) has nothing to serve on a stateless server.
    const get = await fetch(url, { headers: { authorization: `Bearer ${writer}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    await agent.close();
    await readOnly.close();
  });

  it('the schema is a resource; the access line, metrics, body and rate limits apply as on the other doors', async () => {
    const log = logCapture();
    const { t, url } = await serve({ RATE_LIMIT_PER_MINUTE: '9', LOG_LEVEL: 'info' }, log.stream);
    const { token } = await t.account();
    const client = await connect(url, token);
    await callError(client, 'campaign_update', { input: { campId: 'nope', title: 'x' } });
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['campaign-gateway://schema.graphql']);
    const read = await client.readResource({ uri: 'campaign-gateway://schema.graphql' });
    expect((read.contents[0] as { text: string }).text).toBe(readFileSync(join(ROOT, 'schema/schema.graphql'), 'utf8'));
    // One access-log line per request, at info, with the error codes a tool answered and no stack.
    const mcpLines = log.lines.filter((line) => line.msg === 'request' && line.path === '/mcp');
    expect(mcpLines.some((line) => JSON.stringify(line.errors) === '["NOT_FOUND"]' && line.level === 30)).toBe(true);
    expect(log.lines.some((line) => line.err?.stack)).toBe(false);
    const tooLarge = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1_100_000) } }),
    });
    expect(tooLarge.status).toBe(413);
    // In the door's own shape: a JSON-RPC error, the GraphQL code in its data.
    expect(await tooLarge.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/too large/), data: { code: 'PAYLOAD_TOO_LARGE' } },
    });
    const metrics = await t.request('GET', '/metrics', { token });
    expect(metrics.text).toMatch(/gateway_http_request_duration_seconds_count\{[^}]*door="mcp"/);
    expect(metrics.text).toMatch(/gateway_errors_total\{door="mcp",code="NOT_FOUND"\} 1/);
    // Over the account's budget: 429 with Retry-After, whatever the door.
    let last = new Response(null, { status: 200 });
    for (let i = 0; i < 10 && last.status !== 429; i++) {
      last = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
    }
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await last.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    await client.close();
  });

  it('MCP_GRAPHQL_TOOL=true offers a raw GraphQL tool under the limits of /graphql', async () => {
    const { t, url } = await serve({ MCP_GRAPHQL_TOOL: 'true' });
    const { token, id } = await t.account();
    const client = await connect(url, token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('graphql');
    expect(await call(client, 'graphql', { query: '{ viewer { accountId } }' })).toEqual({ viewer: { accountId: id } });
    const nested = 'callLogs { edges { node { campaign { '.repeat(4);
    const deep = `{ campaigns { edges { node { ${nested} campId ${'} } } } '.repeat(4)} } } } }`;
    const refused = await callError(client, 'graphql', { query: deep });
    expect(refused[0]?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const twoOperations = 'query A { viewer { accountId } } query B { voices { voiceId } }';
    expect(await call(client, 'graphql', { query: twoOperations, operationName: 'A' })).toEqual({
      viewer: { accountId: id },
    });
    // Which of several operations: the code /graphql gives (yoga resolves the operation while parsing).
    for (const operationName of [undefined, 'C']) {
      const unresolved = await callError(client, 'graphql', { query: twoOperations, operationName });
      expect(unresolved[0]?.code).toMatch(/^(OPERATION_RESOLUTION_FAILURE|BAD_USER_INPUT)$/);
    }
    const deferred = await callError(client, 'graphql', { query: '{ viewer { accountId ... @defer { email } } }' });
    expect(deferred[0]?.code).toBe('BAD_REQUEST');
    const subscription = await callError(client, 'graphql', {
      query: 'subscription { campaignEvents(campId: "x") { eventType } }',
    });
    expect(subscription[0]?.code).toBe('BAD_REQUEST');
    // A live query is a stream: refused by the live queries themselves, since a tool answers once (the context's
    // transport), though the tool's HTTP request accepts text/event-stream; it holds none of the account's slots.
    for (let i = 0; i < 3; i++) {
      const live = await callError(client, 'graphql', { query: 'query @live { viewer { accountId } }' });
      expect(live[0]?.code).toBe('BAD_REQUEST');
      expect(live[0]?.message).toMatch(
        /^@live is not offered here: this door answers once\. Send the query to \/graphql/,
      );
    }
    const metrics = (await t.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/^gateway_live_queries 0$/m);
    expect(metrics).toMatch(/^gateway_live_queries_refused_total\{reason="transport"\} 3$/m);
    await client.close();
  });
});
