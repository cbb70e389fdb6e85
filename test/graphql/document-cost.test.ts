// One cost model for every execution (issue 52; src/graphql/server/document-cost.ts, docs/limits.md "What a document
// costs"): the cost is computed on the operation that runs, with its variables and argument defaults, before anything
// runs, on every door — a page size given as a variable costs what the same literal costs; introspection is counted;
// the refusal is COST_LIMIT_EXCEEDED with the cost and the limit. And an answer's long texts have a budget.
import { getIntrospectionQuery, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/schema/document-limits.js';
import { MAX_ANSWER_TEXT_CHARACTERS } from '../../src/graphql/schema/field-costs.js';
import { internalSchema, schema, subgraphSchema } from '../../src/graphql/schema/schema.js';
import { documentCost } from '../../src/graphql/server/document-cost.js';
import { MCP_OPERATIONS } from '../../src/mcp/operations.js';
import { routes } from '../../src/rest/routes.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { seedCallLogs } from '../helpers/columns-read.js';
import { allResults, wsDoor } from '../helpers/ws-client.js';
import { loopbackGateways } from '../helpers/gateway.js';
import { toolAnswer } from '../helpers/mcp-client.js';

const gateway = loopbackGateways();

/** The document of the report: 100 campaigns, each with 100 call logs, each with its campaign. */
const NESTED = (first: string, inner: string) =>
  `campaigns(first: ${first}) { edges { node { callLogs(first: ${inner}) { edges { node { campaign { title } } } } } } }`;
const LITERAL = `query Nested { ${NESTED('100', '100')} }`;
const VARIABLE = `query Nested($n: Int, $m: Int) { ${NESTED('$n', '$m')} }`;
const DEFAULTED = `query Nested($n: Int = 100) { ${NESTED('$n', '$n')} }`;
const ALIASED_INTROSPECTION = `{ ${Array.from(
  { length: 30 },
  (_, index) => `a${index}: __schema { types { name fields { name args { name } type { name } } } }`,
).join(' ')} }`;

const cost = (text: string, variables: Record<string, unknown> = {}, graph = schema) =>
  documentCost(graph, parse(text), undefined, variables, Number.MAX_SAFE_INTEGER)?.cost;

describe('the cost of a document', () => {
  it('is the same whether a page size is a literal, a variable or a variable default', () => {
    const literal = cost(LITERAL);
    expect(literal).toBeGreaterThan(GRAPHQL_LIMITS.cost);
    expect(cost(VARIABLE, { n: 100, m: 100 })).toBe(literal);
    expect(cost(DEFAULTED)).toBe(literal);
    // An absent page size is the default page (20), not 0.
    expect(cost(VARIABLE)).toBe(cost(`{ ${NESTED('20', '20')} }`));
    expect(cost(VARIABLE, { n: 10, m: 10 })).toBeLessThan(GRAPHQL_LIMITS.cost);
  });

  it('counts introspection by what it answers: one full introspection fits, 30 aliases of one do not', () => {
    const full = cost(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    expect(full).toBeGreaterThan(2000);
    expect(full).toBeLessThan(GRAPHQL_LIMITS.cost);
    expect(cost(getIntrospectionQuery(), {}, subgraphSchema())).toBeLessThan(GRAPHQL_LIMITS.cost);
    const aliased = documentCost(schema, parse(ALIASED_INTROSPECTION), undefined, {});
    expect(aliased?.cost).toBeGreaterThan(GRAPHQL_LIMITS.cost);
  });

  it('fits every REST route at its largest page within the limit', () => {
    const costs = routes.map((route) => ({
      route: `${route.method} ${route.path}`,
      cost: cost(route.document, { limit: 1000, offset: 0 }, internalSchema) ?? 0,
    }));
    // Counted: 1000 call logs with their long texts.
    expect(Math.max(...costs.map((entry) => entry.cost))).toBeGreaterThan(3000);
    expect(costs.filter((entry) => entry.cost > GRAPHQL_LIMITS.cost)).toEqual([]);
  });

  it("fits every MCP tool's document at its largest page within the limit of every document", () => {
    const over = MCP_OPERATIONS.flatMap((text) => {
      const document = parse(text);
      return document.definitions.flatMap((definition) => {
        if (definition.kind !== 'OperationDefinition') return [];
        const found = documentCost(schema, document, definition.name?.value, { first: 100, limit: 200 });
        return found && found.cost > GRAPHQL_LIMITS.cost ? [{ operation: definition.name?.value, ...found }] : [];
      });
    });
    expect(over).toEqual([]);
  });
});

/** The media type under which a refusal is a 400 (under application/json, a 200). */
const STRICT = { accept: 'application/graphql-response+json' };
const JSON_ONLY = { accept: 'application/json' };

/** The refusal every door answers (GraphQL's shape). */
const refusal = expect.objectContaining({
  message: expect.stringMatching(/^The query would cost \d+, more than the limit of 20000: ask for fewer items/),
  extensions: { code: 'COST_LIMIT_EXCEEDED', cost: cost(LITERAL), limit: GRAPHQL_LIMITS.cost },
});

describe('every door', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp({}, [], { worker: false });
    ({ token } = await t.account());
  });
  afterAll(() => t.close());

  /** Whether any campaign or call log was read since the last reset (a refused document reads nothing). */
  const readAnything = () => t.queries.some((sql) => /from "(campaigns|call_logs)"/.test(sql));

  it('refuses the variable page sizes on POST, with the cost and the limit, before anything runs', async () => {
    t.resetQueries();
    const answer = await t.request('POST', '/graphql', {
      token,
      headers: STRICT,
      body: { query: VARIABLE, variables: { n: 100, m: 100 } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ errors: [refusal] });
    expect(answer.text).not.toMatch(/Syntax Error/);
    expect(readAnything()).toBe(false);
    // The literal document is refused the same way.
    // Under application/json, 200 as the GraphQL-over-HTTP spec asks of that media type (as the other refusals).
    const literal = await t.request('POST', '/graphql', { token, headers: JSON_ONLY, body: { query: LITERAL } });
    expect(literal.status).toBe(200);
    expect(literal.body).toEqual({ errors: [refusal] });
  });

  it('refuses it on GET, with a default value of a variable, and through the prepared lane', async () => {
    const query = encodeURIComponent(VARIABLE);
    const get = await t.request('GET', `/graphql?query=${query}&variables=${encodeURIComponent('{"n":100,"m":100}')}`, {
      token,
      headers: STRICT,
    });
    expect(get.status).toBe(400);
    expect(get.body).toEqual({ errors: [refusal] });

    const defaulted = await t.request('POST', '/graphql', { token, body: { query: DEFAULTED } });
    expect(defaulted.body).toEqual({ errors: [refusal] });

    // A small page first (yoga validates the document and the lane learns it), then the costly one: the lane's.
    const small = await t.request('POST', '/graphql', { token, body: { query: VARIABLE, variables: { n: 2, m: 2 } } });
    expect(small.body).toEqual({ data: { campaigns: { edges: [] } } });
    const served = t.app.lane?.stats().served ?? 0;
    t.resetQueries();
    const lane = await t.request('POST', '/graphql', {
      token,
      headers: STRICT,
      body: { query: VARIABLE, variables: { n: 100, m: 100 } },
    });
    expect(lane.status).toBe(400);
    expect(lane.body).toEqual({ errors: [refusal] });
    if (t.app.lane) expect(t.app.lane.stats().served).toBe(served + 1);
    expect(readAnything()).toBe(false);
  });

  it('counts introspection, signed in or not: one answers, 30 aliases of one are refused', async () => {
    const full = await t.request('POST', '/graphql', { body: { query: getIntrospectionQuery() } });
    expect(full.status).toBe(200);
    expect(full.body.data.__schema.types.length).toBeGreaterThan(50);
    for (const caller of [undefined, token]) {
      const aliased = await t.request('POST', '/graphql', {
        token: caller,
        headers: STRICT,
        body: { query: ALIASED_INTROSPECTION },
      });
      expect(aliased.status).toBe(400);
      expect(aliased.body.errors[0].extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', limit: 20000 });
      expect(aliased.body.errors[0].message).toMatch(/^The query would cost at least \d+, more than the limit/);
    }
  });

  it('counts the representations of /subgraph with their selection', async () => {
    const query = `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Campaign {
      callLogs(first: 100) { edges { node { callId transcript summary } } } } } }`;
    const send = (count: number) =>
      t.request('POST', '/subgraph', {
        token,
        headers: STRICT,
        body: {
          query,
          variables: { r: Array.from({ length: count }, () => ({ __typename: 'Campaign', campId: 'x' })) },
        },
      });
    const refused = await send(100);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', limit: 20000 });
    const one = await send(1);
    // Within the cost: it runs (the campaign is nobody's, and its non-null field was asked: NOT_FOUND).
    expect(one.body.data).toEqual({ _entities: [null] });
    expect(one.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'NOT_FOUND',
    ]);
  });

  it('runs the REST list routes at their largest page', async () => {
    const calls = await t.rest('GET', '/get_call_logs_for_user?limit=1000', { token });
    expect(calls.status, calls.text).toBe(200);
    const campaigns = await t.rest('GET', '/get_campaigns?limit=1000', { token });
    expect(campaigns.status, campaigns.text).toBe(200);
  });
});

