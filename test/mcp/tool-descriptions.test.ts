// Descriptions written for the tool (docs/mcp.md, "Tools are named operations"): every tool has its own
// (src/mcp/descriptions.ts), and no description, of a tool or anywhere in its schemas, names another door: no
// /api/v3 path or REST operation, no GraphQL root field that is not a tool; a name it quotes (`like this`) is one of
// its arguments, of its answer's fields, an enum value or a tool, so it promises nothing the answer does not hold.
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
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

/** A tool as the checks read it: its description and schemas. */
interface DescribedTool {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/** Every description of a tool: its own, and those inside its schemas, with where each is. */
const textsOf = (tool: DescribedTool) => [
  { at: 'description', text: tool.description },
  ...descriptionsIn(tool.inputSchema, 'inputSchema'),
  ...descriptionsIn(tool.outputSchema, 'outputSchema'),
];

/** What a tool's descriptions say of another door (a REST path or operation, a GraphQL root field not a tool). */
function doorProblems(tool: DescribedTool): string[] {
  return textsOf(tool).flatMap(({ at, text }) => {
    const named = otherDoors(text);
    return named.length > 0 ? [`${tool.name} ${at}: ${named.join(', ')} in "${text}"`] : [];
  });
}

/** The schema names a tool's descriptions quote that are neither its arguments, its answer's fields nor a tool. */
function quotedProblems(tool: DescribedTool): string[] {
  const known = namesIn(tool.inputSchema, namesIn(tool.outputSchema));
  return textsOf(tool).flatMap(({ at, text }) =>
    [...text.matchAll(/`([A-Za-z_][\w.]*)`/g)].flatMap(([, quoted]) => {
      const unknown = (quoted ?? '')
        .split('.')
        .filter((part) => SCHEMA_NAMES.has(part) && !known.has(part) && !TOOL_NAMES.has(part));
      return unknown.length > 0 ? [`${tool.name} ${at}: \`${quoted}\` in "${text}"`] : [];
    }),
  );
}

describe('the description checks refuse what they are meant to refuse', () => {
  const fake = (description: string, inputDescription = 'The campaign: its campId.'): DescribedTool => ({
    name: 'fake_tool',
    description,
    inputSchema: {
      type: 'object',
      properties: { campId: { type: 'string', description: inputDescription } },
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { title: { type: 'string' } } },
  });

  it('a REST path, a REST operation and a GraphQL root field that is not a tool are each refused', () => {
    // A fake tool naming all three, and one of each alone (each check refuses on its own).
    const all = fake(
      'Reads campaigns as /api/v3/get_campaigns does, or get_supported_voices, or upcomingMeetings. Argument: `campId`.',
    );
    const problems = doorProblems(all);
    expect(problems).toHaveLength(1);
    for (const named of ['a door or its documentation', 'get_campaigns', 'get_supported_voices', 'upcomingMeetings']) {
      expect(problems[0], named).toContain(named);
    }
    expect(doorProblems(fake('Lists campaigns (as /api/v3/campaigns does). No arguments.'))).toEqual([
      expect.stringContaining('a door or its documentation'),
    ]);
    expect(doorProblems(fake('Lists the voices, as get_supported_voices does. No arguments.'))).toEqual([
      expect.stringContaining('get_supported_voices'),
    ]);
    expect(doorProblems(fake('Lists what upcomingMeetings lists. No arguments.'))).toEqual([
      expect.stringContaining('upcomingMeetings'),
    ]);
    // A one-word root field quoted or called; REST and GraphQL by name.
    for (const [text, named] of [
      ['Reads what `voices` reads. No arguments.', 'voices'],
      ['Reads what node(id) reads. No arguments.', 'node'],
      ['Reads campaigns over REST. No arguments.', 'a door or its documentation'],
      ['Reads campaigns over GraphQL. No arguments.', 'a door or its documentation'],
    ] as const) {
      expect(doorProblems(fake(text)), text).toEqual([expect.stringContaining(named)]);
    }
    // Inside the schemas too.
    expect(doorProblems(fake('Reads a campaign. Argument: `campId`.', 'The campId get_campaign takes.'))).toEqual([
      expect.stringMatching(/^fake_tool inputSchema\/properties\/campId: get_campaign in/),
    ]);
    // A tool's own name, and words that merely look alike, are not another door.
    expect(doorProblems(fake('Reads a campaign (campaign_get reads its texts). Argument: `campId`.'))).toEqual([]);
  });

  it('a quoted schema name the tool neither takes nor answers is refused', () => {
    expect(quotedProblems(fake('Reads a campaign. Arguments: `campId`; answers its `title`.'))).toEqual([]);
    expect(quotedProblems(fake('Reads a campaign and its `script`. Argument: `campId`.'))).toEqual([
      expect.stringContaining('`script`'),
    ]);
  });
});

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
    expect(TOOLS.flatMap(doorProblems)).toEqual([]);
  });

  it('a schema name a tool quotes is one of its arguments, its answer’s fields, an enum value or a tool', () => {
    expect(TOOLS.flatMap(quotedProblems)).toEqual([]);
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

describe('the words of tools/list', () => {
  it('speak of tools and arguments, not of GraphQL (no cache, global id, connection, node, cursor of an edge)', () => {
    const words =
      /\b(GraphQL|mutation|resolver|normali[sz]ed cache|global id|connection|edges?|nodes?|cursor|__typename|payload)\b|\b[A-Z][a-z]+[A-Z]\w*\.[a-z]\w*/;
    const found: string[] = [];
    const walk = (json: unknown, tool: string) => {
      if (Array.isArray(json)) json.forEach((item) => walk(item, tool));
      else if (json && typeof json === 'object') {
        for (const [key, value] of Object.entries(json)) {
          if (key === 'description' && typeof value === 'string' && words.test(value)) found.push(`${tool}: ${value}`);
          else walk(value, tool);
        }
      }
    };
    for (const tool of TOOLS) walk(tool, tool.name);
    expect(found).toEqual([]);
  });
});
