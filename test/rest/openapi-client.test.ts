// A client generated from the OpenAPI description works: openapi-fetch over the types openapi-typescript generates
// (test/rest/generated/openapi.d.ts, which must be what the served description gives) makes real calls to the
// server, and their typed results are used as a client would use them. `npm run typecheck` covers this file, so a
// description that typed these calls wrongly (or loosely: see the @ts-expect-error lines) fails it.
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
import type { components, paths } from './generated/openapi.js';
import { generateTypes, servedDescription, TYPES_FILE } from './openapi-types.js';

type CallLog = components['schemas']['CallLog'];

let t: TestApp;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
});
afterAll(() => t.close());

/** A client of the in-process server (whose answers test/helpers/app.ts checks against the description). */
function client(token?: string) {
  return createClient<paths>({
    baseUrl: 'http://127.0.0.1/api/v3',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    fetch: (request) => t.app.fetch(request),
  });
}

it('test/rest/generated/openapi.d.ts is what openapi-typescript generates from the served description', async () => {
  const committed = readFileSync(TYPES_FILE, 'utf8');
  expect(committed, 'stale: run `npm run openapi:types`').toBe(await generateTypes(await servedDescription()));
}, 30_000);

it('typed calls: sign up, log in, create and read a campaign, read its call logs', async () => {
  const anonymous = client();
  const signUp = await anonymous.POST('/signup', { body: { email: 'typed@example.com', password: 'a long password' } });
  const apiKey: string = signUp.data!.apiKey;

  // The OAuth2 password flow, form-encoded as OAuth2 clients send it.
  const login = await anonymous.POST('/login', {
    body: { username: 'typed@example.com', password: 'a long password' },
    bodySerializer: (body) => new URLSearchParams(body).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(login.response.status).toBe(200);
  const token: string = login.data!.access_token;
  const tokenType: 'bearer' = login.data!.token_type;
  expect(tokenType).toBe('bearer');

  const api = client(token);
  const updated = await api.POST('/update_campaign', {
    body: {
      campId: 'typed',
      campaignModelData: {
        title: 'Typed outreach',
        voice: 'en-US-aria',
        language: 'en-US',
        script: 'Hello',
        purpose: 'Confirm appointments',
        knowledgeBase: 'https://example.com/kb',
        calendar: 'cal-1',
        firstLine: 'Hi',
        tone: 'friendly',
        postCallAnalysisSchema: {},
        totalCallTime: 0,
        totalNumCall: 0,
        totalSpent: 0,
        averageCallCost: 0,
      },
    },
  });
  const status: 'active' | 'paused' | 'completed' = updated.data!.status;
  expect(status).toBe('active');

  const read = await api.GET('/get_campaign', { params: { query: { campId: 'typed' } } });
  const campaign = read.data!;
  const calls: number = campaign.totalNumCall;
  const maxMinutes: number = campaign.maxCallTimeout;
  expect([campaign.voice, campaign.timeZone, calls, maxMinutes]).toEqual(['en-US-aria', 'UTC', 0, 1]);
  // @ts-expect-error the legacy body says `voice`, not GraphQL's `voiceId`
  expect(campaign.voiceId).toBeUndefined();
  // @ts-expect-error `status` is the legacy word (active), not GraphQL's enum name
  const _gqlStatus: 'ACTIVE' = campaign.status;

  const telephony = await api.POST('/update_telephony', {
    body: {
      telephonyAccountSid: 'AC0123456789',
      telephonyAuthToken: 'test-auth-token-0123456789abcdef',
      telephonyPhoneNumber: '+14155550100',
    },
  });
  const masked: string = telephony.data!.telephonyAuthToken;
  expect(masked).toBe('****cdef');
  await connectTelephony(t, token);
  const callback = { CallSid: 'CA1', CallStatus: 'completed', CallDuration: '42', Price: '-0.25' };
  expect((await sendCallback(t, apiKey, 'typed', callback)).status).toBe(200);

  const logs = await api.GET('/get_call_logs_for_campaign', {
    params: { query: { campId: 'typed', status: 'completed', since: '2020-01-01' } },
  });
  const [log]: CallLog[] = logs.data!;
  const seconds: number | null = log!.durationSeconds;
  const cost: number | null = log!.cost;
  const callStatus: CallLog['status'] = log!.status;
  expect([log!.callId, seconds, cost, callStatus]).toEqual(['CA1', 42, 0.25, 'completed']);
});

it('typed errors: FastAPI bodies, and requests the description refuses do not compile', async () => {
  const { token } = await t.account();
  const api = client(token);
  const missing = await api.GET('/get_campaign', { params: { query: { campId: 'nope' } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error).toEqual({ detail: 'Campaign not found' });

  // @ts-expect-error campId is a required query parameter
  const invalid = await api.GET('/get_campaign', { params: { query: {} } });
  expect(invalid.response.status).toBe(422);
  const detail = invalid.error!.detail;
  expect(Array.isArray(detail) && detail[0]!.loc).toEqual(['query', 'campId']);

  const incomplete = await api.POST('/update_campaign', {
    // @ts-expect-error the legacy model requires the four metrics, and the description says so
    body: { campId: 'typed', campaignModelData: { title: 'No metrics' } },
  });
  expect(incomplete.response.status).toBe(422);

  const wrongStatus = await api.GET('/get_call_logs_for_user', {
    // @ts-expect-error statuses are the provider's words
    params: { query: { status: 'IN_PROGRESS' } },
  });
  expect(wrongStatus.response.status).toBe(422);

  // A call that names no campaign does not compile: the server refuses it. The aliases older clients send are typed,
  // deprecated, beside the main name.
  // @ts-expect-error one of campId, campaignId, camp_id is required: the description requires campId
  const unnamed = await api.GET('/text_pipeline_configuration', { params: { query: {} } });
  expect(unnamed.response.status).toBe(422);
  const unattached = await api.POST('/add_webhook_campaingn', {
    // @ts-expect-error the campaign is required: campaignId (or, deprecated, campId or camp_id)
    params: { query: { webhookId: 'wh_x' } },
  });
  expect(unattached.response.status).toBe(422);
  const named = await api.GET('/text_pipeline_configuration', { params: { query: { campId: 'nope', camp_id: 'x' } } });
  expect(named.response.status).toBe(404);
});
