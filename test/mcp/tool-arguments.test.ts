// Every tool's input schema says what the server accepts, provably (docs/mcp.md, "Tools are named operations"): for
// each tool, arguments generated from its own input schema (the required ones at their smallest, every one at its
// largest, and random ones) are never refused as invalid, and for every constraint of the schema, arguments breaking
// that constraint alone are refused with that argument named. Each tool runs in an account of its own, through the
// door as an agent calls it (the official SDK 1.x client over HTTP, which checks each answer against the tool's
// output schema). Ajv checks the generator: what it calls valid the schema accepts, and each violation it refuses.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import { mcpToolDefinitions } from '../../src/mcp/tool-list.js';
import { patternInWords, patternsInWords } from '../../src/mcp/pattern-words.js';
import type { JsonSchema } from '../../src/validation/input-json-schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { randomSource, type References, type Shape, validValue, violations } from '../helpers/schema-arguments.js';

/** Codes that say the arguments were refused; any other answer (NOT_FOUND for a made-up id, CONFLICT…) is not that. */
const REFUSED_ARGUMENTS = new Set(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED']);

/**
 * Rules across arguments that JSON Schema cannot state, which the tool's description states instead: the generator
 * keeps them (a meeting ends after it starts, at most 24 hours later).
 */
const CROSS_ARGUMENT_RULES: Record<string, (args: Record<string, any>) => void> = {
  // A span of a week in a zone Intl knows (a span or zone JSON Schema cannot check is the server's to refuse).
  call_stats: (args) => {
    if (typeof args.from === 'string') args.to = new Date(Date.parse(args.from) + 7 * 86_400_000).toISOString();
    if (typeof args.timeZone === 'string') args.timeZone = 'Europe/Paris';
    if (Array.isArray(args.campIds)) args.campIds = [];
  },
  meeting_book: (args) => {
    if (!args.input?.startsAt) return;
    args.input.endsAt = new Date(Date.parse(args.input.startsAt) + 1_800_000).toISOString();
  },
};

interface ToolError {
  code: string;
  message: string;
  issues?: Array<{ path: Array<string | number>; message: string }>;
}

let app: TestApp;
let http: HttpServer;
let url: URL;
let references: References;

beforeAll(async () => {
  app = await startApp({}, [], { worker: false });
  http = createHttpServer(app.app);
  const { port } = await listen(http.server, 0, '127.0.0.1');
  // Every tool listed (docs/mcp.md "Toolsets"): the SDK checks each answer against the output schema it listed.
  url = new URL(`http://127.0.0.1:${port}/mcp?toolsets=all`);
  const client = await connect();
  const voices = await client.callTool({ name: 'voice_list', arguments: {} });
  const listed = (voices.structuredContent as { voices: Array<{ voiceId: string }> }).voices;
  references = { voiceId: listed.map((voice) => voice.voiceId) };
  await client.close();
});

afterAll(async () => {
  http.server.closeAllConnections();
  await new Promise<void>((resolve) => http.server.close(() => resolve()));
  await app.close();
});

/** A client of the door for a new account (each tool's calls in an account of their own). */
async function connect(): Promise<Client & { tools: Map<string, Tool> }> {
  const { token } = await app.account();
  const client = new Client({ name: 'tool-arguments-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  const { tools } = await client.listTools();
  return Object.assign(client, { tools: new Map(tools.map((tool) => [tool.name, tool])) });
}

/**
 * A campaign and a webhook in the client's account, whose ids the generated arguments use: the arguments of what
 * lies below them (a campaign's call logs, a webhook's deliveries) are checked only once they are found. A cursor is
 * one a page's nextCursor gave (there is none on a first page: null).
 */
async function accountReferences(client: Client): Promise<References> {
  const campaign = await client.callTool({
    name: 'campaign_create',
    arguments: {
      input: {
        title: 'Fixture',
        voiceId: references.voiceId?.[0],
        language: 'en-US',
        script: 's',
        purpose: 'p',
        knowledgeBase: 'k',
        calendar: 'c',
        firstLine: 'f',
        tone: 't',
        postCallAnalysisSchema: {},
      },
    },
  });
  const webhook = await client.callTool({
    name: 'webhook_create',
    arguments: { input: { url: 'https://hooks.example.com/fixture' } },
  });
  return {
    ...references,
    campId: [(campaign.structuredContent as any).campaignCreate.campaign.campId],
    webhookId: [(webhook.structuredContent as any).webhookCreate.webhook.webhookId],
    after: [null],
  };
}

const errorsOf = (result: Record<string, unknown>): ToolError[] => {
  const [first] = (result.content ?? []) as Array<{ text?: string }>;
  return (JSON.parse(first?.text ?? '{}') as { errors?: ToolError[] }).errors ?? [];
};

const samePath = (a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>) =>
  a.length === b.length && b.every((segment, index) => String(a[index]) === String(segment));

/**
 * Whether an error names the argument at `path`: an issue at exactly that path, or a part of its message that starts
 * with that path as the server writes one (`input.title: String should have at most 200 characters`, badInput's
 * `path: message` parts joined by `; `). Naming the argument somewhere in the message is not enough.
 */
const names = (error: ToolError, path: ReadonlyArray<string | number>) =>
  (error.issues ?? []).some((issue) => samePath(issue.path, path)) ||
  error.message.split('; ').some((part) => part.startsWith(`${path.join('.')}: `));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

const TOOLS = mcpToolDefinitions();

describe('every tool schema says what the server accepts', () => {
  it('an error names an argument by its exact path, not by a mention in its message', () => {
    const error = (message: string, issues?: ToolError['issues']): ToolError => ({
      code: 'BAD_USER_INPUT',
      message,
      ...(issues ? { issues } : {}),
    });
    expect(names(error('x', [{ path: ['input', 'title'], message: 'm' }]), ['input', 'title'])).toBe(true);
    expect(names(error('a: m; input.title: too long'), ['input', 'title'])).toBe(true);
    // Above it, below it, or merely mentioned: not that argument's issue.
    expect(names(error('x', [{ path: ['input'], message: 'm' }]), ['input', 'title'])).toBe(false);
    expect(names(error('x', [{ path: ['input', 'title', 0], message: 'm' }]), ['input', 'title'])).toBe(false);
    expect(names(error('input: input.title is wrong'), ['input', 'title'])).toBe(false);
    expect(names(error('Variable "$first" got invalid value'), ['first'])).toBe(false);
  });

  it.each(TOOLS.map((tool) => tool.name))(
    '%s: generated valid arguments pass, and each single violation is refused with its argument named',
    async (name) => {
      const client = await connect();
      const known = await accountReferences(client);
      const tool = TOOLS.find((candidate) => candidate.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      // What the door lists is what schema/mcp-tools.json holds.
      expect(client.tools.get(name)?.inputSchema).toEqual(tool.inputSchema);
      const schema = tool.inputSchema as JsonSchema;
      const validate = ajv.compile(schema);
      const random = randomSource([...name].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 7));
      // `nulls`: every argument and field the schema lets be null is null (and `random` makes some null).
      const shapes: Shape[] = ['minimal', 'maximal', 'random', 'random', 'nulls'];
      let baseline: Record<string, unknown> | undefined;
      for (const shape of shapes) {
        const args = validValue(schema, shape, random, known) as Record<string, unknown>;
        CROSS_ARGUMENT_RULES[name]?.(args);
        expect(validate(args), `${name} ${shape}: ${JSON.stringify(validate.errors)}`).toBe(true);
        const result = await client.callTool({ name, arguments: args });
        const refused = result.isError ? errorsOf(result).filter((error) => REFUSED_ARGUMENTS.has(error.code)) : [];
        expect(refused, `${name} ${shape} ${JSON.stringify(args).slice(0, 400)}`).toEqual([]);
        baseline ??= args;
      }
      // One violation per constraint, from the minimal valid arguments (then every required argument is there) and
      // from the maximal ones (every optional argument too).
      const valid = [baseline ?? {}, validValue(schema, 'maximal', random, known) as Record<string, unknown>];
      for (const args of valid) CROSS_ARGUMENT_RULES[name]?.(args);
      const seen = new Set<string>();
      for (const violation of valid.flatMap((args) => violations(schema, args))) {
        if (seen.has(violation.what)) continue;
        seen.add(violation.what);
        if (violation.serverOnly) {
          // A rule JSON Schema cannot write: the schema admits the value; if the server refuses it, the field's
          // description says the rule.
          expect(validate(violation.args), `${name} ${violation.what}: the schema admits it`).toBe(true);
          const answer = await client.callTool({ name, arguments: violation.args });
          const refusedHere = answer.isError
            ? errorsOf(answer).some((error) => REFUSED_ARGUMENTS.has(error.code) && names(error, violation.path))
            : false;
          if (refusedHere) {
            expect(violation.serverOnly.description, `${name} ${violation.what}: the description says it`).toMatch(
              violation.serverOnly.described,
            );
          }
          continue;
        } else {
          expect(validate(violation.args), `${name} ${violation.what}: the schema should refuse it`).toBe(false);
        }
        const result = await client.callTool({ name, arguments: violation.args });
        expect(result.isError, `${name} ${violation.what}: the server accepted it`).toBe(true);
        const errors = errorsOf(result);
        expect(
          errors.some((error) => REFUSED_ARGUMENTS.has(error.code) && names(error, violation.path)),
          `${name} ${violation.what}: ${JSON.stringify(errors).slice(0, 600)}`,
        ).toBe(true);
        // What is wanted, in words: never a regular expression (src/mcp/pattern-words.ts).
        expect(JSON.stringify(errors), `${name} ${violation.what}`).not.toMatch(/should match pattern|"\^|'\^/);
      }
      expect(seen.size, name).toBeGreaterThan(0);
      await client.close();
    },
    60_000,
  );

  it('every pattern of every tool has its words', () => {
    const patterns = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        const record = value as Record<string, unknown>;
        if (typeof record.pattern === 'string') patterns.add(record.pattern);
        Object.values(record).forEach(walk);
      }
    };
    for (const tool of mcpToolDefinitions()) walk(tool.inputSchema);
    expect(patterns.size).toBeGreaterThan(5);
    for (const pattern of patterns) expect(patternInWords(pattern), pattern).not.toBeNull();
    expect(patternInWords('^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$')).toMatch(/language tag such as "en-US"/);
    expect(patternInWords('^[A-Za-z][A-Za-z0-9_+-]*(\\/[A-Za-z0-9_+-]+)*$')).toMatch(/IANA time zone/);
    expect(patternsInWords("campId: String should match pattern '^[A-Za-z0-9_-]{1,64}$'; x: y")).toBe(
      "campId: Input should be 1 to 64 letters, digits, '_' or '-' (no spaces); x: y",
    );
  });

  it('enum values round-trip: what one tool answers, another takes', async () => {
    const client = await connect();
    const created = await client.callTool({
      name: 'webhook_create',
      arguments: {
        input: { url: 'https://hooks.example.com/in', eventTypes: ['CALL_ENDED', 'CAMPAIGN_STATUS_CHANGED'] },
      },
    });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const webhook = (created.structuredContent as any).webhookCreate.webhook;
    expect(webhook.eventTypes).toEqual(['CALL_ENDED', 'CAMPAIGN_STATUS_CHANGED']);
    const read = await client.callTool({ name: 'webhook_get', arguments: { webhookId: webhook.webhookId } });
    const updated = await client.callTool({
      name: 'webhook_update',
      arguments: {
        input: { webhookId: webhook.webhookId, eventTypes: (read.structuredContent as any).webhook.eventTypes },
      },
    });
    expect(updated.isError, JSON.stringify(updated.content)).toBeFalsy();
    // The spelling of the events' bodies is not the one the tools take.
    const dotted = await client.callTool({
      name: 'webhook_update',
      arguments: { input: { webhookId: webhook.webhookId, eventTypes: ['call.ended'] } },
    });
    expect(errorsOf(dotted)[0]?.issues?.[0]?.path).toEqual(['input', 'eventTypes', 0]);
    // Every enum an input schema lists is spelled as the output schemas spell the same enum.
    const outputEnums = new Set<string>();
    const inputEnums: string[] = [];
    const collect = (json: unknown, into: (values: string[]) => void) => {
      if (Array.isArray(json)) json.forEach((item) => collect(item, into));
      else if (json && typeof json === 'object') {
        const record = json as Record<string, unknown>;
        if (Array.isArray(record.enum)) into(record.enum.filter((value): value is string => typeof value === 'string'));
        Object.values(record).forEach((value) => collect(value, into));
      }
    };
    for (const tool of TOOLS) {
      collect(tool.outputSchema, (values) => values.forEach((value) => outputEnums.add(value)));
      collect(tool.inputSchema, (values) => inputEnums.push(...values));
    }
    for (const value of inputEnums) expect(value).toMatch(/^[A-Z][A-Z0-9_]*$/);
    expect(inputEnums.filter((value) => ['CALL_ENDED', 'COMPLETED', 'PAUSED'].includes(value)).length).toBeGreaterThan(
      0,
    );
    for (const value of ['CALL_ENDED', 'CAMPAIGN_STATUS_CHANGED']) expect(outputEnums.has(value)).toBe(true);
    await client.close();
  });
});
