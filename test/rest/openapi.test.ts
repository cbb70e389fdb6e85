// The OpenAPI description of the REST door (derived from the route table) and the docs page: what it describes, that
// every operation documents every status with its body and headers, that success bodies are the routes' declared
// responses, and that request rules are described as strictly as the server checks them (edge cases of every
// operation, sent and validated: openapi-requests.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/rest/openapi.js';
import { routes } from '../../src/rest/routes.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

// The legacy service's interface description, copied into the repository (docs/rest-compatibility.md).
const SEED = readFileSync(join(import.meta.dirname, '../fixtures/legacy-interface.md'), 'utf8');
/** Every `**METHOD /path**` heading of the legacy interface. */
const SEED_OPERATIONS = [...SEED.matchAll(/\*\*(GET|POST|DELETE|PUT|PATCH) (\/[^*\s]+)\*\*/g)].map((m) => ({
  method: m[1]!.toLowerCase(),
  path: m[2]!,
}));

let t: TestApp;
let doc: any;

beforeAll(async () => {
  t = await startApp();
  const reply = await t.request('GET', '/api/v3/openapi.json');
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toContain('application/json');
  doc = reply.body;
});
afterAll(() => t.close());

/** A `$ref` of the description, followed. */
function resolve(node: any): any {
  if (typeof node?.$ref !== 'string') return node;
  return resolve(
    node.$ref
      .slice(2)
      .split('/')
      .reduce((at: any, key: string) => at?.[key], doc),
  );
}

const operations = () =>
  Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops).map(([method, op]) => ({ where: `${method} ${path}`, path, method, op })),
  );

describe('GET /api/v3/openapi.json', () => {
  it('is what buildOpenApi derives from the route table (the answer checker of test/helpers relies on it)', () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApi(routes))));
  });

  it('is OpenAPI 3.1 with every path and method of the legacy interface', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(SEED_OPERATIONS.length).toBeGreaterThanOrEqual(20);
    for (const { method, path } of SEED_OPERATIONS)
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });

  it('describes exactly the route table, no more and no less', () => {
    const described = operations().map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(described.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('names the bearer schemes: the OAuth2 password flow with the token URL `login`, or a pasted bearer token', () => {
    // The legacy declaration, as it was; its description tells Swagger UI's users what to type (issue 32).
    expect(doc.components.securitySchemes.OAuth2PasswordBearer).toEqual({
      type: 'oauth2',
      description: expect.stringContaining('`username` is its e-mail'),
      flows: { password: { tokenUrl: 'login', scopes: {} } },
    });
    expect(doc.components.securitySchemes.OAuth2PasswordBearer.description).toContain('demo@example.com');
    // A token one already has (a named access token cannot come from the password flow).
    expect(doc.components.securitySchemes.HTTPBearer).toEqual({
      type: 'http',
      scheme: 'bearer',
      description: expect.stringContaining('cgat_'),
    });
    expect(doc.paths['/get_campaigns'].get.security).toEqual([{ OAuth2PasswordBearer: [] }, { HTTPBearer: [] }]);
    expect(doc.paths['/signup'].post.security).toEqual([]);
    expect(doc.paths['/social_webhook/{apiKey}/{campId}'].post.security).toEqual([]);
  });

  it('takes bodies and parameters from the same zod schemas the router validates with', () => {
    const update = doc.paths['/update_campaign'].post.requestBody.content['application/json'].schema;
    expect(update.required).toEqual(expect.arrayContaining(['campId', 'campaignModelData']));
    // An integer, or a numeric string: the router reads "5" as 5 (test/rest/openapi-requests.test.ts has the rest).
    expect(update.properties.campaignModelData.properties.maxCallTimeout).toMatchObject({
      anyOf: [
        { type: 'integer', minimum: 1, maximum: 120 },
        { type: 'string', pattern: expect.any(String) },
      ],
      default: 1,
    });
    const login = doc.paths['/login'].post.requestBody.content;
    expect(Object.keys(login).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    const attach = doc.paths['/add_webhook_campaingn'].post.parameters;
    expect(attach).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'webhookId', in: 'query', required: true }),
        // The main name is required (OpenAPI cannot say "one of these"); the aliases older clients send are deprecated.
        expect.objectContaining({ name: 'campaignId', in: 'query', required: true }),
        expect.objectContaining({ name: 'campId', in: 'query', required: false, deprecated: true }),
        expect.objectContaining({ name: 'camp_id', in: 'query', required: false, deprecated: true }),
      ]),
    );
    for (const method of ['get', 'post', 'delete']) {
      const named = doc.paths['/text_pipeline_configuration'][method].parameters;
      expect(named).toEqual([
        expect.objectContaining({ name: 'campId', required: true }),
        expect.objectContaining({ name: 'campaignId', required: false, deprecated: true }),
        expect.objectContaining({ name: 'camp_id', required: false, deprecated: true }),
      ]);
    }
    // Every operation lists the 405 its path answers to the methods it does not serve.
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        expect(operation.responses['405'], `${method} ${path}`).toEqual({
          $ref: '#/components/responses/MethodNotAllowed',
        });
      }
    }
    const social = doc.paths['/social_webhook/{apiKey}/{campId}'].get.parameters.map((p: any) => `${p.in}:${p.name}`);
    expect(social).toEqual(expect.arrayContaining(['path:apiKey', 'path:campId', 'query:hub.challenge']));
    expect(resolve(doc.paths['/get_campaigns'].get.responses['422']).content['application/json'].schema.$ref).toBe(
      '#/components/schemas/HTTPValidationError',
    );
  });
});

