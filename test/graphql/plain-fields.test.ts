// Plain fields (src/graphql/schema/plain-fields.ts; docs/graphql-internals.md "Plain fields"): the columns of campaigns, call logs,
// meetings, webhooks and deliveries are read without a resolver call each, from objects shaped once where they are
// made; their resolvers stay the definition, and shadow mode (the whole suite) checks every lane answer against a
// schema that calls them all.
import SchemaBuilder from '@pothos/core';
import { type GraphQLObjectType, type GraphQLSchema, isObjectType, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAIN_FIELDS } from '../../src/graphql/schema/plain-fields.js';
import { referenceSchema, schema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';

/** The fields of a type that still have a resolver. */
const resolved = (graph: GraphQLSchema, name: string) =>
  Object.values((graph.getType(name) as GraphQLObjectType).getFields())
    .filter((field) => field.resolve)
    .map((field) => field.name)
    .sort();

describe('the served schema', () => {
  it('keeps resolvers only where a field needs one: loaders, connections, nested nodes, secrets, a call log’s id', () => {
    expect(resolved(schema, 'Campaign')).toEqual([
      'callLogs',
      'meetings',
      'meetingsConnection',
      'metrics',
      'socialMessages',
      'textPipeline',
      'voice',
      'webhooks',
    ]);
    // A call log's transcript and summary count against the answer's text budget as they resolve (field-costs.ts).
    expect(resolved(schema, 'CallLog')).toEqual(['campaign', 'id', 'summary', 'transcript']);
    expect(resolved(schema, 'Meeting')).toEqual(['campaign']);
    expect(resolved(schema, 'Webhook')).toEqual(['campaigns', 'deliveries', 'secret']);
    expect(resolved(schema, 'WebhookDelivery')).toEqual([]);
    // The edges of their connections are shaped with their nodes; a cursor is encoded only when selected.
    for (const edge of ['CampaignEdge', 'CallLogEdge', 'MeetingEdge', 'WebhookDeliveryEdge']) {
      expect(resolved(schema, edge), edge).toEqual(['cursor']);
    }
  });

  it('has a reference with every resolver in place and the same types', () => {
    const reference = referenceSchema(schema);
    const campaign = reference.getType('Campaign') as GraphQLObjectType;
    // Only a property exposed under its own name has none there (Pothos leaves graphql-js's default to it).
    const unresolved = Object.values(campaign.getFields()).filter((field) => !field.resolve);
    expect(unresolved.map((field) => field.name)).toEqual(['campId']);
    expect(Object.keys(reference.getTypeMap()).sort()).toEqual(Object.keys(schema.getTypeMap()).sort());
  });
});

/** A builder with this plugin alone (the app's other plugins declare options every builder's type then asks for). */
const ONLY_PLAIN_FIELDS = { plugins: [PLAIN_FIELDS] } as never;

describe('the plugin', () => {
  interface Thing {
    key: string;
    label: string;
    count: number;
    kind: 'a' | 'b';
  }
  const built = (withLate = false) => {
    const builder = new SchemaBuilder<{ Context: { viewer: string } }>(ONLY_PLAIN_FIELDS);
    const Kind = builder.enumType('Kind', { values: { A: { value: 'a' }, B: { value: 'b' } } as const });
    const seen: unknown[] = [];
    const Named = builder.interfaceRef<Thing>('Named').implement({
      fields: (t) => ({ label: t.exposeString('label') }),
    });
    const ThingRef = builder.objectRef<Thing>('Thing').implement({
      plainFields: true,
      interfaces: [Named],
      fields: (t) => ({
        key: t.exposeString('key'),
        name: t.exposeString('label'),
        kind: t.field({ type: Kind, plain: true, resolve: (thing) => thing.kind }),
        owned: t.string({ plain: true, resolve: (thing, _args, context) => `${context.viewer}:${thing.key}` }),
        double: t.int({
          args: { times: t.arg.int({ defaultValue: 2 }) },
          resolve: (thing, args) => {
            seen.push(thing);
            return thing.count * (args.times ?? 2);
          },
        }),
        ...(withLate
          ? { late: t.string({ plain: true, resolve: (thing) => Promise.resolve(thing.key) as unknown as string }) }
          : {}),
      }),
    });
    // A shaped type holding another under the property of its field's name (no resolver): shaped in the same pass.
    const BoxRef = builder.objectRef<{ thing: Thing }>('Box').implement({
      plainFields: true,
      fields: (t) => ({ thing: t.expose('thing', { type: ThingRef }) }),
    });
    const things: Thing[] = [
      { key: 'k1', label: 'One', count: 1, kind: 'a' },
      { key: 'k2', label: 'Two', count: 2, kind: 'b' },
    ];
    builder.queryType({
      fields: (t) => ({
        things: t.field({ type: [ThingRef], resolve: () => Promise.resolve(things) }),
        thing: t.field({ type: ThingRef, nullable: true, resolve: () => things[0] }),
        box: t.field({ type: BoxRef, resolve: () => ({ thing: things[1] as Thing }) }),
        named: t.field({
          type: Named,
          resolve: () => ({ ...(things[1] as Thing), [Symbol.for('Pothos.typeBrandKey')]: 'Thing' }) as Thing,
        }),
      }),
    });
    return { builder, seen, things };
  };

  const run = async (graph: GraphQLSchema, query: string) => {
    const compiled = compileQuery(graph, parse(query));
    if (!isCompiledQuery(compiled)) throw new Error(JSON.stringify(compiled));
    return JSON.parse(JSON.stringify(await compiled.query(undefined, { viewer: 'v1' }, {}))) as unknown;
  };

  it('answers as the resolvers do, through lists, single objects and interfaces', async () => {
    const { builder, seen, things } = built();
    const plain = builder.toSchema();
    const reference = builder.toSchema({ plainFields: false });
    const thing = plain.getType('Thing');
    expect(
      isObjectType(thing) &&
        Object.values(thing.getFields())
          .filter((f) => f.resolve)
          .map((f) => f.name),
    ).toEqual(['double']);
    const query = `{ things { key name kind owned double(times: 3) } thing { kind owned }
      named { label ... on Thing { owned kind double } } box { thing { key owned } } }`;
    const answer = await run(plain, query);
    expect(answer).toEqual(await run(reference, query));
    expect(answer).toEqual({
      data: {
        things: [
          { key: 'k1', name: 'One', kind: 'A', owned: 'v1:k1', double: 3 },
          { key: 'k2', name: 'Two', kind: 'B', owned: 'v1:k2', double: 6 },
        ],
        thing: { kind: 'A', owned: 'v1:k1' },
        named: { label: 'Two', owned: 'v1:k2', kind: 'B', double: 4 },
        box: { thing: { key: 'k2', owned: 'v1:k2' } },
      },
    });
    // The type's other resolvers get the object the shaped one was made from.
    expect(seen).toContain(things[0]);
    expect(seen).toContain(things[1]);
  });

  it('refuses, as an error of the field, a plain resolver that returns a promise', async () => {
    const { builder } = built(true);
    const answer = (await run(builder.toSchema(), '{ thing { key } }')) as { errors?: { message: string }[] };
    expect(answer.errors?.[0]?.message).toMatch(/Thing\.late is declared plain but its resolver returned a promise/);
  });

  it('refuses at start-up a plain field with arguments, or in a type that is not shaped', () => {
    const builder = new SchemaBuilder<{ Context: object }>(ONLY_PLAIN_FIELDS);
    builder.queryType({
      fields: (t) => ({ hello: t.string({ plain: true, resolve: () => 'hi' }) }),
    });
    expect(() => builder.toSchema()).toThrow(/Query\.hello is plain in a type without plainFields: true/);
    expect(() => builder.toSchema({ plainFields: false })).not.toThrow();
  });
});

describe('shadow mode', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('compares each lane answer with the resolvers’ own: a resolver answering otherwise fails the request', async () => {
    t = await startApp({}, [], { worker: false });
    const { token } = await t.account();
    const created = await t.gql(
      `mutation { campaignCreate(input: { campId: "plain-1", title: "Plain", voiceId: "en-US-aria", language: "en-US",
        script: "Hello", purpose: "Test", knowledgeBase: "kb", calendar: "cal-1", firstLine: "Hi", tone: "friendly",
        postCallAnalysisSchema: {} }) { campaign { id title } } }`,
      undefined,
      token,
    );
    expect(created.body.data.campaignCreate.campaign.title).toBe('Plain');
    const query = '{ campaigns(first: 5) { edges { node { id campId title creationDate status voiceId } } } }';
    const agreed = await t.gql(query, undefined, token);
    expect(agreed.status).toBe(200);
    expect(agreed.body.data.campaigns.edges[0].node).toMatchObject({ campId: 'plain-1', title: 'Plain' });
    expect((t.app.lane?.stats().served ?? 0) > 0).toBe(true);

    const reference = referenceSchema(t.app.yoga.getEnveloped().schema);
    const title = (reference.getType('Campaign') as GraphQLObjectType).getFields().title;
    if (!title) throw new Error('no Campaign.title');
    const original = title.resolve;
    title.resolve = () => 'not what the column holds';
    try {
      // Another document (a compiled query is kept per document): the lane's plain read against the changed resolver.
      await expect(t.gql(`query Other ${query}`, undefined, token)).rejects.toThrow(
        /The prepared lane answered differently: .*body .*"title":"Plain".* against yoga's .*not what the column holds/,
      );
    } finally {
      title.resolve = original;
    }
  });
});
