// The OpenAPI description of the REST door (derived from the route table) and the docs page.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('GET /api/v3/openapi.json', () => {
  it('is OpenAPI 3.1 with every path and method of the legacy interface', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(SEED_OPERATIONS.length).toBeGreaterThanOrEqual(20);
    for (const { method, path } of SEED_OPERATIONS)
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });

  it('describes exactly the route table, no more and no less', () => {
    const described = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('names the bearer scheme: the OAuth2 password flow with the token URL `login`', () => {
    expect(doc.components.securitySchemes.OAuth2PasswordBearer).toEqual({
      type: 'oauth2',
      flows: { password: { tokenUrl: 'login', scopes: {} } },
    });
    expect(doc.paths['/get_campaigns'].get.security).toEqual([{ OAuth2PasswordBearer: [] }]);
    expect(doc.paths['/signup'].post.security).toEqual([]);
    expect(doc.paths['/social_webhook/{apiKey}/{campId}'].post.security).toEqual([]);
  });

  it('takes bodies and parameters from the same zod schemas the router validates with', () => {
    const update = doc.paths['/update_campaign'].post.requestBody.content['application/json'].schema;
    expect(update.required).toEqual(expect.arrayContaining(['campId', 'campaignModelData']));
    expect(update.properties.campaignModelData.properties.maxCallTimeout).toMatchObject({ type: 'integer' });
    const login = doc.paths['/login'].post.requestBody.content;
    expect(Object.keys(login).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    const attach = doc.paths['/add_webhook_campaingn'].post.parameters;
    expect(attach).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'webhookId', in: 'query', required: true }),
        expect.objectContaining({ name: 'campaignId', in: 'query', required: true }),
      ]),
    );
    const social = doc.paths['/social_webhook/{apiKey}/{campId}'].get.parameters.map((p: any) => `${p.in}:${p.name}`);
    expect(social).toEqual(expect.arrayContaining(['path:apiKey', 'path:campId', 'query:hub.challenge']));
    expect(doc.paths['/get_campaigns'].get.responses['422'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/HTTPValidationError',
    );
  });
});

describe('documented statuses', () => {
  const documented = (method: string, path: string) => Object.keys(doc.paths[path][method].responses).map(Number);

  it('401 names WWW-Authenticate; 429 and 503 name Retry-After, on every operation', () => {
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const where = `${method} ${path}`;
        if (op.security.length > 0) expect(op.responses[401]?.headers?.['WWW-Authenticate'], where).toBeDefined();
        for (const status of [429, 503]) expect(op.responses[status]?.headers?.['Retry-After'], where).toBeDefined();
      }
    }
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
    for (const [method, path, status] of seen) expect(documented(method, path), `${method} ${path}`).toContain(status);
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
});
