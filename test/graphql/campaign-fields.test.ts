// One declaration per campaign field (docs/decisions.md §5, "One declaration per field"): every field declared in
// CAMPAIGN_FIELDS is, with its declared name, type, description and default, on the GraphQL Campaign type and inputs,
// in the REST door's bodies and in the OpenAPI description, and a value written by either door is read back by both.
import { getNamedType, type GraphQLInputObjectType, type GraphQLObjectType, isNonNullType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CAMPAIGN_DEFAULTS,
  CAMPAIGN_FIELD_NAMES,
  CAMPAIGN_FIELDS,
  type CampaignField,
  type CampaignFieldName,
  FIELD_KINDS,
  graphqlNameOf,
} from '../../src/domain/campaigns.schema.js';
import { schema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

const declared = (name: CampaignFieldName): CampaignField => CAMPAIGN_FIELDS[name];

/** A value for each field that its own validation accepts and that differs from the helpers' values and defaults. */
function sampleValue(name: CampaignFieldName): unknown {
  const field = declared(name);
  const candidates: Record<string, unknown[]> = {
    text: [`value of ${name}`, 'en-GB-ryan', 'fr-FR', 'Europe/Paris'],
    int: [7],
    bool: [!(field.default ?? false)],
    json: [{ type: 'object', title: `schema of ${name}` }],
  };
  const value = candidates[field.kind]!.find((candidate) => field.schema.safeParse(candidate).success);
  if (value === undefined) throw new Error(`no sample value for ${name}`);
  return value;
}
/** Chosen once the app runs (the voice rule reads the catalogue it loads). */
let SAMPLE: Record<string, unknown>;

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
  ({ token } = await t.account());
  SAMPLE = Object.fromEntries(CAMPAIGN_FIELD_NAMES.map((name) => [name, sampleValue(name)]));
});
afterAll(() => t.close());

describe('the GraphQL schema', () => {
  const campaign = schema.getType('Campaign') as GraphQLObjectType;

  it.each(CAMPAIGN_FIELD_NAMES)('Campaign.%s has its GraphQL name, type and description', (name) => {
    const field = campaign.getFields()[graphqlNameOf(name)];
    expect(field, graphqlNameOf(name)).toBeDefined();
    expect(getNamedType(field!.type).name).toBe(FIELD_KINDS[declared(name).kind].graphql);
    expect(isNonNullType(field!.type)).toBe(true);
    expect(field!.description).toBe(declared(name).description);
  });

  it.each([
    ['CampaignUpdateInput', 'graphql'],
    ['UpdateCampaignInput', 'legacy'],
  ] as const)('%s has every field, each optional and without a default', (typeName, names) => {
    const fields = (schema.getType(typeName) as GraphQLInputObjectType).getFields();
    for (const name of CAMPAIGN_FIELD_NAMES) {
      const input = fields[names === 'graphql' ? graphqlNameOf(name) : name];
      expect(input, `${typeName}.${name}`).toBeDefined();
      expect(isNonNullType(input!.type), `${typeName}.${name}`).toBe(false);
      expect(input!.defaultValue, `${typeName}.${name}`).toBeUndefined();
    }
  });

  it.each([
    ['CampaignCreateInput', 'graphql'],
    ['CampaignUpsertInput', 'graphql'],
    ['CreateCampaignInput', 'legacy'],
    ['CampaignDataInput', 'legacy'],
  ] as const)('%s has every field, required unless it has a default', (typeName, names) => {
    const fields = (schema.getType(typeName) as GraphQLInputObjectType).getFields();
    for (const name of CAMPAIGN_FIELD_NAMES) {
      const input = fields[names === 'graphql' ? graphqlNameOf(name) : name];
      expect(input, `${typeName}.${name}`).toBeDefined();
      expect(isNonNullType(input!.type), `${typeName}.${name}`).toBe(true);
      expect(input!.defaultValue, `${typeName}.${name}`).toEqual(declared(name).default);
      expect(input!.description).toBe(declared(name).description);
    }
  });
});