describe('success bodies', () => {
  it('every operation declares its real success body, none an empty schema', () => {
    for (const { where, op } of operations()) {
      const content = op.responses['200'].content;
      const [media] = Object.keys(content);
      expect(content[media!].schema, where).not.toEqual({});
    }
    expect(doc.paths['/social_webhook/{apiKey}/{campId}'].get.responses['200'].content).toEqual({
      'text/plain': { schema: { type: 'string', description: expect.any(String) } },
    });
  });

  it('shared shapes are declared once, as components/schemas, and referenced wherever they are answered', () => {
    const body = (path: string, method: string) =>
      doc.paths[path][method].responses['200'].content['application/json'].schema;
    const campaign = { $ref: '#/components/schemas/LegacyCampaign' };
    expect(body('/update_campaign', 'post')).toEqual(campaign);
    expect(body('/get_campaign', 'get')).toEqual(campaign);
    expect(body('/get_campaigns', 'get').items).toEqual({ $ref: '#/components/schemas/CampaignListEntry' });
    for (const path of ['/get_call_logs_for_campaign', '/get_call_logs_for_user'])
      expect(body(path, 'get').items).toEqual({ $ref: '#/components/schemas/CallLog' });
    expect(body('/create_webhook', 'post')).toEqual({ $ref: '#/components/schemas/Webhook' });
    expect(body('/get_webhooks', 'get').items).toEqual({ $ref: '#/components/schemas/Webhook' });
    expect(body('/add_board_info', 'post')).toEqual(body('/get_board_info', 'get'));
    expect(body('/remove_board_info', 'delete').properties.detail).toEqual({
      type: 'string',
      const: 'Board integration removed',
    });
  });

  it('a body declares exactly the fields the server sends, no others', () => {
    const campaign = doc.components.schemas.LegacyCampaign;
    expect(campaign.additionalProperties).toBe(false);
    expect(Object.keys(campaign.properties)).toEqual(campaign.required);
    expect(campaign.required).toEqual(
      expect.arrayContaining(['campId', 'voice', 'status', 'creationDate', 'totalNumCall', 'averageCallCost']),
    );
    expect(campaign.properties.status).toEqual({ type: 'string', enum: ['active', 'paused', 'completed'] });
    expect(doc.components.schemas.Token.properties.token_type).toEqual({ type: 'string', const: 'bearer' });
    expect(doc.components.schemas.DateTime).toMatchObject({ type: 'string', format: 'date-time' });
  });
});

