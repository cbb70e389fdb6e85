// The two graphs (docs/graphql.md#two-graphs): `/graphql` serves only the public API; the fields that exist for the
// legacy REST door (offset lists, provider callbacks) live in the internal graph, which the REST router executes.
import { getNamedType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalSchema, schema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';

const INTERNAL_FIELDS = {
  Query: ['campaignList', 'callLogList', 'verifySocialWebhook'],
  Mutation: ['receiveCallStatusCallback', 'receiveSocialWebhook'],
};

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
  ({ token } = await t.account());
  await createLegacyCampaign(t, token, 'spring-outreach');
});
afterAll(() => t.close());

describe('the public graph at /graphql', () => {
  it('does not show the REST door’s fields in introspection', async () => {
    const reply = await t.gql(
      '{ q: __type(name: "Query") { fields(includeDeprecated: true) { name } } m: __type(name: "Mutation") { fields(includeDeprecated: true) { name } } }',
    );
    expect(reply.body.errors, reply.text).toBeUndefined();
    const names = (type: { fields: { name: string }[] }) => type.fields.map((f) => f.name);
    const query = names(reply.body.data.q);
    const mutation = names(reply.body.data.m);
    expect(query).toContain('campaigns');
    expect(mutation).toContain('campaignCreate');
    for (const field of INTERNAL_FIELDS.Query) expect(query).not.toContain(field);
    for (const field of INTERNAL_FIELDS.Mutation) expect(mutation).not.toContain(field);
  });

  it.each([
    ['campaignList', '{ campaignList { campId } }'],
    ['callLogList', '{ callLogList { callId } }'],
    ['verifySocialWebhook', '{ verifySocialWebhook(apiKey: "k", campId: "c") }'],
    ['receiveSocialWebhook', 'mutation { receiveSocialWebhook(apiKey: "k", campId: "c", rawBody: "{}") }'],
  ])('refuses %s as an unknown field', async (_field, query) => {
    const reply = await t.gql(query, {}, token);
    expect(reply.body.data, reply.text).toBeUndefined();
    expect(reply.body.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('while the REST door still runs them (get_campaigns is campaignList)', async () => {
    const reply = await t.rest('GET', '/get_campaigns', { token });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.map((c: { campaignId: string }) => c.campaignId)).toEqual(['spring-outreach']);
  });
});

describe('the internal graph', () => {
  it('holds every type and field of the public one, plus the REST door’s fields', () => {
    for (const type of Object.values(schema.getTypeMap())) {
      const twin = internalSchema.getType(type.name);
      expect(twin, type.name).toBeDefined();
      if (isObjectType(type) && isObjectType(twin)) {
        for (const [name, field] of Object.entries(type.getFields()))
          expect(getNamedType(twin.getFields()[name]!.type).name, `${type.name}.${name}`).toBe(
            getNamedType(field.type).name,
          );
      }
    }
    for (const [typeName, fields] of Object.entries(INTERNAL_FIELDS)) {
      const internal = internalSchema.getType(typeName);
      const pub = schema.getType(typeName);
      if (!isObjectType(internal) || !isObjectType(pub)) throw new Error(typeName);
      for (const field of fields) {
        expect(internal.getFields()[field], `${typeName}.${field}`).toBeDefined();
        expect(pub.getFields()[field], `${typeName}.${field}`).toBeUndefined();
      }
    }
  });
});
