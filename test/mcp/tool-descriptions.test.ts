// Descriptions written for the tool (docs/mcp.md, "Tools are named operations"): every tool has its own
// (src/mcp/descriptions.ts), and no description, of a tool or anywhere in its schemas, names another door: no
// /api/v3 path or REST operation, no GraphQL root field that is not a tool; a name it quotes (`like this`) is one of
// its arguments, of its answer's fields, an enum value or a tool, so it promises nothing the answer does not hold.
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { TOOL_DESCRIPTIONS } from '../../src/mcp/descriptions.js';
import { MCP_OPERATIONS } from '../../src/mcp/operations.js';
import { mcpToolDefinitions } from '../../src/mcp/tool-list.js';
import { toolName } from '../../src/mcp/tools.js';
import { routes } from '../../src/rest/routes.js';

const TOOLS = mcpToolDefinitions();
const TOOL_NAMES = new Set(TOOLS.map((tool) => tool.name));

/** Every description in a JSON Schema, with where it is. */
function descriptionsIn(json: unknown, at = ''): Array<{ at: string; text: string }> {
  if (Array.isArray(json)) return json.flatMap((item) => descriptionsIn(item, at));
  if (!json || typeof json !== 'object') return [];
  return Object.entries(json).flatMap(([key, value]) =>
    key === 'description' && typeof value === 'string' ? [{ at, text: value }] : descriptionsIn(value, `${at}/${key}`),
  );
}

/** Every property name and enum value in a JSON Schema. */
function namesIn(json: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(json)) json.forEach((item) => namesIn(item, found));
  else if (json && typeof json === 'object') {
    for (const [key, value] of Object.entries(json)) {
      if (key === 'properties') Object.keys(value as object).forEach((name) => found.add(name));
      if (key === 'enum') (value as unknown[]).forEach((item) => found.add(String(item)));
      namesIn(value, found);
    }
  }
  return found;
}

/** The REST door's operation names: the segments of its paths (`get_supported_voices`), snake_case ones. */
const REST_NAMES = new Set(
  routes.flatMap((route) => route.path.split('/')).filter((segment) => /^[a-z]+(_[a-z0-9]+)+$/.test(segment)),
);

/** GraphQL root fields that are not tools. */
const ROOT_FIELDS = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((type) =>
  Object.keys(type?.getFields() ?? {}),
);

/** Every field and argument name of the schema: a quoted one of these is a promise about the tool. */
const SCHEMA_NAMES = new Set(
  Object.values(schema.getTypeMap()).flatMap((type) =>
    'getFields' in type
      ? Object.values(type.getFields()).flatMap((field) => [
          field.name,
          ...('args' in field ? field.args.map((argument: { name: string }) => argument.name) : []),
        ])
      : [],
  ),
);

/** What in `text` names another door. */
function otherDoors(text: string): string[] {
  const found: string[] = [];
  if (/\/api\/v\d|\bREST\b|\bGraphQL\b|docs\/\w+\.md/.test(text)) found.push('a door or its documentation');
  for (const name of REST_NAMES) if (new RegExp(`\\b${name}\\b`).test(text)) found.push(name);
  for (const field of ROOT_FIELDS) {
    if (TOOL_NAMES.has(field)) continue;
    // A camelCase field anywhere (upcomingMeetings); a one-word one (voices, node) quoted or called.
    const pattern = /[A-Z]/.test(field) ? `\\b${field}\\b` : `\`${field}\`|\\b${field}\\(`;
    if (new RegExp(pattern).test(text)) found.push(field);
  }
  return found;
}

describe('MCP tool descriptions', () => {
  it('every tool has a description of its own, and every description is for a tool', () => {
    const operationNames = MCP_OPERATIONS.map((source) => /(?:query|mutation)\s+(\w+)/.exec(source)?.[1] ?? '');
    expect(Object.keys(TOOL_DESCRIPTIONS).sort()).toEqual([...operationNames].sort());
    for (const tool of TOOLS) {
      const [first] = tool.description.split(/(?<=\.) /);
      // One sentence of what it does, then its arguments.
      expect(first?.length, tool.name).toBeLessThan(200);
      expect(tool.description, tool.name).toMatch(/Arguments?\b|No arguments/);
    }
    for (const name of Object.keys(TOOL_DESCRIPTIONS)) expect(TOOL_NAMES.has(toolName(name)), name).toBe(true);
  });

  it('no description names a REST path or operation, or a GraphQL field that is not a tool', () => {
    const problems: string[] = [];
    for (const tool of TOOLS) {
      const texts = [
        { at: 'description', text: tool.description },
        ...descriptionsIn(tool.inputSchema, 'inputSchema'),
        ...descriptionsIn(tool.outputSchema, 'outputSchema'),
      ];
      for (const { at, text } of texts) {
        const named = otherDoors(text);
        if (named.length > 0) problems.push(`${tool.name} ${at}: ${named.join(', ')} in "${text}"`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('a schema name a tool quotes is one of its arguments, its answer’s fields, an enum value or a tool', () => {
    const problems: string[] = [];
    for (const tool of TOOLS) {
      const known = namesIn(tool.inputSchema, namesIn(tool.outputSchema));
      const texts = [
        { at: 'description', text: tool.description },
        ...descriptionsIn(tool.inputSchema, 'inputSchema'),
        ...descriptionsIn(tool.outputSchema, 'outputSchema'),
      ];
      for (const { at, text } of texts) {
        for (const [, quoted] of text.matchAll(/`([A-Za-z_][\w.]*)`/g)) {
          const unknown = (quoted ?? '')
            .split('.')
            .filter((part) => SCHEMA_NAMES.has(part) && !known.has(part) && !TOOL_NAMES.has(part));
          if (unknown.length > 0) problems.push(`${tool.name} ${at}: \`${quoted}\` in "${text}"`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('the webhook tools promise no signing secret their answer does not hold', () => {
    for (const tool of TOOLS.filter((candidate) => candidate.name.startsWith('webhook_'))) {
      expect(namesIn(tool.outputSchema).has('secret'), tool.name).toBe(false);
      for (const { text } of [{ text: tool.description }, ...descriptionsIn(tool.outputSchema)]) {
        expect(text, tool.name).not.toMatch(/`secret`|its secret signs/i);
      }
    }
  });
});