describe('documented statuses', () => {
  it('every error has its FastAPI body; 401 names WWW-Authenticate, 429 and 503 Retry-After, every answer X-Request-Id', () => {
    for (const { where, op } of operations()) {
      for (const [status, node] of Object.entries<any>(op.responses)) {
        const response = resolve(node);
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${where} ${status}`).toContain('X-Request-Id');
        if (status === '200') continue;
        const body = response.content['application/json'].schema.$ref;
        expect(body, `${where} ${status}`).toBe(
          status === '422' ? '#/components/schemas/HTTPValidationError' : '#/components/schemas/Detail',
        );
        if (status === '401') expect(headers, where).toContain('WWW-Authenticate');
        if (status === '429' || status === '503') expect(headers, where).toContain('Retry-After');
      }
      for (const status of ['404', '413', '429', '500', '503']) expect(op.responses[status], where).toBeDefined();
      if (op.security.length > 0) expect(op.responses['401'], where).toBeDefined();
    }
    expect(Object.keys(doc.components.responses.MethodNotAllowed.headers)).toContain('Allow');
    expect(doc.components.schemas.ValidationError.required).toEqual(['type', 'loc', 'msg', 'input']);
  });

  it('422 where something of the request is validated, and only there', () => {
    expect(doc.paths['/get_campaigns'].get.responses['422']).toBeDefined();
    expect(doc.paths['/social_webhook/{apiKey}/{campId}'].post.responses['422']).toBeDefined();
    expect(doc.paths['/get_supported_voices'].get.responses['422']).toBeUndefined();
    expect(doc.paths['/remove_board_info'].delete.responses['422']).toBeUndefined();
  });

  it('what the server really answers in these cases is documented for that operation', async () => {
    const seen: Array<[method: string, path: string, status: number]> = [];
    const { token, apiKey } = await t.account('doc@example.com');
    const dup = await t.rest('POST', '/signup', { body: { email: 'doc@example.com', password: 'a long password' } });
    seen.push(['post', '/signup', dup.status]);
    const wrong = await t.rest('POST', '/login', { body: { username: 'doc@example.com', password: 'wrong password' } });
    seen.push(['post', '/login', wrong.status]);
    const camp = { campId: 'c1', campaignModelData: campaignModelData() };
    expect((await t.rest('POST', '/update_campaign', { token, body: camp })).status).toBe(200);
    await t.gql('mutation { completeCampaign(campId: "c1") { status } }', {}, token);
    const completed = await t.rest('POST', '/update_campaign', { token, body: camp });
    seen.push(['post', '/update_campaign', completed.status]);
    const unsigned = await t.request('POST', `/api/v3/telephony_webhook/${apiKey}/c1`, {
      raw: 'CallSid=CA1&CallStatus=completed',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    seen.push(['post', '/telephony_webhook/{apiKey}/{campId}', unsigned.status]);
    const handshake = await t.request(
      'GET',
      `/api/v3/social_webhook/${apiKey}/c1?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1`,
    );
    seen.push(['get', '/social_webhook/{apiKey}/{campId}', handshake.status]);

    expect(seen.map(([, , status]) => status)).toEqual([409, 401, 409, 403, 403]);
    for (const [method, path, status] of seen)
      expect(Object.keys(doc.paths[path][method].responses), `${method} ${path}`).toContain(String(status));
    // The login's 401 carries WWW-Authenticate too, as every 401 of the door does.
    expect(Object.keys(doc.paths['/login'].post.responses['401'].headers)).toContain('WWW-Authenticate');
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('request rules, as strict as the server', () => {
  const ajv = new Ajv2020({ strict: false });
  const campaignField = (name: string) =>
    doc.paths['/update_campaign'].post.requestBody.content['application/json'].schema.properties.campaignModelData
      .properties[name];
  const queryParameter = (path: string, name: string) =>
    doc.paths[path].get.parameters.find((p: any) => p.name === name);

  it('says what JSON Schema cannot: the voice catalogue, known time zones, real language tags and dates', () => {
    expect(campaignField('voice').description).toMatch(/catalogue|get_supported_voices/);
    expect(campaignField('timeZone')).toMatchObject({ maxLength: 64, pattern: expect.any(String) });
    expect(campaignField('timeZone').description).toContain('IANA');
    expect(campaignField('language')).toMatchObject({ maxLength: 35, pattern: expect.any(String) });
    const since = queryParameter('/get_call_logs_for_user', 'since');
    expect(since.schema.pattern).toEqual(expect.any(String));
    expect(since.description).toContain('ISO 8601');
    const email = doc.paths['/signup'].post.requestBody.content['application/json'].schema.properties.email;
    // The server trims an e-mail, then checks zod's e-mail pattern: no JSON Schema format, a pattern allowing padding.
    expect(email).toMatchObject({ type: 'string', allOf: [{ pattern: expect.stringMatching(/^\^\\s\*/) }, {}] });
    expect(email.format).toBeUndefined();
    const aliased = doc.paths['/text_pipeline_configuration'].get.parameters.find((p: any) => p.name === 'campId');
    expect(aliased.description).toContain('camp_id');
  });

  it('a value the description refuses, the server refuses; a value the server takes, the description takes', async () => {
    const { token } = await t.account();
    const accepts = (schema: object, value: string) => ajv.validate(schema, value);
    const cases: Array<[field: 'language' | 'timeZone', value: string]> = [
      ['language', 'en-US'],
      ['language', 'zh-Hant-TW'],
      ['language', 'english'],
      ['language', 'en_US'],
      ['language', 'e1'],
      ['timeZone', 'Europe/Paris'],
      ['timeZone', 'America/Argentina/Buenos_Aires'],
      ['timeZone', 'UTC'],
      ['timeZone', '+02:00'],
      ['timeZone', 'Europe/'],
      ['timeZone', 'Mars/Olympus'],
    ];
    for (const [field, value] of cases) {
      const reply = await t.rest('POST', '/update_campaign', {
        token,
        body: { campId: 'rules', campaignModelData: campaignModelData({ [field]: value }) },
      });
      const described = accepts(campaignField(field), value);
      if (!described) expect(reply.status, `${field} ${value}`).toBe(422);
      if (reply.status === 200) expect(described, `${field} ${value}`).toBe(true);
    }
    const since = queryParameter('/get_call_logs_for_user', 'since').schema;
    for (const value of ['2026-11-01', '2026-11-01T09:00', '2026-11-01 09:00:00.5+02:00', '2026-11-01t09:00z', 'now']) {
      const reply = await t.rest('GET', `/get_call_logs_for_user?since=${encodeURIComponent(value)}`, { token });
      const described = accepts(since, value);
      if (!described) expect(reply.status, value).toBe(422);
      if (reply.status === 200) expect(described, value).toBe(true);
    }
  });
});

describe('GET /api/v3/docs', () => {
  it('serves Swagger UI from this server (no CDN), pointed at openapi.json', async () => {
    const page = await t.request('GET', '/api/v3/docs');
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.every((src) => src.startsWith('/api/v3/docs/'))).toBe(true);
    for (const src of sources) expect((await t.request('GET', src)).status, src).toBe(200);
    expect((await t.request('GET', '/api/v3/docs/init.js')).text).toContain("url: '/api/v3/openapi.json'");
    expect((await t.request('GET', '/api/v3/docs/../package.json')).status).toBe(404);
  });

  it("hides the Authorize dialog's OAuth2 client fields: signing in takes an e-mail and a password only", async () => {
    const page = await t.request('GET', '/api/v3/docs');
    expect(page.text).toContain('href="/api/v3/docs/page.css"');
    const css = await t.request('GET', '/api/v3/docs/page.css');
    expect(css.headers.get('content-type')).toContain('text/css');
    // The password flow's rows for client_id, client_secret and where they go, and the note about scopes.
    for (const field of ["for^='client_id_'", "for^='client_secret_'", "for='password_type'", '.scope-def'])
      expect(css.text, field).toContain(field);
    expect(css.text).toMatch(/\{\s*display: none;\s*\}/);
  });
});
