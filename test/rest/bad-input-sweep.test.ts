// The bad-input sweep: every route of the REST table and the main GraphQL mutations are fed
// malformed values — wrong types, huge strings, nulls, arrays for objects, broken JSON, bad query and path parameters,
// wrong content types, bodies at the size limit, unknown paths and methods. Every answer must be a 4xx with a JSON
// body (a 2xx only where the input could be valid), never a 5xx, never a stack trace. The routes come from the table,
// so a new route is swept too (the last REST test checks that each one was).
//
// When may a REST probe succeed? The route's own zod schemas decide: a probe whose query and body the route's schemas
// accept could be valid ("maybe": any 2xx or 4xx); one they refuse must be a 422 with FastAPI's `detail` list. Probes
// on provider routes with a junk API key, bad path parameters, missing or bad tokens never succeed.
// For GraphQL, graphql-js's variable coercion decides: variables it refuses must give BAD_USER_INPUT errors.
import {
  getNamedType,
  getVariableValues,
  type GraphQLSchema,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  parse,
  typeFromAST,
} from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { MAX_BODY_BYTES } from '../../src/core/request-context.js';
import type { RestRoute } from '../../src/rest/route.js';
import { routes } from '../../src/rest/routes.js';
import { type Reply, startApp, type TestApp } from '../helpers/app.js';
import { campaignInput, campaignModelData } from '../helpers/campaigns.js';
import { AUTH_TOKEN, connectTelephony, sendCallback, sign } from '../helpers/telephony.js';

const PREFIX = '/api/v3';
const CONCURRENCY = 20;
const PASSWORD = 'correct horse battery';
const LOGIN_EMAIL = 'sweep-login@example.com';
const VERIFY_TOKEN = 'sweep-verify-token';
const CALL_ID = 'CA_SWEEP_FIXTURE';

/** What a stack trace or a leaked source location looks like ("Syntax Error:" is graphql-js's wording, not a trace). */
const LEAK_MARKERS: Array<[string, RegExp]> = [
  ['"    at "', / {4}at /],
  ['"Error:"', /(?<!Syntax )Error:/],
  ['"/work/"', /\/work\//],
  ['"node_modules"', /node_modules/],
  ['".ts:"', /\.ts:/],
];

const routeKey = (route: Pick<RestRoute, 'method' | 'path'>) => `${route.method} ${route.path}`;

function deepArray(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i += 1) value = [value];
  return value;
}

/** Runs of one character shown as c×n, JSON-escaped, cut to `max`: problem reports stay readable. */
function preview(value: string | undefined, max = 200): string {
  if (value === undefined) return '(none)';
  const compact = JSON.stringify(value.replace(/(.)\1{39,}/gs, (run, c: string) => `${c}×${run.length}`));
  return compact.length > max ? `${compact.slice(0, max)}…(${value.length} chars)` : compact;
}

const categories = new Map<string, number>();
const count = (category: string) => categories.set(category, (categories.get(category) ?? 0) + 1);

let t: TestApp;
let owner: { token: string; apiKey: string };
const fx = { webhookId: '', meetingId: '' };
let emails = 0;
const uniqueEmail = () => `sweep-${(emails += 1)}-${Math.random().toString(36).slice(2, 8)}@example.com`;

// ——— Fixtures: enough that valid-looking probes get past "not found" ———

const C1 = {
  postCallAnalysis: true,
  postCallAnalysisSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } } },
};
const SOCIAL = { pageId: 'page-1', accessToken: 'EAAB-sweep-access-token', verifyToken: VERIFY_TOKEN };
const CALENDAR = { apiKey: 'cal-key-0123456789', schedulingUrl: 'https://cal.example.com/book' };

async function ok(reply: Promise<Reply<any>>, what: string): Promise<Reply<any>> {
  const r = await reply;
  if (r.status !== 200) throw new Error(`fixture ${what} failed: ${r.status} ${r.text}`);
  return r;
}

/** Puts the fixtures back as they were: earlier probes may have replaced, disconnected or deleted them. */
async function ensureFixtures(): Promise<void> {
  const token = owner.token;
  await ok(
    t.rest('POST', '/update_campaign', { token, body: { campId: 'c1', campaignModelData: campaignModelData(C1) } }),
    'c1',
  );
  await connectTelephony(t, token);
  await ok(t.rest('POST', '/add_social_info', { token, body: SOCIAL }), 'social');
  await ok(t.rest('POST', '/add_calendar_info', { token, body: CALENDAR }), 'calendar');
  const webhooks = await ok(t.rest('GET', '/get_webhooks', { token }), 'webhooks');
  if (!(webhooks.body as Array<{ webhookId: string }>).some((w) => w.webhookId === fx.webhookId)) {
    const created = await ok(
      t.rest('POST', '/create_webhook', { token, body: { url: 'https://hooks.example.com/fixture' } }),
      'webhook',
    );
    fx.webhookId = created.body.webhookId;
  }
}

beforeAll(async () => {
  t = await startApp({ RATE_LIMIT_PER_MINUTE: '1000000', LOGIN_MAX_FAILURES: '1000' }, [], { worker: false });
  owner = await t.account();
  await ok(t.rest('POST', '/signup', { body: { email: LOGIN_EMAIL, password: PASSWORD } }), 'login account');
  await ensureFixtures();
  await ok(sendCallback(t, owner.apiKey, 'c1', { CallSid: CALL_ID, CallStatus: 'completed' }), 'call log');
  const meeting = await t.gql(
    `mutation ($input: BookMeetingInput!) { bookMeeting(input: $input) { meetingId } }`,
    {
      input: {
        campId: 'c1',
        title: 'Fixture meeting',
        startsAt: '2099-01-01T10:00:00Z',
        endsAt: '2099-01-01T10:30:00Z',
        participants: [{ name: 'Ann', email: 'ann@example.com' }],
      },
    },
    owner.token,
  );
  if (!meeting.body.data?.bookMeeting) throw new Error(`fixture meeting failed: ${meeting.text}`);
  fx.meetingId = meeting.body.data.bookMeeting.meetingId;
});

