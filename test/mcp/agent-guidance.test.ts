// What an agent gets right the first time (issue 42, docs/mcp.md): campaign_create makes a PAUSED
// campaign unless asked for an ACTIVE one, and says so; GraphQL's campaignCreate takes the status too (ACTIVE when
// omitted, as before); campaign_update with a status names the tools that change it.
import { describe, expect, it } from 'vitest';
import { mcpCampaignInput } from '../helpers/gateway.js';
import { closeMcpDoorsAfterEach, legacyMcpClient, mcpDoor, toolAnswer } from '../helpers/mcp-client.js';

closeMcpDoorsAfterEach();

const CREATE = /* GraphQL */ `
  mutation ($input: CampaignCreateInput!) {
    campaignCreate(input: $input) {
      campaign {
        campId
        status
      }
    }
  }
`;

describe('the status a campaign is created in', () => {
  it('campaign_create makes a PAUSED campaign unless asked, and its schema and description say so', async () => {
    const { client } = await mcpDoor();
    const { tools } = await client.listTools();
    const create = tools.find((tool) => tool.name === 'campaign_create')!;
    const input = (create.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>).input!;
    expect(input.properties.status).toMatchObject({
      default: 'PAUSED',
      anyOf: [{ type: 'string', enum: ['ACTIVE', 'PAUSED'] }, { type: 'null' }],
    });
    expect(create.description).toContain('PAUSED unless');

    const paused = await toolAnswer(client, 'campaign_create', { input: mcpCampaignInput({ campId: 'quiet' }) });
    expect(paused).toMatchObject({ data: { campaignCreate: { campaign: { campId: 'quiet', status: 'PAUSED' } } } });
    const active = await toolAnswer(client, 'campaign_create', {
      input: mcpCampaignInput({ campId: 'loud', status: 'ACTIVE' }),
    });
    expect(active).toMatchObject({ data: { campaignCreate: { campaign: { campId: 'loud', status: 'ACTIVE' } } } });
    const resumed = await toolAnswer(client, 'campaign_resume', { input: { campId: 'quiet' } });
    expect(resumed).toMatchObject({ data: { campaignResume: { campaign: { status: 'ACTIVE' } } } });
  });

  it('campaign_update with a status names the tools that change it', async () => {
    const { client } = await mcpDoor();
    await toolAnswer(client, 'campaign_create', { input: mcpCampaignInput({ campId: 'spring' }) });
    const answer = await toolAnswer(client, 'campaign_update', { input: { campId: 'spring', status: 'ACTIVE' } });
    expect(answer).toMatchObject({ error: 'BAD_USER_INPUT' });
    expect('message' in answer && answer.message).toContain('campaign_resume');
  });

  it('GraphQL campaignCreate takes the status, ACTIVE when omitted', async () => {
    const { t, token } = await mcpDoor();
    const input = (campId: string, extra: Record<string, unknown> = {}) => ({
      ...mcpCampaignInput({ campId }),
      ...extra,
    });
    const omitted = await t.gql(CREATE, { input: input('a') }, token);
    expect(omitted.body.data.campaignCreate.campaign).toEqual({ campId: 'a', status: 'ACTIVE' });
    const paused = await t.gql(CREATE, { input: input('b', { status: 'PAUSED' }) }, token);
    expect(paused.body.data.campaignCreate.campaign).toEqual({ campId: 'b', status: 'PAUSED' });
    // campaignUpsert too, when it creates the campaign; an existing one keeps its status.
    const UPSERT =
      'mutation ($input: CampaignUpsertInput!) { campaignUpsert(input: $input) { campaign { campId status } } }';
    const upserted = await t.gql(UPSERT, { input: input('u', { status: 'PAUSED' }) }, token);
    expect(upserted.body.data.campaignUpsert.campaign).toEqual({ campId: 'u', status: 'PAUSED' });
    const again = await t.gql(UPSERT, { input: input('u', { status: 'ACTIVE' }) }, token);
    expect(again.body.data.campaignUpsert.campaign).toEqual({ campId: 'u', status: 'PAUSED' });
    const completed = await t.gql(CREATE, { input: input('c', { status: 'COMPLETED' }) }, token);
    expect(completed.body.errors?.[0]?.message).toMatch(/COMPLETED|ACTIVE/);
  });
});

describe('one answer names every mistake', () => {
  it('type, scalar and rule mistakes together, each at its path; a date-time mistake shows the format', async () => {
    const { client } = await mcpDoor();
    const answer = await toolAnswer(client, 'campaign_create', {
      input: mcpCampaignInput({ campId: 'bad id', title: '', maxCallTimeout: 'x' }),
    });
    expect(answer).toMatchObject({ error: 'BAD_USER_INPUT' });
    const { issues } = JSON.parse(
      (
        (
          await client.callTool({
            name: 'campaign_create',
            arguments: { input: mcpCampaignInput({ campId: 'bad id', title: '', maxCallTimeout: 'x' }) },
          })
        ).content as Array<{ text: string }>
      )[0]!.text,
    ).errors[0];
    expect(issues.map((issue: { path: string[] }) => issue.path.join('.')).sort()).toEqual([
      'input.campId',
      'input.maxCallTimeout',
      'input.title',
    ]);
    const dated = await toolAnswer(client, 'call_log_list', { since: '2026-12-03T10:00' });
    expect(dated).toMatchObject({ error: 'BAD_USER_INPUT' });
    expect('message' in dated && dated.message).toContain('2026-12-03T10:00:00Z');
  });
});