describe('WebSocket', () => {
  it('refuses the variable page sizes with the cost and the limit', async () => {
    const t = await startApp({}, [], { worker: false });
    const door = await wsDoor(t);
    const { token } = await t.account();
    const client = door.client(token);
    try {
      const run = (variables: Record<string, unknown>) => allResults(client, { query: VARIABLE, variables });
      expect(await run({ n: 100, m: 100 })).toEqual([{ errors: [refusal] }]);
      expect(await run({ n: 2, m: 2 })).toEqual([{ data: { campaigns: { edges: [] } } }]);
    } finally {
      await door.close();
      await t.close();
    }
  });
});

describe('the MCP graphql tool', () => {
  it('refuses the variable page sizes with the cost and the limit', async () => {
    const { t, url } = await gateway({ MCP_GRAPHQL_TOOL: 'true' });
    const { token } = await t.account();
    const client = new Client(
      { name: 'cost-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    const answer = await toolAnswer(client, 'graphql', { query: VARIABLE, variables: { n: 100, m: 100 } });
    expect(answer).toEqual({ error: 'COST_LIMIT_EXCEEDED', message: expect.stringMatching(/would cost \d+, more/) });
    const small = await toolAnswer(client, 'graphql', { query: VARIABLE, variables: { n: 2, m: 2 } });
    expect(small).toEqual({ data: expect.anything() });
  });
});

describe("an answer's long texts", () => {
  let t: TestApp;
  let token: string;
  /** Enough 400 000-character transcripts to pass the budget. */
  const CALLS = Math.ceil(MAX_ANSWER_TEXT_CHARACTERS / 400_000) + 2;
  beforeAll(async () => {
    t = await startApp({}, [], { worker: false });
    const account = await t.account();
    token = account.token;
    await createLegacyCampaign(t, token, 'calls');
    await seedCallLogs(t, account.id, CALLS, () => ({
      transcript: 't'.repeat(400_000),
      summary: 'short',
      analysis: null,
    }));
  });
  afterAll(() => t.close());

  it('are cut past the budget, with one error that names it (GraphQL)', async () => {
    const answer = await t.gql(`{ callLogs(first: 100) { edges { node { callId transcript } } } }`, {}, token);
    const nodes = answer.body.data!.callLogs.edges.map((edge: { node: { transcript: string | null } }) => edge.node);
    expect(nodes).toHaveLength(CALLS);
    const kept = nodes.filter((node: { transcript: string | null }) => node.transcript !== null).length;
    expect(kept * 400_000).toBeLessThanOrEqual(MAX_ANSWER_TEXT_CHARACTERS);
    expect(kept).toBeGreaterThan(0);
    expect(answer.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/more than \d+ characters of long text/),
        extensions: { code: 'RESPONSE_TOO_LARGE', limit: MAX_ANSWER_TEXT_CHARACTERS },
      }),
    ]);
    // The budget is the answer's, not the caller's: the same page again keeps as many.
    const again = await t.gql(`{ callLogs(first: 100) { edges { node { callId transcript } } } }`, {}, token);
    const keptAgain = again.body.data!.callLogs.edges.filter(
      (edge: { node: { transcript: string | null } }) => edge.node.transcript !== null,
    ).length;
    expect(keptAgain).toBe(kept);
    // Without the transcripts, the same page answers whole.
    const short = await t.gql(`{ callLogs(first: 100) { edges { node { callId summary } } } }`, {}, token);
    expect(short.body.errors).toBeUndefined();
  });

  it('are refused as a 400 with a detail on the REST door', async () => {
    const answer = await t.rest('GET', '/get_call_logs_for_user?limit=1000', { token });
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/more than \d+ characters of long text/);
    const fewer = await t.rest('GET', '/get_call_logs_for_user?limit=10', { token });
    expect(fewer.status).toBe(200);
  });
});