afterAll(async () => {
  await t?.close();
  const total = [...categories.values()].reduce((a, b) => a + b, 0);
  console.log(
    `bad-input sweep: ${total} requests\n${[...categories].map(([name, n]) => `  ${name}: ${n}`).join('\n')}`,
  );
});

// ——— REST ———

/** What a probe's answer must be. */
type Expectation = 'reject' | 'maybe' | 401 | 404 | 405 | 413 | 422;

interface Probe {
  route?: RestRoute;
  category: string;
  /** The malformed input, in words. */
  input: string;
  method: string;
  /** From /api/v3 on, percent-encoded as sent. */
  url: string;
  body?: string;
  headers?: Record<string, string>;
  expect: Expectation;
}

const VALID_BODIES: Record<string, () => unknown> = {
  'POST /signup': () => ({ email: uniqueEmail(), password: PASSWORD }),
  'POST /login': () => ({ username: LOGIN_EMAIL, password: PASSWORD }),
  'POST /update_campaign': () => ({ campId: 'c1', campaignModelData: campaignModelData(C1) }),
  'POST /text_pipeline_configuration': () => ({ goal: 'Book a demo', messageDelay: 2 }),
  'POST /update_telephony': () => ({
    telephonyAccountSid: 'AC0123456789',
    telephonyAuthToken: AUTH_TOKEN,
    telephonyPhoneNumber: '+14155550100',
  }),
  'POST /add_board_info': () => ({ apiKey: 'board-key-0123', boardId: 'board-1', workspace: 'ws' }),
  'POST /add_calendar_info': () => ({ ...CALENDAR, eventTypeId: 'evt-1' }),
  'POST /add_erp_info': () => ({
    erpUrl: 'https://erp.example.com',
    apiKey: 'erp-key-0123',
    secret: 'erp-secret-0123',
  }),
  'POST /add_social_info': () => SOCIAL,
  'POST /add_chat_info': () => ({ botToken: 'xoxb-0123', channelId: 'C0123', workspace: 'ws' }),
  'POST /create_webhook': () => ({ url: 'https://hooks.example.com/sweep', events: ['call.ended'], description: 'd' }),
  'POST /telephony_webhook/{apiKey}/{campId}': () => ({ CallSid: 'CA_SWEEP_2', CallStatus: 'completed' }),
  'POST /social_webhook/{apiKey}/{campId}': () => ({
    object: 'page',
    entry: [{ messaging: [{ sender: { id: 'u1' }, timestamp: 1700000000000, message: { mid: 'm1', text: 'hi' } }] }],
  }),
};

const callLogQuery = () => ({
  campId: 'c1',
  status: 'completed',
  since: '2000-01-01T00:00:00Z',
  until: '2100-01-01T00:00:00Z',
  limit: '10',
  offset: '0',
});
const VALID_QUERIES: Record<string, () => Record<string, string>> = {
  'GET /get_campaigns': () => ({ limit: '10', offset: '0' }),
  'GET /get_campaign': () => ({ campId: 'c1' }),
  'POST /text_pipeline_configuration': () => ({ campId: 'c1' }),
  'GET /text_pipeline_configuration': () => ({ campId: 'c1' }),
  'DELETE /text_pipeline_configuration': () => ({ campId: 'c1' }),
  'GET /get_call_logs_for_campaign': callLogQuery,
  'GET /get_call_logs_for_user': callLogQuery,
  'GET /meetings/get_calendar_info': () => ({ meeting_id: fx.meetingId }),
  'GET /social_webhook/{apiKey}/{campId}': () => ({
    'hub.mode': 'subscribe',
    'hub.verify_token': VERIFY_TOKEN,
    'hub.challenge': 'challenge-123',
  }),
  'DELETE /remove_webhook': () => ({ webhookId: fx.webhookId }),
  'POST /add_webhook_campaingn': () => ({ webhookId: fx.webhookId, campaignId: 'c1' }),
};

/** Top-level body field values. */
const BODY_VALUES: Array<[string, unknown]> = [
  ['null', null],
  ['12345', 12345],
  ['true', true],
  ['[]', []],
  ['{}', {}],
  ['"x"×100000', 'x'.repeat(100_000)],
  ['"\\u0000"', '\u0000'],
  ['" " (one space: a substring of most error messages)', ' '],
  ['an array nested 200 deep', deepArray(200)],
  ['-1e308', -1e308],
  ['"NaN"', 'NaN'],
];

const BROKEN_JSON = [
  '{',
  '{"a":',
  '[1,2',
  'nul',
  '\u0000',
  '{"a":1}}',
  "{'a': 1}",
  '{"a":1,}',
  '\ufeff{}',
  '"\\ud800"',
];
const WRONG_TOP_LEVEL: Array<[string, string]> = [
  ['an array instead of an object', '[{"a":1},{"b":2}]'],
  ['[]', '[]'],
  ['null', 'null'],
  ['a number', '42'],
  ['a string', '"text"'],
  ['true', 'true'],
];

/** Query parameter values, percent-encoded as sent; an array is the parameter repeated; [] leaves it out. */
const QUERY_VALUES: Array<[string, string[]]> = [
  ['""', ['']],
  ['"x"×10000', ['x'.repeat(10_000)]],
  ['%00', ['%00']],
  ['"null"', ['null']],
  ['"-1"', ['-1']],
  ['"1e999"', ['1e999']],
  ['repeated (?p=1&p=2)', ['1', '2']],
  ['missing', []],
  ['%zz (bad escape)', ['%zz']],
  ['"[object Object]"', ['%5Bobject%20Object%5D']],
];

/** Path segments, percent-encoded as sent. */
const PATH_VALUES: Array<[string, string]> = [
  ['%00', '%00'],
  ['"x"×5000', 'x'.repeat(5000)],
  ['..', '..'],
  ['%2F', '%2F'],
  ['%2E%2E', '%2E%2E'],
  ['% (bare percent)', '%'],
  ['%zz (bad escape)', '%zz'],
  ['%E0%A4%A (truncated UTF-8)', '%E0%A4%A'],
  ['%C0%AF (overlong UTF-8)', '%C0%AF'],
  ['%20', '%20'],
];

