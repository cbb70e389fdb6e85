// Compiled plans (src/graphql/server/; docs/graphql-internals.md "Compiled plans"): a query whose selection below its root fields is
// plain runs on a plan compiled from the schema, with the same answer as graphql-jit's compiled query over every
// resolver. Every test app runs in shadow mode (test/helpers/app.ts): each request the prepared lane answers is
// answered again by yoga on the reference schema (every resolver in place, no plan) and must match byte for byte. Here
// the documents the plan covers and declines are sent through both doors, and the plan must have answered the ones
// it covers.
import { describe, expect, it } from 'vitest';
import SchemaBuilder from '@pothos/core';
import { execute, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { compilePlan, PlanDeclined } from '../../src/graphql/server/compiled-plan.js';
import { planStats } from '../../src/graphql/server/compiled-plans.js';
import { PLAIN_FIELDS } from '../../src/graphql/schema/plain-fields.js';
import { schema, internalSchema } from '../../src/graphql/schema/schema.js';
import type { TestApp } from '../helpers/app.js';
import { appsClosedAfterEach } from '../helpers/started-apps.js';

const start = appsClosedAfterEach();

const campaignInput = (campId: string, extra = '') => `{ campId: "${campId}", title: "Plan ${campId}",
  voiceId: "en-US-aria", language: "en-US", script: "Hello", purpose: "Test", knowledgeBase: "kb", calendar: "cal-1",
  firstLine: "Hi", tone: "friendly", postCallAnalysisSchema: { outcome: "string" } ${extra} }`;

async function seed(t: TestApp, token: string, count: number) {
  for (let i = 0; i < count; i++) {
    const created = await t.gql(
      `mutation { campaignCreate(input: ${campaignInput(`plan-${i}`)}) { campaign { campId } } }`,
      undefined,
      token,
    );
    expect(created.body.errors).toBeUndefined();
  }
}

const ALL_SCALARS = `id campId title voiceId language script purpose knowledgeBase calendar firstLine flowName
  systemPrompt tone postCallAnalysisSchema status createdAt creationDate updatedAt`;

/** What the plan answered since `before`. */
const delta = (before: typeof planStats) => ({
  served: planStats.served - before.served,
  declined: planStats.declined - before.declined,
});

describe('compiled plans', () => {
  it('answers a page of campaigns with every scalar, cursors and page info, as the resolvers do', async () => {
    const t = await start();
    const { token } = await t.account();
    await seed(t, token, 3);
    const query = `query Page($first: Int, $after: String) { campaigns(first: $first, after: $after) {
      __typename edges { cursor node { __typename ${ALL_SCALARS} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
    const before = { ...planStats };
    const first = await t.gql(query, { first: 2 }, token);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.campaigns.edges).toHaveLength(2);
    expect(first.body.data.campaigns.pageInfo.hasNextPage).toBe(true);
    // A cursor read from the answer, sent back as input: the next page.
    const next = await t.gql(query, { first: 2, after: first.body.data.campaigns.pageInfo.endCursor }, token);
    expect(next.body.data.campaigns.edges).toHaveLength(1);
    // Shadow mode compared each lane answer with the reference's (a difference fails the request's test).
    const again = await t.gql(query, { first: 2 }, token);
    expect(again.text).toBe(first.text);
    expect(delta(before).served).toBeGreaterThanOrEqual(3);
    expect(delta(before).declined).toBe(0);
  });

  it('hands what it cannot answer to graphql-jit: a bad argument, another kind of cursor, no token', async () => {
    const t = await start();
    const { token } = await t.account();
    await seed(t, token, 1);
    const query =
      'query P($first: Int, $after: String) { campaigns(first: $first, after: $after) { edges { node { campId } } } }';
    const before = { ...planStats };
    // Each declined by the plan and answered by graphql-jit (shadow mode compares each with the reference's answer).
    const tooLarge = await t.gql(query, { first: 1000 }, token);
    expect(tooLarge.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const garbage = await t.gql(query, { first: 1, after: 'not-a-cursor' }, token);
    expect(garbage.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const anonymous = await t.gql(query, { first: 1 });
    expect(anonymous.body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect(delta(before)).toEqual({ served: 0, declined: 3 });
    // A variable of the wrong type: graphql-jit's coercion answers it.
    const wrongType = await t.gql(query, { first: 'ten' }, token);
    expect(wrongType.body.errors?.[0]?.message).toMatch(/integer/);
    expect(delta(before)).toEqual({ served: 0, declined: 4 });
    // The plan is kept: the next good request is its own.
    const fine = await t.gql(query, { first: 1 }, token);
    expect(fine.body.data.campaigns.edges).toHaveLength(1);
    expect(delta(before)).toEqual({ served: 1, declined: 4 });
  });

  it('counts its requests in /metrics, and every request by operation as before', async () => {
    const t = await start();
    const { token } = await t.account();
    await seed(t, token, 1);
    const query = 'query PlanCounted { campaigns(first: 5) { edges { node { campId metrics { totalNumCall } } } } }';
    for (let i = 0; i < 3; i++)
      expect((await t.gql(query, undefined, token)).body.data.campaigns.edges).toHaveLength(1);
    const text = (await t.request('GET', '/metrics')).text;
    const value = (prefix: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(prefix))
          ?.split(' ')
          .pop(),
      );
    expect(value('gateway_graphql_compiled_plan_requests_total{outcome="served"} ')).toBe(planStats.served);
    expect(text).toMatch(
      /gateway_graphql_operation_duration_seconds_count\{[^}]*operation_name="PlanCounted"[^}]*\} 3\n/,
    );
  });

  it('leaves a document it does not cover to graphql-jit, which answers it as before', async () => {
    const t = await start();
    const { token } = await t.account();
    await seed(t, token, 2);
    const before = { ...planStats };
    const withDirective = await t.gql(
      'query D($more: Boolean!) { campaigns(first: 5) { edges { node { campId title @include(if: $more) } } } }',
      { more: true },
      token,
    );
    expect(withDirective.body.data.campaigns.edges).toHaveLength(2);
    expect(withDirective.body.data.campaigns.edges[0].node.title).toMatch(/^Plan /);
    const nodes = await t.gql('{ campaigns(first: 1) { edges { node { id } } } }', undefined, token);
    const id = nodes.body.data.campaigns.edges[0].node.id as string;
    const byNode = await t.gql(`{ node(id: "${id}") { ... on Campaign { campId } } }`, undefined, token);
    expect(byNode.body.data.node.campId).toMatch(/^plan-/);
    // Only the page of ids ran on a plan.
    expect(delta(before)).toEqual({ served: 1, declined: 0 });
  });

  it('runs the operation named in a document of several, each on its own plan', async () => {
    const t = await start();
    const { token, email } = await t.account();
    await seed(t, token, 1);
    const query = 'query A { campaigns(first: 5) { edges { node { campId } } } } query B { viewer { email } }';
    const before = { ...planStats };
    for (let round = 0; round < 2; round++) {
      const a = await t.request('POST', '/graphql', { body: { query, operationName: 'A' }, token });
      expect(a.body.data).toEqual({ campaigns: { edges: [{ node: { campId: 'plan-0' } }] } });
      const b = await t.request('POST', '/graphql', { body: { query, operationName: 'B' }, token });
      expect(b.body.data).toEqual({ viewer: { email } });
    }
    expect(delta(before)).toEqual({ served: 4, declined: 0 });
  });

  it('keeps each account to its own campaigns', async () => {
    const t = await start();
    const a = await t.account();
    const b = await t.account();
    await seed(t, a.token, 2);
    const query = '{ campaigns(first: 10) { edges { node { campId } } } }';
    const before = { ...planStats };
    expect((await t.gql(query, undefined, a.token)).body.data.campaigns.edges).toHaveLength(2);
    expect((await t.gql(query, undefined, b.token)).body.data.campaigns.edges).toHaveLength(0);
    expect(delta(before).served).toBe(2);
  });

  it('answers the REST routes it covers with the same bodies', async () => {
    const t = await start();
    const { token } = await t.account();
    await seed(t, token, 2);
    const before = { ...planStats };
    const list = await t.request('GET', '/api/v3/get_campaigns', { token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    // get_campaign's document spreads a fragment: covered too.
    const one = await t.request('GET', '/api/v3/get_campaign?campId=plan-1', { token });
    expect(one.status).toBe(200);
    expect(delta(before).served).toBe(2);
    const off = await start({ GRAPHQL_COMPILED_PLANS: 'false' });
    const other = await off.account();
    await seed(off, other.token, 2);
    const reference = await off.request('GET', '/api/v3/get_campaigns', { token: other.token });
    const referenceOne = await off.request('GET', '/api/v3/get_campaign?campId=plan-1', { token: other.token });
    const shape = (body: unknown) => JSON.stringify(body, (key, value) => (/date|At$/i.test(key) ? 'when' : value));
    expect(shape(list.body)).toBe(shape(reference.body));
    expect(shape(one.body)).toBe(shape(referenceOne.body));
  });
});

describe('a plan met by what it cannot answer', () => {
  const Item = new GraphQLObjectType({
    name: 'Item',
    fields: { name: { type: new GraphQLNonNull(GraphQLString) }, later: { type: GraphQLString } },
  });
  const tiny = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: { items: { type: new GraphQLList(Item), resolve: (root: { items: unknown[] }) => root.items } },
    }),
  });
  const run = (query: string, items: unknown[]) => {
    const plan = compilePlan(tiny, parse(query), undefined);
    if (!('run' in plan)) throw new Error(plan.reason);
    return plan.run({ schema: tiny, document: parse(query), rootValue: { items }, contextValue: {} });
  };

  it('answers plain properties', async () => {
    expect(await run('{ items { name } }', [{ name: 'a' }, { name: 'b' }])).toEqual({
      data: { items: [{ name: 'a' }, { name: 'b' }] },
    });
  });

  it('declines a null in a non-null field, and drops itself for a property that is a promise', async () => {
    const nullName = await run('{ items { name } }', [{ name: null }]);
    expect(nullName).toBeInstanceOf(PlanDeclined);
    expect((nullName as PlanDeclined).dropPlan).toBe(false);
    const promised = await run('{ items { later } }', [{ later: Promise.resolve('x') }]);
    expect((promised as PlanDeclined).dropPlan).toBe(true);
  });

  it('declines a value its scalar refuses', async () => {
    expect(await run('{ items { name } }', [{ name: { not: 'a string' } }])).toBeInstanceOf(PlanDeclined);
  });
});

describe('a plan over shaped types', () => {
  interface Thing {
    key: string;
    label: string;
  }
  const made = () => {
    const calls = { label: 0, shout: 0 };
    const builder = new SchemaBuilder<{ Context: object }>({ plugins: [PLAIN_FIELDS] } as never);
    const ThingRef = builder.objectRef<Thing>('Thing').implement({
      plainFields: true,
      fields: (t) => ({
        key: t.exposeString('key'),
        label: t.string({ plain: true, resolve: (thing) => ((calls.label += 1), thing.label) }),
        shout: t.string({ plain: true, resolve: (thing) => ((calls.shout += 1), thing.label.toUpperCase()) }),
      }),
    });
    const things: Thing[] = [
      { key: 'k1', label: 'one' },
      { key: 'k2', label: 'two' },
    ];
    builder.queryType({
      fields: (t) => ({ things: t.field({ type: [ThingRef], resolve: () => Promise.resolve(things) }) }),
    });
    return { graph: builder.toSchema(), calls };
  };

  it('computes only the plain fields the document selects, of objects left unshaped', async () => {
    const { graph, calls } = made();
    const query = parse('{ things { key shout } }');
    const plan = compilePlan(graph, query, undefined);
    if (!('run' in plan)) throw new Error(plan.reason);
    const context = {};
    expect(await plan.run({ schema: graph, document: query, contextValue: context })).toEqual({
      data: {
        things: [
          { key: 'k1', shout: 'ONE' },
          { key: 'k2', shout: 'TWO' },
        ],
      },
    });
    expect(calls).toEqual({ label: 0, shout: 2 });
    // graphql-js over the same schema shapes each object: every plain field computed, asked for or not.
    const shaped = await execute({ schema: graph, document: query, contextValue: context });
    expect(shaped.data).toEqual({
      things: [
        { key: 'k1', shout: 'ONE' },
        { key: 'k2', shout: 'TWO' },
      ],
    });
    expect(calls).toEqual({ label: 2, shout: 4 });
  });
});

describe('what a plan covers (compiled from the schema)', () => {
  const covers = (query: string, served = schema) => 'run' in compilePlan(served, parse(query), undefined);
  const reason = (query: string) => {
    const plan = compilePlan(schema, parse(query), undefined);
    return 'reason' in plan ? plan.reason : 'covered';
  };

  it('covers plain selections under a root field, with aliases and __typename', () => {
    expect(covers(`{ campaigns(first: 5) { edges { node { ${ALL_SCALARS} } } } }`)).toBe(true);
    expect(covers('{ a: campaigns(first: 1) { edges { n: node { c: campId } } } b: viewer { email } }')).toBe(true);
    expect(covers('{ campaignList(limit: 5) { campId title } }', internalSchema)).toBe(true);
  });

  it('covers fragments that apply, and a key selected twice (merged as graphql-js merges it)', () => {
    expect(covers('{ campaigns { edges { node { ...F } } } } fragment F on Campaign { campId }')).toBe(true);
    expect(covers('{ campaigns { edges { node { ... on Campaign { campId } ... on Node { id } } } } }')).toBe(true);
    expect(covers('{ campaigns { edges { node { campId campId } } edges { cursor } } }')).toBe(true);
  });

  it('declines directives, introspection, arguments below the root, abstract types, mutations', () => {
    expect(reason('query ($x: Boolean!) { campaigns { edges { node { campId @include(if: $x) } } } }')).toBe(
      'directives',
    );
    // What graphql-jit does not run either: a @live query, @defer and @stream (answered in more than one piece).
    expect(reason('query @live { campaigns { edges { node { campId } } } }')).toBe('directives');
    expect(reason('{ campaigns { edges { ... @defer { node { campId } } } } }')).toBe('directives');
    expect(reason('{ __schema { queryType { name } } }')).toBe('introspection');
    expect(reason('{ campaigns { edges { node { campId callLogs(first: 1) { edges { cursor } } } } } }')).toBe(
      'arguments below the root',
    );
    expect(reason('mutation { campaignDelete(campId: "x") { campaign { campId } } }')).toBe('not a query');
    expect(reason('{ node(id: "x") { id } }')).toMatch(/abstract type/);
  });
});