describe('the doors', () => {
  it('a campaign written by REST reads back with every field on both doors', async () => {
    const written = await t.rest('POST', '/update_campaign', {
      token,
      body: { campId: 'every-field', campaignModelData: campaignModelData(SAMPLE) },
    });
    expect(written.status, written.text).toBe(200);
    const read = await t.rest('GET', '/get_campaign?campId=every-field', { token });
    const fields = CAMPAIGN_FIELD_NAMES.map(graphqlNameOf).join(' ');
    const gql = await t.gql(`{ campaign(campId: "every-field") { ${fields} } }`, {}, token);
    expect(gql.body.errors, gql.text).toBeUndefined();
    for (const name of CAMPAIGN_FIELD_NAMES) {
      expect(written.body[name], `update_campaign ${name}`).toEqual(SAMPLE[name]);
      expect(read.body[name], `get_campaign ${name}`).toEqual(SAMPLE[name]);
      expect(gql.body.data.campaign[graphqlNameOf(name)], `GraphQL ${name}`).toEqual(SAMPLE[name]);
    }
  });

  it('a campaign created by GraphQL with only its required fields has the declared defaults', async () => {
    const required = Object.fromEntries(
      CAMPAIGN_FIELD_NAMES.filter((name) => declared(name).default === undefined).map((name) => [
        graphqlNameOf(name),
        SAMPLE[name],
      ]),
    );
    const created = await t.gql(
      'mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { campId } } }',
      { input: { campId: 'defaults', ...required } },
      token,
    );
    expect(created.body.errors, created.text).toBeUndefined();
    const read = await t.rest('GET', '/get_campaign?campId=defaults', { token });
    for (const [name, value] of Object.entries(CAMPAIGN_DEFAULTS)) expect(read.body[name], name).toEqual(value);
    expect(Object.keys(CAMPAIGN_DEFAULTS).length).toBeGreaterThan(5);
  });

  it("a legacy body's 422 lists the required fields' problems first, then the optional ones (as it always has)", async () => {
    const reply = await t.rest('POST', '/update_campaign', {
      token,
      body: {
        campId: 'order',
        campaignModelData: campaignModelData({ flowName: 'x'.repeat(201), tone: 'x'.repeat(201), title: '' }),
      },
    });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail.map((problem: { loc: string[] }) => problem.loc.at(-1))).toEqual([
      'title',
      'tone',
      'flowName',
    ]);
  });

  it('every field, optional ones included, goes through campaignCreate and campaignUpdate under its GraphQL name', async () => {
    const everyField = Object.fromEntries(CAMPAIGN_FIELD_NAMES.map((name) => [graphqlNameOf(name), SAMPLE[name]]));
    const created = await t.gql(
      'mutation ($input: CampaignCreateInput!) { campaignCreate(input: $input) { campaign { campId } } }',
      { input: { campId: 'by-graphql', ...everyField } },
      token,
    );
    expect(created.body.errors, created.text).toBeUndefined();
    let read = await t.rest('GET', '/get_campaign?campId=by-graphql', { token });
    for (const name of CAMPAIGN_FIELD_NAMES) expect(read.body[name], `campaignCreate ${name}`).toEqual(SAMPLE[name]);

    // Each field alone, as a patch: back to the value a fresh legacy body gives it.
    const legacy = campaignModelData();
    for (const name of CAMPAIGN_FIELD_NAMES) {
      const value = name in legacy ? legacy[name] : declared(name).default;
      const patched = await t.gql(
        'mutation ($input: CampaignUpdateInput!) { campaignUpdate(input: $input) { campaign { campId } } }',
        { input: { campId: 'by-graphql', [graphqlNameOf(name)]: value } },
        token,
      );
      expect(patched.body.errors, `${name}: ${patched.text}`).toBeUndefined();
      read = await t.rest('GET', '/get_campaign?campId=by-graphql', { token });
      expect(read.body[name], `campaignUpdate ${name}`).toEqual(value);
    }
  });

  it('the OpenAPI description has every field, with its description, in the request and the answer', async () => {
    const doc = (await t.request('GET', '/api/v3/openapi.json')).body;
    const answer = doc.components.schemas.LegacyCampaign.properties;
    const request =
      doc.paths['/update_campaign'].post.requestBody.content['application/json'].schema.properties.campaignModelData;
    for (const name of CAMPAIGN_FIELD_NAMES) {
      expect(answer[name]?.description, `LegacyCampaign.${name}`).toBe(declared(name).description);
      // The request's description may add what its rule checks beyond the schema (a language tag Intl takes).
      expect(request.properties[name]?.description, `campaignModelData.${name}`).toContain(declared(name).description);
      expect(request.required.includes(name), `campaignModelData.${name} required`).toBe(
        declared(name).default === undefined,
      );
    }
  });
});