const BAD_AUTH: Array<[string, string | undefined]> = [
  ['no Authorization header', undefined],
  ['Bearer garbage', 'Bearer garbage'],
  ['Bearer (empty)', 'Bearer '],
  ['Basic credentials', 'Basic dXNlcjpwYXNz'],
  ['a forged JWT', 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl'],
  ['alg none JWT', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.'],
  ['Bearer "x"×10000', `Bearer ${'x'.repeat(10_000)}`],
];

function jsonProperties(schema: z.ZodType | undefined): Record<string, Record<string, unknown>> | undefined {
  if (!schema) return undefined;
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return json.type === 'object' && json.properties
    ? (json.properties as Record<string, Record<string, unknown>>)
    : undefined;
}

/** The body's field paths: the top-level ones, and one level into object-valued ones (campaignModelData). */
function bodyFields(route: RestRoute, base: unknown): string[][] {
  const properties = jsonProperties(route.body);
  if (!properties) {
    const keys = base && typeof base === 'object' && !Array.isArray(base) ? Object.keys(base) : [];
    return (keys.length > 0 ? keys : ['x']).map((k) => [k]);
  }
  return Object.entries(properties).flatMap(([name, property]) => {
    const nested = property.type === 'object' && property.properties ? Object.keys(property.properties) : [];
    return [[name], ...nested.map((inner) => [name, inner])];
  });
}

function withField(base: unknown, path: string[], value: unknown, remove = false): unknown {
  const copy = structuredClone(base ?? {}) as Record<string, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) {
    if (!target[key] || typeof target[key] !== 'object') target[key] = {};
    target = target[key] as Record<string, unknown>;
  }
  const last = path.at(-1) ?? 'x';
  if (remove) delete target[last];
  else target[last] = value;
  return copy;
}

/** The body as the router hands it to the schema: raw text, form fields, JSON, or undefined when empty. */
function routerView(route: RestRoute, text: string, contentType: string): { ok: boolean; value?: unknown } {
  if (route.rawBody) return { ok: true, value: text };
  if (route.form && contentType.includes('application/x-www-form-urlencoded')) {
    return { ok: true, value: Object.fromEntries(new URLSearchParams(text)) };
  }
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** "maybe" when the route's schemas accept the probe's query and body, else 422 (see the header comment). */
function oracle(route: RestRoute, url: string, body: string | undefined, contentType: string): Expectation {
  const query = Object.fromEntries(new URL(url, 'http://127.0.0.1').searchParams);
  if (route.query && !route.query.safeParse(query).success) return 422;
  if (route.body) {
    // fetch's Request.text() drops a leading byte-order mark.
    const text = (body ?? '').replace(/^\ufeff/, '');
    // A raw body is handed over as it came, but every raw-body route of the table carries JSON.
    if (route.rawBody) {
      try {
        JSON.parse(text);
      } catch {
        return 'reject';
      }
    }
    const view = routerView(route, text, contentType);
    if (!view.ok || !route.body.safeParse(view.value).success) return 422;
  }
  return 'maybe';
}

const encodePairs = (params: Record<string, string>): Array<[string, string]> =>
  Object.entries(params).map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(v)]);
const queryString = (pairs: Array<[string, string]>) =>
  pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;

function fillPath(path: string, params: Record<string, string>): string {
  return PREFIX + path.replace(/\{(\w+)\}/g, (_m, name: string) => params[name] ?? 'missing');
}

