// A normalised client cache can key on this API (docs/graphql.md#global-ids): urql's Graphcache, schema-aware, runs
// GraphiQL's own default operations and a list → refetch → mutate sequence against the server without a single
// warning, and an object changed by a mutation is changed in every list that holds it, with no refetch.
import { cacheExchange } from '@urql/exchange-graphcache';
import { Client, fetchExchange, gql } from '@urql/core';
import { type DocumentNode, introspectionFromSchema, isObjectType, Kind, parse } from 'graphql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GRAPHIQL_DEFAULT_QUERY } from '../../src/graphql/server/graphiql.js';
import { schema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';
import { VALUE_TYPES } from './value-types.js';

/** Every mutation's `…Payload` is a value too: it holds the changed object, which the cache keys by its id. */
const PAYLOAD_TYPES = Object.keys(schema.getTypeMap()).filter((name) => name.endsWith('Payload'));

let t: TestApp;
let warnings: string[];
let token: string | undefined;
let client: Client;

function newClient() {
  return new Client({
    url: 'http://gateway.test/graphql',
    // Through the app's fetch handler, as over HTTP; urql sends queries as GET and mutations as POST.
    fetch: (input, init) => t.app.fetch(new Request(input, init)),
    fetchOptions: () => (token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    exchanges: [
      cacheExchange({
        schema: introspectionFromSchema(schema),
        keys: Object.fromEntries([...VALUE_TYPES, ...PAYLOAD_TYPES].map((name) => [name, () => null])),
        logger: (severity, message) => {
          if (severity !== 'debug') warnings.push(`${severity}: ${message}`);
        },
      }),
      fetchExchange,
    ],
  });
}

/** Each operation of a document with several (GraphiQL's default has Login and Campaigns), on its own. */
function operations(document: string): Record<string, DocumentNode> {
  const parsed = parse(document);
  return Object.fromEntries(
    parsed.definitions.flatMap((definition) =>
      definition.kind === Kind.OPERATION_DEFINITION && definition.name
        ? [[definition.name.value, { kind: Kind.DOCUMENT, definitions: [definition] } as DocumentNode]]
        : [],
    ),
  );
}

beforeEach(async () => {
  t = await startApp({}, [], { worker: false });
  warnings = [];
  token = undefined;
  client = newClient();
});
afterEach(() => t.close());

describe('urql Graphcache against the public schema', () => {
  it("normalises the results of GraphiQL's default operations with no warnings", async () => {
    // The demo account GraphiQL's Login uses (npm run seed:demo makes it; here it is signed up).
    const signUp = await client
      .mutation(
        gql`
          mutation {
            accountSignUp(input: { email: "demo@example.com", password: "demo-password" }) {
              apiKey
            }
          }
        `,
        {},
      )
      .toPromise();
    expect(signUp.error).toBeUndefined();
    const { Login, Campaigns } = operations(GRAPHIQL_DEFAULT_QUERY);
    const login = await client.mutation(Login!, {}).toPromise();
    expect(login.error).toBeUndefined();
    token = login.data.accountLogin.accessToken;
    for (const campId of ['spring', 'autumn']) {
      const created = await client
        .mutation(
          gql`
            mutation ($input: CreateCampaignInput!) {
              createCampaign(input: $input) {
                id
                campId
              }
            }
          `,
          { input: campaignInput({ campId }) },
        )
        .toPromise();
      expect(created.error).toBeUndefined();
    }

    const campaigns = await client.query(Campaigns!, {}).toPromise();
    expect(campaigns.error).toBeUndefined();
    expect(campaigns.data.campaigns.edges.map((e: { node: { campId: string } }) => e.node.campId).sort()).toEqual([
      'autumn',
      'spring',
    ]);
    // Normalised: each campaign, voice and the viewer are entities of the cache, keyed by their global id.
    const cache = cacheOf(campaigns.data.campaigns.edges[0].node.id);
    expect(cache).toBe('Campaign');
    expect(warnings).toEqual([]);
  });

  it('keeps one copy of each object: a mutation result updates the list that holds it, and node(id:) reads it', async () => {
    ({ token } = await t.account());
    for (const campId of ['a', 'b']) await t.gql(CREATE, { input: campaignInput({ campId }) }, token);

    const list = await client.query(LIST, {}).toPromise();
    expect(list.error).toBeUndefined();
    const node = list.data.campaigns.edges.find((e: { node: { campId: string } }) => e.node.campId === 'a').node;

    // Refetch by global id, then change the title: the list (read from the cache only) shows the new title.
    const refetched = await client.query(REFETCH, { id: node.id }, { requestPolicy: 'network-only' }).toPromise();
    expect(refetched.error).toBeUndefined();
    expect(refetched.data.node).toMatchObject({ id: node.id, campId: 'a' });
    const renamed = await client
      .mutation(RENAME, { input: { campId: 'a', title: 'Renamed in one place' } })
      .toPromise();
    expect(renamed.error).toBeUndefined();

    const cached = await client.query(LIST, {}, { requestPolicy: 'cache-only' }).toPromise();
    const titles = Object.fromEntries(
      cached.data.campaigns.edges.map((e: { node: { campId: string; title: string } }) => [
        e.node.campId,
        e.node.title,
      ]),
    );
    expect(titles.a).toBe('Renamed in one place');
    const cachedNode = await client.query(REFETCH, { id: node.id }, { requestPolicy: 'cache-only' }).toPromise();
    expect(cachedNode.data.node.title).toBe('Renamed in one place');
    expect(warnings).toEqual([]);
  });

  it('is told of exactly the value types: the object types without an id, which it embeds in their parent', () => {
    const withoutId = Object.values(schema.getTypeMap())
      .filter((type) => isObjectType(type) && !type.name.startsWith('__') && !type.getFields().id)
      .map((type) => type.name)
      .filter((name) => !['Query', 'Mutation', 'Subscription'].includes(name));
    expect([...VALUE_TYPES, ...PAYLOAD_TYPES].sort()).toEqual(withoutId.sort());
  });

  it('warns when a query leaves out the id of an entity (so the test above can fail)', async () => {
    ({ token } = await t.account());
    await t.gql(CREATE, { input: campaignInput({ campId: 'a' }) }, token);
    await client
      .query(
        gql`
          {
            campaigns(first: 5) {
              edges {
                node {
                  campId
                }
              }
            }
          }
        `,
        {},
      )
      .toPromise();
    expect(warnings.join('\n')).toMatch(/Invalid key/);
  });
});

/** The typename an id names (global ids are opaque to clients; the test peeks to check what was keyed). */
function cacheOf(id: string): string {
  return Buffer.from(id, 'base64').toString('utf8').split(':')[0]!;
}

const CREATE = /* GraphQL */ `
  mutation ($input: CreateCampaignInput!) {
    createCampaign(input: $input) {
      id
    }
  }
`;
const LIST = gql`
  query List {
    campaigns(first: 10) {
      edges {
        cursor
        node {
          id
          campId
          title
          voice {
            id
            name
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;
const REFETCH = gql`
  query Refetch($id: ID!) {
    node(id: $id) {
      id
      ... on Campaign {
        campId
        title
      }
    }
  }
`;
const RENAME = gql`
  mutation Rename($input: CampaignUpdateInput!) {
    campaignUpdate(input: $input) {
      campaign {
        id
        title
      }
    }
  }
`;
