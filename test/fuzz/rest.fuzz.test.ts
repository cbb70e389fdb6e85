// Property-based fuzzing of every REST operation, generated from the served OpenAPI description: hostile path and
// query parameters, bodies (right shape with hostile values, wrong shapes, invalid JSON, form encoding) and headers,
// with the caller's real token or without. Property: no 5xx and nothing internal in any body (arbitraries.ts).
// FUZZ_RUNS sets the number of cases (spread over the operations), FUZZ_SEED replays a run.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import {
  authorization,
  checkReply,
  contentType,
  deepText,
  describeRequest,
  encodeSegment,
  fuzzParameters,
  hostileString,
  hostileValue,
  runsPerOperation,
  TOKEN,
} from './arbitraries.js';

interface Operation {
  method: string;
  path: string;
  parameters: Array<{ in: string; name: string }>;
  bodyFields: string[];
  hasBody: boolean;
}

let t: TestApp;
let token: string;
let apiKey: string;
let operations: Operation[];

beforeAll(async () => {
  t = await startApp({ RATE_LIMIT_PER_MINUTE: '1000000', LOGIN_MAX_FAILURES: '1000' });
  ({ token, apiKey } = await t.account('fuzz@example.com'));
  const campaign = await t.rest('POST', '/update_campaign', {
    token,
    body: { campId: 'spring', campaignModelData: campaignModelData() },
  });
  expect(campaign.status).toBe(200);
  const openapi = await t.request('GET', '/api/v3/openapi.json');
  operations = Object.entries<Record<string, any>>(openapi.body.paths).flatMap(([path, byMethod]) =>
    Object.entries<any>(byMethod).map(([method, op]) => {
      const content = Object.values<any>(op.requestBody?.content ?? {})[0];
      return {
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []) as Operation['parameters'],
        bodyFields: Object.keys(content?.schema?.properties ?? {}),
        hasBody: op.requestBody !== undefined,
      };
    }),
  );
});
afterAll(() => t.close());

/** A token revoked by a fuzzed rotate (or the like) is replaced, so later cases still reach the resolvers. */
async function freshToken(): Promise<void> {
  const login = await t.rest('POST', '/login', {
    body: { username: 'fuzz@example.com', password: 'correct horse battery' },
  });
  if (login.status === 200) token = login.body.access_token;
}

const body = (operation: Operation) =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .record(Object.fromEntries(operation.bodyFields.map((field) => [field, hostileValue])), { requiredKeys: [] })
        .map((value) => JSON.stringify(value)),
    },
    { weight: 2, arbitrary: hostileValue.map((value) => JSON.stringify(value) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '[[[', '{"a":}', 'null', '"x"', '{"a":1}{', '\u0000'),
    },
    { weight: 1, arbitrary: deepText },
    {
      weight: 1,
      arbitrary: fc.dictionary(hostileString, hostileString).map((form) => new URLSearchParams(form).toString()),
    },
  );

const requestFor = (operation: Operation) =>
  fc.record({
    path: fc.record(
      Object.fromEntries(
        operation.parameters
          .filter((p) => p.in === 'path')
          .map((p) => [p.name, p.name === 'apiKey' ? fc.oneof(fc.constant(apiKey), hostileString) : hostileString]),
      ),
    ),
    query: fc.array(
      fc.tuple(
        fc.constantFrom(...operation.parameters.filter((p) => p.in === 'query').map((p) => p.name), 'x'),
        hostileString,
      ),
      { maxLength: 4 },
    ),
    body: operation.hasBody ? fc.option(body(operation), { freq: 5 }) : fc.constant(null),
    authorization,
    contentType,
  });

it('no REST operation answers 5xx or shows internals, whatever it is sent', async () => {
  const exercised = new Set<string>();
  const runs = runsPerOperation(operations.length);
  for (const operation of operations) {
    await fc.assert(
      fc.asyncProperty(requestFor(operation), async (input) => {
        const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
          encodeSegment(String(input.path[name] ?? 'x')),
        );
        const query = new URLSearchParams(input.query).toString();
        const headers: Record<string, string> = {};
        if (input.authorization) headers.authorization = input.authorization.replace(TOKEN, token);
        if (input.contentType) headers['content-type'] = input.contentType;
        const url = `/api/v3${path}${query ? `?${query}` : ''}`;
        const raw = input.body ?? undefined;
        const reply = await t.request(operation.method, url, { raw, headers });
        checkReply(describeRequest(operation.method, url, headers, raw), reply);
        exercised.add(`${operation.method} ${operation.path}`);
        if (reply.status === 401 && headers.authorization === `Bearer ${token}`) await freshToken();
      }),
      fuzzParameters(runs),
    );
  }
  expect(exercised.size).toBe(operations.length);
}, 600_000);