describe("one answer names the server's own rules too", () => {
  it('a wrong type does not hide an unknown voice or an unknown time zone, on both revisions; nothing is created', async () => {
    const { t, client: modern, url, token } = await mcpDoor();
    // The 2025-11-25 revision (SDK 1.x) answers the same.
    const legacy = await legacyMcpClient(url, token, 'rules-1x');
    for (const client of [modern, legacy]) {
      const call = async (input: Record<string, unknown>) => {
        const answer = await client.callTool({ name: 'campaign_create', arguments: { input } });
        expect(answer.isError).toBe(true);
        return JSON.parse((answer.content as Array<{ text: string }>)[0]!.text).errors[0] as {
          code: string;
          message: string;
          issues: Array<{ path: string[]; message: string }>;
        };
      };
      const refused = await call(
        mcpCampaignInput({ campId: 'typed', maxCallTimeout: 'x', voiceId: 'no-such-voice', timeZone: 'Mars/Olympus' }),
      );
      expect(refused.code).toBe('BAD_USER_INPUT');
      const at = (path: string) => refused.issues.find((issue) => issue.path.join('.') === path);
      expect(refused.issues.map((issue) => issue.path.join('.')).sort()).toEqual([
        'input.maxCallTimeout',
        'input.timeZone',
        'input.voiceId',
      ]);
      expect(at('input.maxCallTimeout')!.message).toMatch(/integer/);
      // In the server's words, tools named rather than every door.
      expect(at('input.voiceId')!.message).toMatch(/unknown voice.*voice_list/);
      expect(at('input.voiceId')!.message).not.toMatch(/GraphQL|REST/);
      expect(at('input.timeZone')!.message).toMatch(/time zone/i);
      expect(refused.message).toMatch(/voiceId.*unknown voice|unknown voice/);
      // A missing required field does not hide them either; the rules alone name what they find, once each.
      const missing = await call({ ...mcpCampaignInput({ voiceId: 'no-such-voice' }), title: undefined });
      expect(missing.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['input.title', 'input.voiceId']);
      const rulesOnly = await call(mcpCampaignInput({ voiceId: 'no-such-voice' }));
      expect(rulesOnly.issues.map((issue) => issue.path.join('.'))).toEqual(['input.voiceId']);
    }
    await legacy.close();
    const campaigns = await t.app.database.db.selectFrom('campaigns').select('camp_id').execute();
    expect(campaigns).toEqual([]);
  });
});

describe('errors that teach', () => {
  it('meeting_book before calendar_connect names the tool that fixes it', async () => {
    const { client } = await mcpDoor();
    await toolAnswer(client, 'campaign_create', { input: mcpCampaignInput({ campId: 'spring' }) });
    const startsAt = new Date(Date.now() + 86_400_000);
    const answer = await toolAnswer(client, 'meeting_book', {
      input: {
        campId: 'spring',
        title: 'Demo',
        startsAt: startsAt.toISOString(),
        endsAt: new Date(startsAt.getTime() + 1_800_000).toISOString(),
        participants: [{ name: 'Ada', email: 'ada@example.com' }],
      },
    });
    expect(answer).toMatchObject({ error: 'CONFLICT' });
    expect('message' in answer && answer.message).toContain('calendar_connect');
  });
});

describe('an idempotency key on webhook_create', () => {
  it('a retry with the same key answers the first webhook; the key with other arguments is a CONFLICT', async () => {
    const { t, client } = await mcpDoor();
    const args = { input: { url: 'https://hooks.example.com/in', idempotencyKey: 'retry-1' } };
    const first = await toolAnswer(client, 'webhook_create', args);
    const again = await toolAnswer(client, 'webhook_create', args);
    expect(first).toHaveProperty('data');
    expect(again).toEqual(first);
    const count = async () => (await t.app.database.db.selectFrom('webhooks').select('webhook_id').execute()).length;
    expect(await count()).toBe(1);
    const reused = await toolAnswer(client, 'webhook_create', {
      input: { url: 'https://hooks.example.com/other', idempotencyKey: 'retry-1' },
    });
    expect(reused).toMatchObject({ error: 'CONFLICT' });
    // Without a key, or with another one, each call makes a webhook.
    await toolAnswer(client, 'webhook_create', { input: { url: 'https://hooks.example.com/in' } });
    await toolAnswer(client, 'webhook_create', {
      input: { url: 'https://hooks.example.com/in', idempotencyKey: 'retry-2' },
    });
    expect(await count()).toBe(3);
    // Racing retries make one.
    const racing = await Promise.all(
      Array.from({ length: 6 }, () =>
        toolAnswer(client, 'webhook_create', { input: { url: 'https://hooks.example.com/r', idempotencyKey: 'race' } }),
      ),
    );
    expect(new Set(racing.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(await count()).toBe(4);
    const bad = await toolAnswer(client, 'webhook_create', {
      input: { url: 'https://hooks.example.com/in', idempotencyKey: 'has space' },
    });
    expect(bad).toMatchObject({ error: 'BAD_USER_INPUT' });
  });
});
