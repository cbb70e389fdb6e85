// Property-based fuzzing of every GraphQL root field (queries, mutations, subscriptions sent as plain POSTs), generated
// from the schema: each argument gets a value of its type with now and then a hostile part (graphql-values.ts), sent
// as variables or written inline as literals, sometimes in a batch with entries that are not requests, sometimes the
// whole request is malformed; headers vary. Property: no 5xx, nothing internal in any body (arbitraries.ts), and
// every error carries a code. FUZZ_RUNS / FUZZ_SEED as for REST.
import fc from 'fast-check';
import { getNamedType, type GraphQLArgument, type GraphQLField, isLeafType, isNonNullType } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import {
  authorization,
  checkReply,
  contentType,
  deepText,
  describeRequest,
  fuzzParameters,
  runsPerOperation,
  sometimes,
  TOKEN,
} from './arbitraries.js';
import { literalOf, typedValue } from './graphql-values.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp({ RATE_LIMIT_PER_MINUTE: '1000000', LOGIN_MAX_FAILURES: '1000' });
  ({ token } = await t.account('fuzz@example.com'));
  const campaign = await t.rest('POST', '/update_campaign', {
    token,
    body: { campId: 'spring', campaignModelData: campaignModelData() },
  });
  expect(campaign.status, campaign.text).toBe(200);
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

function documentFor({ operation, field }: RootField, literals: Record<string, unknown> | null): string {
  const variableArgs = literals ? [] : field.args;
  const variables = variableArgs.map((arg: GraphQLArgument) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const args = field.args
    .filter((arg) => !literals || arg.name in literals)
    .map((arg) => `${arg.name}: ${literals ? literalOf(literals[arg.name], arg.type) : `$${arg.name}`}`)
    .join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  return `${operation} Fuzz${variables ? `(${variables})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`;
}

const requestFor = (root: RootField) =>
  fc.record({
    arguments: fc.record(Object.fromEntries(root.field.args.map((arg) => [arg.name, typedValue(schema, arg.type)])), {
      requiredKeys: root.field.args.filter((arg) => isNonNullType(arg.type)).map((arg) => arg.name),
    }),
    /** Inputs written inline in the document instead of sent as variables. */
    asLiterals: fc.boolean(),
    /** The operation sent in an array with entries that are not requests. */
    batch: sometimes(fc.array(fc.constantFrom<unknown>(null, 0, 'x', [], {}, { query: 1 }), { maxLength: 3 }), 8),
    malformed: sometimes(
      fc.oneof(
        deepText,
        fc.constantFrom('{', '{"query": 1}', '{"query": "{", "variables": "x"}', '[]', 'null', '{"query": null}'),
      ),
      8,
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

/** Every error a JSON answer carries has a code: a client can always tell its own mistakes from ours. */
function checkErrorCodes(what: string, text: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  for (const result of Array.isArray(parsed) ? parsed : [parsed]) {
    const errors = (result as { errors?: { message: string; extensions?: { code?: unknown } }[] } | null)?.errors;
    for (const error of errors ?? []) {
      expect(error.extensions?.code, `${what} → an error without a code: ${error.message.slice(0, 300)}`).toBeTypeOf(
        'string',
      );
    }
  }
}

it('no GraphQL root field answers 5xx or shows internals, whatever it is sent', async () => {
  const exercised = new Set<string>();
  const runs = runsPerOperation(roots.length);
  for (const root of roots) {
    await fc.assert(
      fc.asyncProperty(requestFor(root), async (input) => {
        const query = documentFor(root, input.asLiterals ? input.arguments : null);
        const request = { query, variables: input.asLiterals ? {} : input.arguments };
        const headers: Record<string, string> = {};
        if (input.authorization) headers.authorization = input.authorization.replace(TOKEN, token);
        if (input.contentType) headers['content-type'] = input.contentType;
        if (input.accept) headers.accept = input.accept;
        const raw = input.malformed ?? JSON.stringify(input.batch ? [request, ...input.batch] : request);
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
        const what = describeRequest('POST', '/graphql', headers, raw);
        checkReply(what, { status: response.status, headers: response.headers, body: text, text });
        if (!streaming) checkErrorCodes(what, text);
        exercised.add(root.field.name);
        if (text.includes('UNAUTHENTICATED') && headers.authorization === `Bearer ${token}`) await freshToken();
      }),
      fuzzParameters(runs),
    );
  }
  expect(exercised.size).toBe(roots.length);
}, 600_000);