function probesFor(route: RestRoute): Probe[] {
  const probes: Probe[] = [];
  const key = routeKey(route);
  const authorization: Record<string, string> = route.auth ? { authorization: `Bearer ${owner.token}` } : {};
  const paramNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
  const realParams: Record<string, string> = { apiKey: encodeURIComponent(owner.apiKey), campId: 'c1' };
  const junkParams: Record<string, string> = { apiKey: 'junk-api-key-000', campId: 'no-such-campaign' };
  const pathSets =
    paramNames.length > 0
      ? [
          { label: 'real key', params: realParams, junk: false },
          { label: 'junk key', params: junkParams, junk: true },
        ]
      : [{ label: '', params: {}, junk: false }];
  const baseQuery = () => VALID_QUERIES[key]?.() ?? {};
  const baseBody = () => VALID_BODIES[key]?.() ?? {};
  const queryNames = [...new Set([...Object.keys(jsonProperties(route.query) ?? {}), ...Object.keys(baseQuery())])];
  const JSON_TYPE = 'application/json';

  for (const set of pathSets) {
    const path = fillPath(route.path, set.params);
    const tag = (category: string) => (set.label ? `${category} (${set.label})` : category);
    const add = (
      category: string,
      input: string,
      init: { query?: Array<[string, string]>; body?: string; contentType?: string; expect?: Expectation },
    ) => {
      const url = path + queryString(init.query ?? encodePairs(baseQuery()));
      const contentType = init.contentType ?? (init.body !== undefined ? JSON_TYPE : '');
      const expectation =
        init.expect ??
        // A route with a precheck (the telephony callback: its key and signature header) refuses these unsigned
        // probes before it reads their body (docs/limits.md), whatever the body holds.
        (set.junk || route.precheck ? 'reject' : oracle(route, url, init.body ?? jsonBody(), contentType));
      probes.push({
        route,
        category: tag(category),
        input,
        method: route.method,
        url,
        body: init.body,
        headers: { ...authorization, ...(contentType ? { 'content-type': contentType } : {}) },
        expect: expectation,
      });
    };
    // The route's valid body, for probes about something else (GET cannot carry one).
    const jsonBody = () => (route.body ? JSON.stringify(baseBody()) : undefined);

    add('baseline', 'the valid request', { body: jsonBody() });

    if (route.body) {
      for (const text of BROKEN_JSON) add('broken JSON', preview(text), { body: text });
      for (const [what, text] of WRONG_TOP_LEVEL) add('wrong body type', what, { body: text });
      const base = baseBody();
      for (const field of bodyFields(route, base)) {
        for (const [label, value] of BODY_VALUES) {
          add('body field values', `${field.join('.')} = ${label}`, {
            body: JSON.stringify(withField(base, field, value)),
          });
        }
        add('body field missing', `${field.join('.')} left out`, {
          body: JSON.stringify(withField(base, field, undefined, true)),
        });
      }
      add('content type', 'text/plain "hello"', { body: 'hello', contentType: 'text/plain' });
      add('content type', 'text/plain carrying the valid JSON', { body: jsonBody(), contentType: 'text/plain' });
      add('content type', 'no content type, valid JSON', { body: jsonBody(), contentType: '' });
      add('content type', 'a form body', {
        body: 'campId=c1&a=%00&b=' + 'x'.repeat(1000),
        contentType: 'application/x-www-form-urlencoded',
      });
      add('content type', 'multipart junk', {
        body: '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b--',
        contentType: 'multipart/form-data; boundary=b',
      });
      add('content type', 'an empty JSON body', { body: '' });
      const first = bodyFields(route, base)[0] ?? ['x'];
      const near = JSON.stringify({ [first[0] ?? 'x']: '' });
      add('body size', '≈1 MiB body just under the limit', {
        body: near.replace('""', `"${'x'.repeat(MAX_BODY_BYTES - near.length - 8)}"`),
      });
      add('body size', '1 MiB + 1 byte body', {
        body: `{"x":"${'x'.repeat(MAX_BODY_BYTES - 7)}"}`,
        expect: 413,
      });
      if (route.form) {
        const forms = [
          '',
          'username=&password=',
          `username=${encodeURIComponent(LOGIN_EMAIL)}&password=%00`,
          `username=${'x'.repeat(10_000)}&password=x`,
          '%%%&&==&=x',
          'username=a&username=b&password=c&password=d',
          `grant_type=client_credentials&username=${encodeURIComponent(LOGIN_EMAIL)}&password=x`,
          'CallSid=&CallStatus=bogus&CallDuration=-1&Price=NaN&RecordingUrl=javascript:alert(1)',
          `CallSid=${'x'.repeat(5000)}&CallStatus=completed`,
        ];
        for (const form of forms) {
          add('form bodies', preview(form, 80), { body: form, contentType: 'application/x-www-form-urlencoded' });
        }
      }
    } else if (route.method !== 'GET') {
      add('stray body', 'a broken JSON body the route does not read', { body: '{"junk": [', contentType: JSON_TYPE });
    }

    if (queryNames.length > 0) {
      for (const name of queryNames) {
        for (const [label, values] of QUERY_VALUES) {
          const pairs = encodePairs(baseQuery()).filter(([k]) => k !== encodeURIComponent(name));
          for (const value of values) pairs.push([encodeURIComponent(name), value]);
          add('query parameters', `${name} = ${label}`, { query: pairs, body: jsonBody() });
        }
      }
      add('query parameters', 'an unknown extra parameter', {
        query: [...encodePairs(baseQuery()), ['bogus', '%00']],
        body: jsonBody(),
      });
      add('query parameters', 'no query string at all', { query: [], body: jsonBody() });
    } else {
      add('stray query', 'parameters the route does not take', {
        query: [
          ['limit', '-1'],
          ['campId', '%00'],
          ['x', 'y'.repeat(10_000)],
          ['x', '1'],
        ],
        body: jsonBody(),
      });
    }
  }

  if (route.auth) {
    const url = fillPath(route.path, {}) + queryString(encodePairs(baseQuery()));
    for (const [label, header] of BAD_AUTH) {
      probes.push({
        route,
        category: 'bad or missing token',
        input: label,
        method: route.method,
        url,
        body: route.body ? '{"broken": ' : undefined,
        headers: { ...(header ? { authorization: header } : {}), ...(route.body ? { 'content-type': JSON_TYPE } : {}) },
        expect: 401,
      });
    }
  }

  for (const name of paramNames) {
    for (const [label, value] of PATH_VALUES) {
      const url = fillPath(route.path, { ...realParams, [name]: value }) + queryString(encodePairs(baseQuery()));
      const body = route.body ? JSON.stringify(baseBody()) : undefined;
      probes.push({
        route,
        category: 'path parameters',
        input: `{${name}} = ${label}`,
        method: route.method,
        url,
        body,
        headers: body ? { 'content-type': JSON_TYPE } : {},
        expect: 'reject',
      });
    }
  }
  return [...probes, ...(DEEP_PROBES[key]?.(route) ?? [])];
}

const CALLBACK_VALUES: Array<[string, string]> = [
  ['""', ''],
  ['"\\u0000"', '\u0000'],
  ['"x"×5000', 'x'.repeat(5000)],
  ['"-1"', '-1'],
  ['"NaN"', 'NaN'],
  ['"1e999"', '1e999'],
  ['"javascript:alert(1)"', 'javascript:alert(1)'],
];
const SOCIAL_FIELDS = [
  ['entry', '0', 'messaging', '0', 'sender', 'id'],
  ['entry', '0', 'messaging', '0', 'timestamp'],
  ['entry', '0', 'messaging', '0', 'message', 'mid'],
  ['entry', '0', 'messaging', '0', 'message', 'text'],
  ['entry', '0', 'changes', '0', 'value', 'messages', '0', 'id'],
  ['entry', '0', 'changes', '0', 'value', 'messages', '0', 'from'],
  ['entry', '0', 'changes', '0', 'value', 'messages', '0', 'timestamp'],
  ['entry', '0', 'changes', '0', 'value', 'messages', '0', 'text', 'body'],
];

/**
 * Provider callbacks only reach their validation and the database past a signature or inside an envelope: these
 * probes need that knowledge of the route. Signed callbacks and well-formed envelopes could be valid ("maybe").
 */
