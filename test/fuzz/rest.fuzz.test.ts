// Property-based fuzzing of every REST operation, generated from the served OpenAPI description: path and query
// parameters and bodies of the described shape with now and then a hostile part (schema-values.ts), wrong shapes,
// invalid JSON, form encoding, odd headers, with the caller's real token or without; telephony callbacks are also sent
// validly signed, so that their parameters reach the resolver. Property: no 5xx and nothing internal in any body
// (arbitraries.ts). FUZZ_RUNS sets the number of cases (spread over the operations), FUZZ_SEED replays a run.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { AUTH_TOKEN, connectTelephony, sign } from '../helpers/telephony.js';
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
  sometimes,
  TOKEN,
} from './arbitraries.js';
import { type JsonSchema, schemaValue } from './schema-values.js';

interface Operation {
  method: string;
  path: string;
  parameters: Array<{ in: string; name: string; schema?: JsonSchema }>;
  bodySchema: JsonSchema;
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
  expect(campaign.status, campaign.text).toBe(200);
  await connectTelephony(t, token);
  const openapi = await t.request('GET', '/api/v3/openapi.json');
  operations = Object.entries<Record<string, any>>(openapi.body.paths).flatMap(([path, byMethod]) =>
    Object.entries<any>(byMethod).map(([method, op]) => {
      const content = Object.values<any>(op.requestBody?.content ?? {})[0];
      return {
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []) as Operation['parameters'],
        bodySchema: (content?.schema ?? {}) as JsonSchema,
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
    { weight: 5, arbitrary: schemaValue(operation.bodySchema).map((value) => JSON.stringify(value) ?? 'null') },
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

/** A query-string value: a value of the parameter's schema (sometimes spoiled), as text. */
const queryText = (schema: JsonSchema | undefined) =>
  (schema ? schemaValue(schema) : hostileString).map((value) =>
    typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
  );

const CALL_STATUSES = ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'];

/** A plausible value five times in six, a hostile one otherwise. */
const mostly = (plausible: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 5, arbitrary: plausible }, { weight: 1, arbitrary: hostileString });

/** A call-status callback's form fields, plausible with now and then a hostile part; it goes out validly signed. */
const callbackForm = fc.record(
  {
    CallSid: mostly(fc.constantFrom('CA0001', 'CA0002')),
    CallStatus: mostly(fc.constantFrom(...CALL_STATUSES)),
    CallDuration: mostly(fc.integer({ min: 0, max: 4000 }).map(String)),
    Price: mostly(
      fc.oneof(
        fc.double({ min: -10, max: 10, noNaN: true }).map(String),
        fc.constantFrom(`-${'9'.repeat(400)}`, '1e309', '-0.0125', '.5', '5.', '+-1', '-1000000', '1000001'),
      ),
    ),
    From: mostly(fc.constant('+14155550100')),
    To: mostly(fc.constant('+14155550199')),
    Direction: mostly(fc.constant('outbound-api')),
    RecordingUrl: mostly(fc.constant('https://example.com/r.mp3')),
    Extra: mostly(fc.constant('x')),
  },
  { requiredKeys: ['CallSid', 'CallStatus'] },
);

const requestFor = (operation: Operation) =>
  fc.record({
    path: fc.record(
      Object.fromEntries(
        operation.parameters
          .filter((p) => p.in === 'path')
          .map((p) => [
            p.name,
            p.name === 'apiKey'
              ? fc.oneof(fc.constant(apiKey), hostileString)
              : fc.oneof(fc.constant('spring'), hostileString),
          ]),
      ),
    ),
    query: fc.array(
      fc.oneof(
        ...operation.parameters
          .filter((p) => p.in === 'query')
          .map((p) => fc.tuple(fc.constant(p.name), queryText(p.schema))),
        fc.tuple(fc.constant('x'), hostileString),
      ),
      { maxLength: 4 },
    ),
    body: operation.hasBody ? fc.option(body(operation), { freq: 5 }) : fc.constant(null),
    signedCallback: operation.path.startsWith('/telephony_webhook/') ? sometimes(callbackForm, 2) : fc.constant(null),
    authorization,
    contentType,
  });

it('no REST operation answers 5xx or shows internals, whatever it is sent', async () => {
  const exercised = new Set<string>();
  const runs = runsPerOperation(operations.length);
  for (const operation of operations) {
    await fc.assert(
      fc.asyncProperty(requestFor(operation), async (input) => {
        const signed = input.signedCallback;
        const pathParams: Record<string, unknown> = signed ? { apiKey, campId: 'spring' } : input.path;
        const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
          encodeSegment(String(pathParams[name] ?? 'x')),
        );
        const query = signed ? '' : new URLSearchParams(input.query).toString();
        const headers: Record<string, string> = {};
        if (input.authorization) headers.authorization = input.authorization.replace(TOKEN, token);
        if (input.contentType) headers['content-type'] = input.contentType;
        const url = `/api/v3${path}${query ? `?${query}` : ''}`;
        let raw = input.body ?? undefined;
        if (signed) {
          // Earlier cases may have replaced the stored auth token or the campaign: both are put back first.
          await connectTelephony(t, token).catch(async () => {
            await freshToken();
            await connectTelephony(t, token);
          });
          await t.rest('POST', '/update_campaign', {
            token,
            body: { campId: 'spring', campaignModelData: campaignModelData() },
          });
          const form = Object.fromEntries(Object.entries(signed).filter(([, value]) => value !== undefined));
          raw = new URLSearchParams(form).toString();
          // As the provider signs: what it will send, after form decoding (a lone surrogate becomes U+FFFD).
          const decoded = Object.fromEntries(new URLSearchParams(raw));
          headers['content-type'] = 'application/x-www-form-urlencoded';
          headers['x-telephony-signature'] = sign(AUTH_TOKEN, `http://127.0.0.1${url}`, decoded);
        }
        const reply = await t.request(operation.method, url, { raw, headers });
        checkReply(describeRequest(operation.method, url, headers, raw), reply);
        exercised.add(`${operation.method} ${operation.path}`);
        if (reply.status === 401 && headers.authorization === `Bearer ${token}`) await freshToken();
      }),
      fuzzParameters(runs),
    );
  }
  expect(exercised.size).toBe(operations.length);

  // What the cases stored must read back: every GET operation, plainly asked, still answers below 500.
  await freshToken();
  for (const operation of operations.filter((o) => o.method === 'GET')) {
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'apiKey' ? apiKey : 'spring'));
    const query = operation.parameters.some((p) => p.in === 'query' && p.name === 'campId') ? '?campId=spring' : '';
    const reply = await t.rest('GET', `${path}${query}`, { token });
    checkReply(`read-back GET ${path}${query}`, reply);
  }
}, 600_000);
