// The MCP tools follow from their operations and the schema alone (src/mcp/tools.ts): the committed
// schema/mcp-tools.json is what the code derives (npm run schema rewrites it), every declared operation is one tool,
// described and with an output schema, the schemas are valid JSON Schema and as strict as the server, and an
// operation the rules refuse (a deprecated field, no name, two operations) fails at start-up.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import { MCP_OPERATIONS } from '../../src/mcp/operations.js';
import { mcpToolDefinitions, printMcpTools } from '../../src/mcp/tool-list.js';
import { buildTools, toolFromOperation } from '../../src/mcp/tools.js';
import { ROOT } from '../helpers/server-process.js';

describe('MCP tool definitions', () => {
  it('schema/mcp-tools.json is what the operations and the schema give (run npm run schema after changing either)', () => {
    expect(readFileSync(join(ROOT, 'schema/mcp-tools.json'), 'utf8')).toBe(printMcpTools());
    // Derived twice, the same: nothing depends on time, order of loading or the environment.
    expect(mcpToolDefinitions()).toEqual(mcpToolDefinitions());
  });

  it('is one tool per declared operation, each with a description, an input and an output schema', () => {
    const tools = mcpToolDefinitions();
    // The operations' tools, text_read and account_get.
    expect(tools).toHaveLength(MCP_OPERATIONS.length + 2);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z][a-z0-9_]{2,63}$/);
      expect(tool.description.length, tool.name).toBeGreaterThan(10);
      expect(tool.outputSchema.type, tool.name).toBe('object');
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema), tool.name).not.toThrow();
    }
  });

  it('the input schema refuses what the server refuses, and accepts what it accepts', () => {
    const tools = Object.fromEntries(mcpToolDefinitions().map((tool) => [tool.name, tool]));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const create = ajv.compile(tools.campaign_create?.inputSchema ?? {});
    const good = {
      title: 'T',
      voiceId: 'en-US-aria',
      language: 'en-US',
      script: 's',
      purpose: 'p',
      knowledgeBase: 'k',
      calendar: 'c',
      firstLine: 'f',
      tone: 't',
      postCallAnalysisSchema: {},
    };
    expect(create({ input: good }), JSON.stringify(create.errors)).toBe(true);
    for (const bad of [
      {},
      { input: { ...good, title: undefined } },
      { input: { ...good, maxCallTimeout: 121 } },
      { input: { ...good, campId: 'has space' } },
      { input: { ...good, language: 'not a tag' } },
      { input: { ...good, unknownField: 1 } },
      { input: good, extra: true },
    ]) {
      expect(create(JSON.parse(JSON.stringify(bad))), JSON.stringify(bad)).toBe(false);
    }
    const list = ajv.compile(tools.call_log_list?.inputSchema ?? {});
    expect(list({ first: 100, status: 'COMPLETED', since: '2026-01-01T00:00:00Z' })).toBe(true);
    expect(list({ first: 101 })).toBe(false);
    expect(list({ status: 'DONE' })).toBe(false);
  });

  it('refuses operations the door cannot offer', () => {
    expect(() => toolFromOperation(schema, '{ viewer { accountId } }')).toThrow(/named operation/);
    expect(() => toolFromOperation(schema, 'query A { viewer { accountId } } query B { voices { voiceId } }')).toThrow(
      /exactly one/,
    );
    expect(() =>
      toolFromOperation(schema, 'mutation Old($campId: String!) { pauseCampaign(campId: $campId) { campId } }'),
    ).toThrow(/deprecated/);
    expect(() => toolFromOperation(schema, 'query Bad { nope }')).toThrow(/Cannot query field/);
    expect(() => buildTools(schema, [MCP_OPERATIONS[0] ?? '', MCP_OPERATIONS[0] ?? ''])).toThrow(/two tools/);
  });
});

it('no MCP module reaches the database or the domain services: tools run GraphQL operations only', () => {
  const dir = join(ROOT, 'src/mcp');
  for (const name of readdirSync(dir)) {
    const source = readFileSync(join(dir, name), 'utf8');
    const imports = [...source.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gms)].map((m) => m[1] ?? '');
    for (const path of imports) {
      expect(path, `${name} imports ${path}`).not.toMatch(/\/db\/|\/domain\/|kysely|better-sqlite3|^pg$/);
    }
  }
});

describe('open-world hints', () => {
  it('are true exactly for the tools that reach outside: phone calls and requests to a third party', () => {
    const open = mcpToolDefinitions()
      .filter((tool) => tool.annotations.openWorldHint)
      .map((tool) => tool.name);
    expect(open).toEqual(['campaign_create', 'campaign_resume', 'webhook_delivery_redeliver']);
  });
});