const DEEP_PROBES: Record<string, (route: RestRoute) => Probe[]> = {
  'POST /telephony_webhook/{apiKey}/{campId}': (route) => {
    const url = fillPath(route.path, { apiKey: encodeURIComponent(owner.apiKey), campId: 'c1' });
    const fields = ['CallSid', 'CallStatus', 'From', 'To', 'Direction', 'CallDuration', 'Price', 'RecordingUrl'];
    return fields.flatMap((field) =>
      CALLBACK_VALUES.map(([label, value], index): Probe => {
        const params = { CallSid: `CA_DEEP_${field}_${index}`, CallStatus: 'ringing', [field]: value };
        return {
          route,
          category: 'signed callbacks',
          input: `${field} = ${label}`,
          method: 'POST',
          url,
          body: new URLSearchParams(params).toString(),
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-telephony-signature': sign(AUTH_TOKEN, `http://127.0.0.1${url}`, params),
          },
          expect: 'maybe',
        };
      }),
    );
  },
  'POST /social_webhook/{apiKey}/{campId}': (route) => {
    const url = fillPath(route.path, { apiKey: encodeURIComponent(owner.apiKey), campId: 'c1' });
    let messages = 0;
    const envelope = (n = (messages += 1)) => ({
      object: 'page',
      entry: [
        {
          messaging: [{ sender: { id: 'u1' }, timestamp: 1700000000000, message: { mid: `m-${n}`, text: 'hi' } }],
          changes: [
            { value: { messages: [{ id: `c-${n}`, from: 'u2', timestamp: '1700000000', text: { body: 'yo' } }] } },
          ],
        },
      ],
    });
    const values: Array<[string, unknown]> = [...BODY_VALUES, ['1e308', 1e308], ['year 10000', 253402300800000]];
    return SOCIAL_FIELDS.flatMap((field) =>
      values.map(([label, value]): Probe => ({
        route,
        category: 'message envelopes',
        input: `${field.join('.')} = ${label}`,
        method: 'POST',
        url,
        body: JSON.stringify(withField(envelope(), field, value)),
        headers: { 'content-type': 'application/json' },
        expect: 'maybe',
      })),
    );
  },
};

/** Everything wrong with one answer, as reproducible one-liners. */
function checkRest(probe: Probe, reply: Reply<any>): string[] {
  const problems: string[] = [];
  const { status, text } = reply;
  const at =
    `${probe.method} ${preview(probe.url, 160)} [${probe.category}: ${probe.input}]` +
    `${probe.body !== undefined ? ` body=${preview(probe.body, 120)}` : ''}` +
    `${probe.headers?.['content-type'] ? ` content-type=${probe.headers['content-type']}` : ''}` +
    ` → ${status} ${preview(text, 300)}`;
  const fail = (what: string) => problems.push(`${at}: ${what}`);

  if (status >= 500) fail('a server error');
  else if (typeof probe.expect === 'number') {
    const allowed = probe.expect === 413 ? [413] : [probe.expect];
    if (!allowed.includes(status)) fail(`expected ${probe.expect}`);
  } else if (probe.expect === 'reject' && (status < 400 || status > 499)) fail('expected a 4xx');
  else if (probe.expect === 'maybe' && !(status >= 200 && status < 300) && !(status >= 400 && status < 500)) {
    fail('expected a 2xx or a 4xx');
  }

  const plain = probe.route?.plainText === true && status === 200;
  let body: unknown;
  let isJson = false;
  try {
    body = JSON.parse(text);
    isJson = true;
  } catch {
    // checked below
  }
  if (!plain) {
    if (!isJson) fail('the body is not JSON');
    else if (!reply.headers.get('content-type')?.includes('application/json')) fail('content-type is not JSON');
  }
  for (const [name, marker] of LEAK_MARKERS) if (marker.test(text)) fail(`the body leaks ${name}`);

  if (isJson && status >= 400 && status < 500) {
    const detail = (body as { detail?: unknown } | null)?.detail;
    if (detail === undefined) fail('a 4xx without "detail"');
    if (status === 422) {
      const wellFormed =
        Array.isArray(detail) &&
        detail.length > 0 &&
        detail.every(
          (d: any) =>
            d && typeof d.type === 'string' && Array.isArray(d.loc) && d.loc.length > 0 && typeof d.msg === 'string',
        );
      if (!wellFormed) fail('a 422 whose detail is not a list of {type, loc, msg}');
    }
    if (status === 405 && !reply.headers.get('allow')) fail('a 405 without an Allow header');
  }
  return problems;
}

/** Sends the probes CONCURRENCY at a time; returns every problem found. */
async function sweep<P>(
  probes: P[],
  send: (probe: P) => Promise<Reply<any>>,
  check: (probe: P, reply: Reply<any>) => string[],
): Promise<string[]> {
  const problems: string[] = [];
  for (let start = 0; start < probes.length; start += CONCURRENCY) {
    const batch = probes.slice(start, start + CONCURRENCY);
    const replies = await Promise.all(
      batch.map((probe) =>
        send(probe).catch((error: unknown): Reply<any> => ({
          status: 599,
          headers: new Headers(),
          body: undefined,
          text: `the request threw: ${String(error)}`,
        })),
      ),
    );
    batch.forEach((probe, index) => problems.push(...check(probe, replies[index] as Reply<any>)));
  }
  return problems;
}

const touched = new Set<string>();

function sendRest(probe: Probe): Promise<Reply<any>> {
  if (probe.route) touched.add(routeKey(probe.route));
  count(`REST ${probe.category.replace(/ \((real|junk) key\)$/, '')}`);
  return t.request(probe.method, probe.url, { raw: probe.body, headers: probe.headers });
}

const restSweep = (probes: Probe[]) => sweep(probes, sendRest, checkRest);

