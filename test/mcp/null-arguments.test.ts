// A null argument means its default, on every tool (issue 53): clients that fill every optional field with null
// (OpenAI's strict tool schemas do) mean "not given" by it. A null `status` on campaign_create made an ACTIVE
// campaign, which places calls at once; it now makes a PAUSED one, as leaving it out does.
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import { MCP_OPERATIONS } from '../../src/mcp/operations.js';
import { buildTools, withToolDefaults } from '../../src/mcp/tools.js';
import type { JsonSchema } from '../../src/validation/input-json-schema.js';
import { mcpCampaignInput } from '../helpers/gateway.js';
import { closeMcpDoorsAfterEach, mcpDoor, toolAnswer } from '../helpers/mcp-client.js';

closeMcpDoorsAfterEach();

type Step = { key: string } | { item: true };

/** Every place in a schema that gives a default: its path (object keys, list items) and the default. */
function defaultsIn(
  json: JsonSchema,
  path: Step[] = [],
  found: Array<{ path: Step[]; value: unknown; nullable: boolean }> = [],
) {
  const branches = Array.isArray(json.anyOf) ? (json.anyOf as JsonSchema[]) : [json];
  for (const branch of branches) {
    for (const [key, child] of Object.entries((branch.properties ?? {}) as Record<string, JsonSchema>)) {
      const at = [...path, { key }];
      const nullable = JSON.stringify(child).startsWith('{"anyOf":') && JSON.stringify(child.anyOf).includes('"null"');
      if (child.default !== undefined) found.push({ path: at, value: child.default, nullable });
      defaultsIn(child, at, found);
    }
    if (branch.items) defaultsIn(branch.items as JsonSchema, [...path, { item: true }], found);
  }
  return found;
}

/** Arguments holding null at `path` (objects and one-item lists on the way). */
function nullAt(path: Step[]): Record<string, unknown> {
  const build = (rest: Step[]): unknown => {
    const [step, ...more] = rest;
    if (!step) return null;
    return 'key' in step ? { [step.key]: build(more) } : [build(more)];
  };
  return build(path) as Record<string, unknown>;
}

function valueAt(args: unknown, path: Step[]): unknown {
  let value = args;
  for (const step of path)
    value = 'key' in step ? (value as Record<string, unknown>)[step.key] : (value as unknown[])[0];
  return value;
}

const label = (path: Step[]) => path.map((step) => ('key' in step ? step.key : '[]')).join('.');

describe('a null argument runs as its default', () => {
  it("on every tool, wherever its schema allows null and gives a default (a walk over every tool's input schema)", () => {
    const walked: string[] = [];
    for (const tool of buildTools(schema, MCP_OPERATIONS).values()) {
      for (const { path, value, nullable } of defaultsIn(tool.inputSchema)) {
        const sent = nullAt(path);
        const run = withToolDefaults(tool, sent);
        // Where the schema allows null, null is the default; elsewhere it stays, to be refused as the schema says.
        expect(valueAt(run, path), `${tool.name} ${label(path)}`).toEqual(nullable ? value : null);
        // What the client sent is left as it was.
        expect(valueAt(sent, path)).toBeNull();
        if (nullable) walked.push(`${tool.name} ${label(path)}`);
      }
    }
    // The walk found the places that matter: the status a campaign starts in, and the page sizes.
    expect(walked).toContain('campaign_create input.status');
    expect(walked).toContain('campaign_list first');
    expect(walked.filter((place) => place.endsWith(' first')).length).toBeGreaterThanOrEqual(3);
    expect(walked.length).toBeGreaterThanOrEqual(4);
  });

  it('a null without a default stays null; a value given stays as given', () => {
    const create = buildTools(schema, MCP_OPERATIONS).get('campaign_create')!;
    const args = { input: { campId: 'x', status: 'ACTIVE', purpose: null } };
    expect(withToolDefaults(create, args)).toEqual(args);
  });
});

describe('campaign_create through /mcp', () => {
  it('with status null makes a PAUSED campaign, which places no call', async () => {
    const { client } = await mcpDoor();
    const answer = await toolAnswer(client, 'campaign_create', {
      input: mcpCampaignInput({ campId: 'nulled', status: null }),
    });
    expect(answer).toMatchObject({ data: { campaignCreate: { campaign: { campId: 'nulled', status: 'PAUSED' } } } });
  });

  it('as a strict client sends it (every optional field null) makes a PAUSED campaign with the defaults', async () => {
    const { client } = await mcpDoor();
    const { tools } = await client.listTools();
    const create = tools.find((tool) => tool.name === 'campaign_create')!;
    const input = (create.inputSchema.properties as Record<string, JsonSchema>).input!;
    const given = mcpCampaignInput({ campId: 'strict' });
    const properties = input.properties as Record<string, JsonSchema>;
    // Every property the schema lets be null and the caller did not give: null, as OpenAI's strict mode sends it.
    const nulls = Object.fromEntries(
      Object.entries(properties)
        .filter(([name, property]) => !(name in given) && JSON.stringify(property).includes('"type":"null"'))
        .map(([name]) => [name, null]),
    );
    expect(Object.keys(nulls)).toContain('status');
    const answer = await toolAnswer(client, 'campaign_create', { input: { ...given, ...nulls } });
    expect(answer).toMatchObject({ data: { campaignCreate: { campaign: { campId: 'strict', status: 'PAUSED' } } } });
  });
});
