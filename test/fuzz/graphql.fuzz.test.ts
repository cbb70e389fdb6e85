// Property-based fuzzing of every GraphQL root field (queries, mutations, subscriptions sent as plain POSTs), generated
// from the schema: each argument gets a hostile value (input objects get their own fields filled with hostile values,
// or something else entirely), sometimes as a variable and sometimes the whole request is malformed; headers vary.
// Property: no 5xx and nothing internal in any body (arbitraries.ts). FUZZ_RUNS / FUZZ_SEED as for REST.
import fc from 'fast-check';
import {
  getNamedType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  isInputObjectType,
  isLeafType,
} from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import {
  authorization,
  checkReply,
  contentType,
  deepText,
  describeRequest,
  fuzzParameters,
  hostileValue,
  runsPerOperation,
  TOKEN,
} from './arbitraries.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp({ RATE_LIMIT_PER_MINUTE: '1000000', LOGIN_MAX_FAILURES: '1000' });
  ({ token } = await t.account('fuzz@example.com'));
  const campaign = await t.rest('POST', '/update_campaign', {
    token,
    body: { campId: 'spring', campaignModelData: campaignModelData() },
  });
  expect(campaign.status).toBe(200);
});
afterAll(() => t.close());

async function freshToken(): Promise<void> {
  const login = await t.rest('POST', '/login', {
    body: { username: 'fuzz@example.com', password: 'correct horse battery' },
  });
  if (login.status === 200) token = login.body.access_token;
}

interface RootField {
  operation: 'query' | 'mutation' | 'subscription';
  field: GraphQLField<unknown, unknown>;
}

const roots: RootField[] = (['query', 'mutation', 'subscription'] as const).flatMap((operation) => {
  const type =
    operation === 'query'
      ? schema.getQueryType()
      : operation === 'mutation'
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  return Object.values(type?.getFields() ?? {}).map((field) => ({ operation, field }));
});

/** A value for an argument of this type: mostly hostile, input objects sometimes with their own fields. */
function valueFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || depth > 2) return hostileValue;
  const fields = Object.values(named.getFields());
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record(Object.fromEntries(fields.map((f) => [f.name, valueFor(f.type, depth + 1)])), {
        requiredKeys: [],
      }),
    },
    { weight: 1, arbitrary: hostileValue },
  );
}

function documentFor({ operation, field }: RootField): string {
  const variables = field.args.map((arg: GraphQLArgument) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  return `${operation} Fuzz${variables ? `(${variables})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`;
}

const requestFor = (root: RootField) =>
  fc.record({
    variables: fc.record(Object.fromEntries(root.field.args.map((arg) => [arg.name, valueFor(arg.type)])), {
      requiredKeys: [],
    }),
    malformed: fc.option(
      fc.oneof(
        deepText,
        fc.constantFrom('{', '{"query": 1}', '{"query": "{", "variables": "x"}', '[]', 'null', '{"query": null}'),
      ),
      { freq: 8 },
    ),
    authorization,
    contentType,
    accept: fc.constantFrom(
      undefined,
      'application/json',
      'application/graphql-response+json',
      'text/event-stream',
      '*/*',
    ),
  });

it('no GraphQL root field answers 5xx or shows internals, whatever it is sent', async () => {
  const exercised = new Set<string>();
  const runs = runsPerOperation(roots.length);
  for (const root of roots) {
    const query = documentFor(root);
    await fc.assert(
      fc.asyncProperty(requestFor(root), async (input) => {
        const headers: Record<string, string> = {};
        if (input.authorization) headers.authorization = input.authorization.replace(TOKEN, token);
        if (input.contentType) headers['content-type'] = input.contentType;
        if (input.accept) headers.accept = input.accept;
        const raw = input.malformed ?? JSON.stringify({ query, variables: input.variables });
        // A subscription that is accepted answers with a stream: read its first bytes, then hang up.
        const response = await t.app.fetch(
          new Request('http://127.0.0.1/graphql', { method: 'POST', headers, body: raw }),
        );
        const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
        let text = '';
        if (streaming) {
          const reader = response.body!.getReader();
          const first = await reader.read();
          text = new TextDecoder().decode(first.value ?? new Uint8Array());
          await reader.cancel();
        } else {
          text = await response.text();
        }
        checkReply(describeRequest('POST', '/graphql', headers, raw), {
          status: response.status,
          headers: response.headers,
          body: text,
          text,
        });
        exercised.add(root.field.name);
        if (text.includes('UNAUTHENTICATED') && headers.authorization === `Bearer ${token}`) await freshToken();
      }),
      fuzzParameters(runs),
    );
  }
  expect(exercised.size).toBe(roots.length);
}, 600_000);
