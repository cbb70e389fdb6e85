// Honest annotations (docs/mcp.md "Retries"): every mutation tool is called twice with the same arguments, and a tool
// marked idempotent answers the second call exactly as the first (no error, the same structuredContent, updatedAt
// included) and changes nothing more; a tool not so marked is one whose retry answers otherwise (CONFLICT, NOT_FOUND,
// another record, a new write). The destructive ones are those that delete, overwrite or make a change for good.
import { OperationTypeNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import { annotationsOf, MUTATION_EFFECTS } from '../../src/mcp/annotations.js';
import { MCP_OPERATIONS } from '../../src/mcp/operations.js';
import { buildTools } from '../../src/mcp/tools.js';
import { MCP_INTEGRATION_INPUTS, mcpCampaignInput } from '../helpers/gateway.js';
import { closeMcpDoorsAfterEach, mcpDoor, type ToolAnswer, toolAnswer } from '../helpers/mcp-client.js';

closeMcpDoorsAfterEach();

const CAMPAIGN = mcpCampaignInput();

const INTEGRATIONS = MCP_INTEGRATION_INPUTS;

/** What the second of two calls with the same arguments answers. */
type Retry =
  | 'the same answer'
  | 'CONFLICT'
  | 'NOT_FOUND'
  /** Succeeds and writes again: the same values, a new updatedAt (and, for a campaign, a new event). */
  | 'written again'
  /** Succeeds with another record. */
  | 'another record';

interface Scenario {
  tool: string;
  args: () => Record<string, unknown>;
  retry: Retry;
  /** Before the first call. */
  setUp?: () => Promise<void>;
  /** After the first call, with its answer. */
  keep?: (data: Record<string, any>) => void;
}

const startsAt = new Date(Date.now() + 86_400_000);
const MEETING = {
  campId: 'spring',
  title: 'Demo',
  startsAt: startsAt.toISOString(),
  endsAt: new Date(startsAt.getTime() + 1_800_000).toISOString(),
  participants: [{ name: 'Ada', email: 'ada@example.com' }],
};

describe('MCP tools called twice with the same arguments', () => {
  it('answer the same when marked idempotent, and otherwise as the tool declares', async () => {
    const { t, client } = await mcpDoor();
    const { tools } = await client.listTools();
    const annotationsOfTool = new Map(tools.map((tool) => [tool.name, tool.annotations]));
    const state = { webhookId: '', meetingId: '', deliveryId: '' };
    const db = t.app.database.db;
    const deliveries = async () => (await db.selectFrom('webhook_deliveries').select('delivery_id').execute()).length;
    const events = async () => (await db.selectFrom('events').select('event_id').execute()).length;

    const scenarios: Scenario[] = [
      { tool: 'campaign_create', args: () => ({ input: CAMPAIGN }), retry: 'CONFLICT' },
      {
        tool: 'campaign_update',
        args: () => ({ input: { campId: 'spring', title: 'Renamed' } }),
        retry: 'written again',
      },
      {
        tool: 'text_pipeline_set',
        args: () => ({ input: { campId: 'spring', pipeline: { goal: 'Book a demo' } } }),
        retry: 'written again',
      },
      ...Object.entries(INTEGRATIONS).map(([kind, input]): Scenario => ({
        tool: `${kind}_connect`,
        args: () => ({ input }),
        retry: 'written again',
      })),
      {
        tool: 'webhook_create',
        args: () => ({ input: { url: 'https://hooks.example.com/in' } }),
        retry: 'another record',
        keep: (data) => (state.webhookId = data.webhookCreate.webhook.webhookId),
      },
      {
        tool: 'webhook_update',
        args: () => ({ input: { webhookId: state.webhookId, description: 'CRM' } }),
        retry: 'written again',
      },
      {
        tool: 'webhook_attach',
        args: () => ({ input: { webhookId: state.webhookId, campId: 'spring' } }),
        retry: 'the same answer',
      },
      { tool: 'campaign_pause', args: () => ({ input: { campId: 'spring' } }), retry: 'the same answer' },
      { tool: 'campaign_resume', args: () => ({ input: { campId: 'spring' } }), retry: 'the same answer' },
      {
        tool: 'webhook_delivery_redeliver',
        setUp: async () => {
          const [delivery] = await db.selectFrom('webhook_deliveries').select('delivery_id').execute();
          state.deliveryId = delivery?.delivery_id ?? '';
          await db
            .updateTable('webhook_deliveries')
            .set({ status: 'failed' })
            .where('delivery_id', '=', state.deliveryId)
            .execute();
        },
        args: () => ({ input: { deliveryId: state.deliveryId } }),
        retry: 'CONFLICT',
      },
      {
        tool: 'webhook_detach',
        args: () => ({ input: { webhookId: state.webhookId, campId: 'spring' } }),
        retry: 'the same answer',
      },
      {
        tool: 'meeting_book',
        args: () => ({ input: MEETING }),
        retry: 'CONFLICT',
        keep: (data) => (state.meetingId = data.meetingBook.meeting.meetingId),
      },
      { tool: 'meeting_cancel', args: () => ({ input: { meetingId: state.meetingId } }), retry: 'the same answer' },
      { tool: 'campaign_complete', args: () => ({ input: { campId: 'spring' } }), retry: 'the same answer' },
      { tool: 'text_pipeline_delete', args: () => ({ input: { campId: 'spring' } }), retry: 'NOT_FOUND' },
      { tool: 'webhook_delete', args: () => ({ input: { webhookId: state.webhookId } }), retry: 'NOT_FOUND' },
      ...Object.keys(INTEGRATIONS).map((kind): Scenario => ({
        tool: `${kind}_disconnect`,
        args: () => ({}),
        retry: 'NOT_FOUND',
      })),
      { tool: 'campaign_delete', args: () => ({ input: { campId: 'spring' } }), retry: 'NOT_FOUND' },
    ];
    // Every mutation tool has its scenario.
    const mutationTools = tools.filter((tool) => tool.annotations?.readOnlyHint === false).map((tool) => tool.name);
    expect(scenarios.map((scenario) => scenario.tool).sort()).toEqual(mutationTools.sort());

    for (const scenario of scenarios) {
      await scenario.setUp?.();
      const first = await toolAnswer(client, scenario.tool, scenario.args());
      expect(first, scenario.tool).toHaveProperty('data');
      scenario.keep?.((first as { data: Record<string, any> }).data);
      const [eventsBefore, deliveriesBefore] = [await events(), await deliveries()];
      const second = await toolAnswer(client, scenario.tool, scenario.args());
      const annotations = annotationsOfTool.get(scenario.tool);
      expect(annotations?.idempotentHint, scenario.tool).toBe(scenario.retry === 'the same answer');
      expectRetry(scenario, first, second);
      if (annotations?.idempotentHint) {
        // No additional effect: no event raised, no delivery queued for the webhooks of the campaign.
        expect([await events(), await deliveries()], scenario.tool).toEqual([eventsBefore, deliveriesBefore]);
      }
    }
  });

  it('queries are read-only and idempotent: asked twice, they answer the same', async () => {
    const { client } = await mcpDoor();
    const { tools } = await client.listTools();
    for (const tool of tools.filter((candidate) => candidate.annotations?.readOnlyHint)) {
      expect(tool.annotations, tool.name).toMatchObject({ idempotentHint: true, destructiveHint: false });
    }
    await toolAnswer(client, 'campaign_create', { input: CAMPAIGN });
    for (const [name, args] of [
      ['campaign_list', { first: 10 }],
      ['campaign_get', { campId: 'spring' }],
      ['integration_list', {}],
    ] as const) {
      const first = await toolAnswer(client, name, args);
      expect(first, name).toHaveProperty('data');
      expect(await toolAnswer(client, name, args), name).toEqual(first);
    }
  });
});

function expectRetry(scenario: Scenario, first: ToolAnswer, second: ToolAnswer): void {
  const { tool, retry } = scenario;
  switch (retry) {
    case 'the same answer':
      expect(second, tool).toEqual(first);
      return;
    case 'CONFLICT':
    case 'NOT_FOUND':
      expect(second, tool).toMatchObject({ error: retry });
      return;
    case 'written again':
      expect(second, tool).toHaveProperty('data');
      return;
    case 'another record':
      expect(second, tool).toHaveProperty('data');
      expect(second, tool).not.toEqual(first);
  }
}

describe('annotations follow from each mutation’s declared effect', () => {
  const tools = [...buildTools(schema, MCP_OPERATIONS).values()];
  const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));

  it('permanent or replacing operations are destructive; reversible and state-keeping ones are not', () => {
    const destructive = [
      'campaign_complete',
      'campaign_update',
      'campaign_delete',
      'text_pipeline_set',
      'text_pipeline_delete',
      'meeting_cancel',
      'webhook_update',
      'webhook_delete',
      ...Object.keys(INTEGRATIONS).flatMap((kind) => [`${kind}_connect`, `${kind}_disconnect`]),
    ];
    const notDestructive = [
      'campaign_create',
      'campaign_pause',
      'campaign_resume',
      'meeting_book',
      'webhook_create',
      'webhook_attach',
      'webhook_detach',
      'webhook_delivery_redeliver',
    ];
    for (const name of destructive) expect(annotations[name]?.destructiveHint, name).toBe(true);
    for (const name of notDestructive) expect(annotations[name]?.destructiveHint, name).toBe(false);
    expect([...destructive, ...notDestructive].sort()).toEqual(
      tools
        .filter((tool) => tool.kind === OperationTypeNode.MUTATION)
        .map((tool) => tool.name)
        .sort(),
    );
  });

  it('every mutation tool declares its effect, and no effect is declared for a mutation no tool runs', () => {
    const rootFields = tools
      .filter((tool) => tool.kind === OperationTypeNode.MUTATION)
      .map((tool) => tool.operationName.charAt(0).toLowerCase() + tool.operationName.slice(1));
    expect(Object.keys(MUTATION_EFFECTS).sort()).toEqual(rootFields.sort());
    expect(() => annotationsOf('AccountLogin', OperationTypeNode.MUTATION, 'accountLogin')).toThrow(
      /declare the effect of accountLogin/,
    );
    expect(annotationsOf('CampaignList', OperationTypeNode.QUERY, 'campaigns')).toMatchObject({
      readOnlyHint: true,
      idempotentHint: true,
      destructiveHint: false,
    });
  });
});