describe('REST: every route of the table, fed malformed input', () => {
  beforeEach(ensureFixtures);

  for (const route of routes) {
    test(routeKey(route), async () => {
      const problems = await restSweep(probesFor(route));
      expect(problems).toEqual([]);
    });
  }

  test('unknown paths are 404 {"detail": "Not Found"}', async () => {
    const paths = [
      '/api/v3/nope',
      '/api/v3/',
      '/api/v3',
      '/api/v3/get_campaigns/extra',
      '/api/v3/GET_CAMPAIGNS',
      '/api/v3/get_campaigns%00',
      '/api/v3/%',
      '/api/v3/%zz/%E0%A4%A',
      '/api/v3/social_webhook/only-one-segment',
      '/api/v3/social_webhook/a/b/c',
      `/api/v3/${'a'.repeat(20_000)}`,
      `/api/v3/${'a/'.repeat(2000)}`,
      '/api/v3/get_campaigns/../nope',
      '/api/v3/docs/%2E%2E%2F%2E%2E%2Fpackage.json',
      '/api/v3/docs/nope.js',
    ];
    const probes: Probe[] = paths.flatMap((url) =>
      ['GET', 'POST', 'DELETE'].map((method) => ({
        category: 'unknown paths',
        input: 'an unknown path',
        method,
        url,
        headers: { authorization: `Bearer ${owner.token}` },
        expect: 404 as const,
      })),
    );
    const problems = await restSweep(probes);
    const replies = await Promise.all(paths.map((url) => t.request('GET', url, { token: owner.token })));
    for (const [index, reply] of replies.entries()) {
      if (reply.status === 404 && reply.text !== '{"detail":"Not Found"}') {
        problems.push(
          `GET ${preview(paths[index], 120)} → 404 ${preview(reply.text)}: expected {"detail":"Not Found"}`,
        );
      }
    }
    expect(problems).toEqual([]);
  });

  test('a method a known path does not have is 405 with Allow', async () => {
    const byPath = new Map<string, Set<string>>();
    for (const route of routes) byPath.set(route.path, (byPath.get(route.path) ?? new Set()).add(route.method));
    const probes: Probe[] = [];
    const allows = new Map<string, string>();
    for (const [path, methods] of byPath) {
      const url = fillPath(path, { apiKey: encodeURIComponent(owner.apiKey), campId: 'c1' });
      allows.set(url, [...methods].sort().join(', '));
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => !methods.has(m))) {
        const body = ['GET', 'OPTIONS', 'DELETE'].includes(method) ? undefined : '{"a": 1}';
        probes.push({
          category: 'wrong methods',
          input: `${method} where only ${[...methods].join(', ')}`,
          method,
          url,
          body,
          headers: { authorization: `Bearer ${owner.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          expect: 405,
        });
      }
    }
    const problems = await sweep(probes, sendRest, (probe, reply) => {
      const found = checkRest(probe, reply);
      const allow = reply.headers.get('allow');
      const expected = allows.get(probe.url);
      if (reply.status === 405 && allow && expected && allow.split(/,\s*/).sort().join(', ') !== expected) {
        found.push(`${probe.method} ${probe.url} → Allow: ${allow}, expected ${expected}`);
      }
      return found;
    });
    expect(probes.length).toBeGreaterThan(routes.length);
    expect(problems).toEqual([]);
  });

  test('the sweep reached every route of the table', () => {
    const missed = routes.filter((route) => !touched.has(routeKey(route))).map(routeKey);
    expect(missed).toEqual([]);
    expect(touched.size).toBe(new Set(routes.map(routeKey)).size);
  });
});

// ——— GraphQL ———

interface MutationSpec {
  name: string;
  auth: boolean;
  document: string;
  variables: () => Record<string, unknown>;
}

const MUTATIONS: MutationSpec[] = [
  {
    name: 'createCampaign',
    auth: true,
    document: `mutation ($input: CreateCampaignInput!) { createCampaign(input: $input) { campId } }`,
    variables: () => ({ input: campaignInput() }),
  },
  {
    name: 'updateCampaign',
    auth: true,
    document: `mutation ($campId: String!, $patch: UpdateCampaignInput!) {
      updateCampaign(campId: $campId, patch: $patch) { campId }
    }`,
    variables: () => ({ campId: 'c1', patch: { title: 'Renamed', maxCallTimeout: 5 } }),
  },
  {
    name: 'upsertCampaign',
    auth: true,
    document: `mutation ($campId: String!, $data: CampaignDataInput!) {
      upsertCampaign(campId: $campId, data: $data) { campId }
    }`,
    variables: () => ({ campId: 'c1', data: campaignInput(C1) }),
  },
  {
    name: 'setTextPipeline',
    auth: true,
    document: `mutation ($campId: String!, $input: TextPipelineInput!) {
      setTextPipeline(campId: $campId, input: $input) { campId }
    }`,
    variables: () => ({ campId: 'c1', input: { goal: 'Book a demo', postWebhook: 'https://hooks.example.com/p' } }),
  },
  {
    name: 'updateTelephony',
    auth: true,
    document: `mutation ($input: TelephonyIntegrationInput!) { updateTelephony(input: $input) { connected } }`,
    variables: () => ({ input: VALID_BODIES['POST /update_telephony']?.() }),
  },
  {
    name: 'connectCalendar',
    auth: true,
    document: `mutation ($input: CalendarIntegrationInput!) { connectCalendar(input: $input) { connected } }`,
    variables: () => ({ input: { ...CALENDAR, eventTypeId: 'evt-1' } }),
  },
  {
    name: 'bookMeeting',
    auth: true,
    document: `mutation ($input: BookMeetingInput!) { bookMeeting(input: $input) { meetingId } }`,
    variables: () => ({
      input: {
        campId: 'c1',
        title: 'Demo',
        startsAt: '2098-06-01T10:00:00Z',
        endsAt: '2098-06-01T10:30:00Z',
        timeZone: 'Europe/Paris',
        participants: [{ name: 'Bob', email: 'bob@example.com', phone: '+14155550101' }],
      },
    }),
  },
  {
    name: 'createWebhook',
    auth: true,
    document: `mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhookId } }`,
    variables: () => ({ input: VALID_BODIES['POST /create_webhook']?.() }),
  },
  {
    name: 'recordCallOutcome',
    auth: true,
    document: `mutation ($callId: String!, $transcript: String, $summary: String, $analysis: JSON) {
      recordCallOutcome(callId: $callId, transcript: $transcript, summary: $summary, analysis: $analysis) { callId }
    }`,
    variables: () => ({ callId: CALL_ID, transcript: 'Hello', summary: 'Short', analysis: { confirmed: true } }),
  },
  {
    name: 'signUp',
    auth: false,
    document: `mutation ($email: String!, $password: String!) { signUp(email: $email, password: $password) { apiKey } }`,
    variables: () => ({ email: uniqueEmail(), password: PASSWORD }),
  },
  {
    name: 'login',
    auth: false,
    document: `mutation ($email: String!, $password: String!) {
      login(email: $email, password: $password) { accessToken }
    }`,
    variables: () => ({ email: LOGIN_EMAIL, password: PASSWORD }),
  },
];

const GQL_VALUES: Array<[string, unknown]> = [
  ['"abc"', 'abc'],
  ['""', ''],
  ['12345', 12345],
  ['1.5', 1.5],
  ['true', true],
  ['null', null],
  ['[1, 2]', [1, 2]],
  ['{"a": 1}', { a: 1 }],
  ['"x"×100000', 'x'.repeat(100_000)],
  ['"\\u0000"', '\u0000'],
  ['" " (one space: a substring of most error messages)', ' '],
  ['an array nested 200 deep', deepArray(200)],
  ['1e308', 1e308],
  ['"NaN"', 'NaN'],
];

interface GqlProbe {
  category: string;
  input: string;
  /** Where a problem can be reproduced: the operation name or the raw request. */
  what: string;
  method?: string;
  url?: string;
  /** The raw request body; JSON-encoded { query, variables } when `query` is given instead. */
  raw?: string;
  query?: string;
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The variables do not coerce: every error must be BAD_USER_INPUT. */
  badVariables?: boolean;
  /** The request itself is broken: it must answer errors (no data). */
  mustFail?: boolean;
  expectStatus?: number;
}

function checkGql(probe: GqlProbe, reply: Reply<any>): string[] {
  const problems: string[] = [];
  const shownVariables = probe.variables ? ` variables=${preview(JSON.stringify(probe.variables), 160)}` : '';
  const shownBody = probe.raw !== undefined ? ` body=${preview(probe.raw, 160)}` : '';
  const at =
    `${probe.method ?? 'POST'} ${preview(probe.url ?? '/graphql', 120)} [${probe.category}: ${probe.input}]` +
    ` ${probe.what}${shownVariables}${shownBody} → ${reply.status} ${preview(reply.text, 300)}`;
  const fail = (what: string) => problems.push(`${at}: ${what}`);

  if (reply.status >= 500) fail('a server error');
  if (probe.expectStatus !== undefined && reply.status !== probe.expectStatus) fail(`expected ${probe.expectStatus}`);
  for (const [name, marker] of LEAK_MARKERS) if (marker.test(reply.text)) fail(`the body leaks ${name}`);
  let body: { data?: unknown; errors?: unknown } | undefined;
  try {
    body = JSON.parse(reply.text);
  } catch {
    fail('the body is not JSON');
    return problems;
  }
  const errors = body?.errors;
  if (errors !== undefined && (!Array.isArray(errors) || errors.length === 0)) fail('"errors" is not a non-empty list');
  const list = Array.isArray(errors) ? (errors as Array<{ message?: unknown; extensions?: { code?: unknown } }>) : [];
  if ((probe.mustFail || probe.badVariables) && list.length === 0) fail('expected errors');
  for (const error of list) {
    const code = error?.extensions?.code;
    if (typeof code !== 'string' || code === '')
      fail(`an error without extensions.code: ${preview(error?.message as string)}`);
    else if ((code === 'INTERNAL_SERVER_ERROR' || error.message === 'Unexpected error.') && reply.status < 500) {
      fail('an unexpected (internal) error');
    } else if (probe.badVariables && code !== 'BAD_USER_INPUT') fail(`expected BAD_USER_INPUT, got ${code}`);
  }
  return problems;
}

function sendGql(probe: GqlProbe): Promise<Reply<any>> {
  count(`GraphQL ${probe.category}`);
  const raw =
    probe.raw ??
    (probe.query !== undefined ? JSON.stringify({ query: probe.query, variables: probe.variables }) : undefined);
  const headers = { ...(raw !== undefined ? { 'content-type': 'application/json' } : {}), ...probe.headers };
  return t.request(probe.method ?? 'POST', probe.url ?? '/graphql', { raw, headers });
}

const gqlSweep = (probes: GqlProbe[]) => sweep(probes, sendGql, checkGql);

function mutationProbes(schema: GraphQLSchema, spec: MutationSpec): GqlProbe[] {
  const operation = parse(spec.document).definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (!operation) throw new Error(`${spec.name}: no operation`);
  const definitions = operation.variableDefinitions ?? [];
  const auth = spec.auth ? { authorization: `Bearer ${owner.token}` } : undefined;
  const probes: GqlProbe[] = [];
  const add = (input: string, variables: Record<string, unknown>) => {
    const coerced = getVariableValues(schema, definitions, variables, { maxErrors: 100 });
    probes.push({
      category: 'mutation variables',
      input,
      what: spec.name,
      query: spec.document,
      variables,
      headers: auth,
      badVariables: 'errors' in coerced && (coerced.errors?.length ?? 0) > 0,
    });
  };

  add('the valid variables', spec.variables());
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type) throw new Error(`${spec.name}: unknown type of $${name}`);
    for (const [label, value] of GQL_VALUES) add(`$${name} = ${label}`, { ...spec.variables(), [name]: value });
    const { [name]: _left, ...without } = spec.variables();
    add(`$${name} left out`, without);
    const unwrapped = isNonNullType(type) ? type.ofType : type;
    const named = getNamedType(type);
    if (isInputObjectType(named) && !isListType(unwrapped)) {
      for (const field of Object.keys(named.getFields())) {
        for (const [label, value] of GQL_VALUES) {
          const variables = spec.variables();
          variables[name] = { ...(variables[name] as Record<string, unknown>), [field]: value };
          add(`$${name}.${field} = ${label}`, variables);
        }
        const variables = spec.variables();
        const { [field]: _gone, ...rest } = variables[name] as Record<string, unknown>;
        add(`$${name}.${field} left out`, { ...variables, [name]: rest });
      }
    }
  }
  if (spec.auth) {
    probes.push({
      category: 'mutation without a token',
      input: 'no Authorization header',
      what: spec.name,
      query: spec.document,
      variables: spec.variables(),
      mustFail: true,
    });
  }
  return probes;
}

describe('GraphQL: the main mutations, fed malformed variables and requests', () => {
  beforeEach(ensureFixtures);

  for (const spec of MUTATIONS) {
    test(spec.name, async () => {
      const { schema } = t.app.yoga.getEnveloped({});
      const problems = await gqlSweep(mutationProbes(schema, spec));
      expect(problems).toEqual([]);
    });
  }

  test('broken request bodies', async () => {
    const valid =
      'mutation ($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken } }';
    const json = (value: unknown) => JSON.stringify(value);
    const raws: Array<[string, string, Record<string, string>?]> = [
      ['broken JSON', '{'],
      ['broken JSON', '{"query":'],
      ['broken JSON', '[1,2'],
      ['broken JSON', 'nul'],
      ['broken JSON', '\u0000'],
      ['broken JSON', '{"query": "{ __typename }"}}'],
      ['empty body', ''],
      ['JSON null', 'null'],
      ['a number', '42'],
      ['a string', '"{ __typename }"'],
      ['an empty batch', '[]'],
      ['a batch', json([{ query: '{ __typename }' }, { query: '{ __typename }' }])],
      ['query not a string', json({ query: 123 })],
      ['query null', json({ query: null })],
      ['query an object', json({ query: { a: 1 } })],
      ['query an array', json({ query: ['{ __typename }'] })],
      ['no query', json({ variables: {} })],
      ['variables a string', json({ query: valid, variables: 'x' })],
      ['variables an array', json({ query: valid, variables: [1, 2] })],
      ['variables a number', json({ query: valid, variables: 12 })],
      ['variables a JSON string', json({ query: valid, variables: '{"email": 1}' })],
      ['operationName not a string', json({ query: '{ __typename }', operationName: 12 })],
      ['operationName unknown', json({ query: '{ __typename }', operationName: 'Nope' })],
      ['extensions not an object', json({ query: '{ __typename }', extensions: 'x' })],
      ['10 000 nested braces', json({ query: '{'.repeat(10_000) })],
      ['10 000 balanced nested braces', json({ query: `${'{ a '.repeat(10_000)}${'}'.repeat(10_000)}` })],
      ['10 000 nested lists in a literal', json({ query: `{ a(b: ${'['.repeat(10_000)}${']'.repeat(10_000)}) }` })],
      [
        'variables nested 10 000 deep',
        `{"query": ${json(valid)}, "variables": {"email": ${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`,
      ],
      ['a 100 000-char query', json({ query: 'x'.repeat(100_000) })],
      ['a query of NULs', json({ query: '\u0000'.repeat(100) })],
      [
        'literal arguments of the wrong type',
        json({ query: 'mutation { signUp(email: 1, password: [2]) { apiKey } }' }),
      ],
      ['a required variable not given', json({ query: valid, variables: {} })],
      ['an undeclared variable', json({ query: 'mutation { login(email: $e, password: "p") { accessToken } }' })],
      ['two operations, no name', json({ query: '{ __typename } query B { __typename }' })],
      ['a subscription over POST', json({ query: 'subscription { nope }' })],
      ['text/plain', json({ query: '{ __typename }' }), { 'content-type': 'text/plain' }],
      ['form-encoded', 'query=%7B&variables=x', { 'content-type': 'application/x-www-form-urlencoded' }],
      [
        'multipart junk',
        '--b\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{\r\n--b--',
        {
          'content-type': 'multipart/form-data; boundary=b',
        },
      ],
      ['multipart without boundary', 'junk', { 'content-type': 'multipart/form-data' }],
      ['an unknown content type', json({ query: '{ __typename }' }), { 'content-type': 'application/x-nope' }],
      ['no content type', json({ query: '{ __typename }' }), { 'content-type': '' }],
    ];
    const probes: GqlProbe[] = raws.map(([input, raw, headers]) => ({
      category: 'broken request bodies',
      input,
      what: 'POST /graphql',
      raw,
      headers,
      mustFail: !['text/plain', 'no content type', 'a batch'].includes(input),
    }));
    probes.push({
      category: 'broken request bodies',
      input: '1 MiB + 1 byte',
      what: 'POST /graphql',
      raw: json({ query: '{ __typename }', variables: { pad: 'x'.repeat(MAX_BODY_BYTES) } }),
      mustFail: true,
      expectStatus: 413,
    });
    for (const url of [
      `/graphql?query=${encodeURIComponent('mutation { login(email: "a", password: "b") { accessToken } }')}`,
      '/graphql?query=%7B',
      '/graphql?query=%00',
      `/graphql?query=${encodeURIComponent('{ __typename }')}&variables=%7Bbroken`,
      `/graphql?query=${encodeURIComponent('{ __typename }')}&variables=1&variables=2`,
      `/graphql?query=${encodeURIComponent('{ __typename }')}&extensions=%5B`,
      '/graphql?query=%zz',
      `/graphql?query=${'x'.repeat(10_000)}`,
    ]) {
      probes.push({
        category: 'broken GET requests',
        input: 'bad query parameters',
        what: 'GET',
        method: 'GET',
        url,
        headers: { accept: 'application/json' },
        mustFail: true,
      });
    }
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      probes.push({
        category: 'wrong methods',
        input: `${method} /graphql`,
        what: method,
        method,
        raw: method === 'DELETE' ? undefined : json({ query: '{ __typename }' }),
        mustFail: true,
      });
    }
    const problems = await gqlSweep(probes);
    expect(problems).toEqual([]);
  });
});
