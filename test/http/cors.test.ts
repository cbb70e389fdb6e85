// Browser origins (docs/security.md "Browsers and CORS"): CORS_ALLOWED_ORIGINS. By default any page may call /graphql
// with a bearer token, and no origin is told it may send credentials; /subgraph answers no browser. A list: only its
// origins get CORS headers, with credentials, at /graphql (yoga and the prepared lane alike), /subgraph and /mcp.
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/core/config.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const PAGE = 'https://app.example';
const OTHER = 'https://evil.example';
const QUERY = '{ __typename }';

/** The CORS headers of an answer. */
const corsOf = (headers: Headers) => ({
  origin: headers.get('access-control-allow-origin'),
  credentials: headers.get('access-control-allow-credentials'),
  vary: headers.get('vary'),
});

/** The same document three times from `origin`: the first through yoga, the next through the prepared lane. */
async function graphqlFrom(app: TestApp, origin: string) {
  const answers = [];
  for (let i = 0; i < 3; i++) {
    const reply = await app.request('POST', '/graphql', { body: { query: QUERY }, headers: { origin } });
    expect(reply.status).toBe(200);
    answers.push(corsOf(reply.headers));
  }
  return answers;
}

const preflight = (app: TestApp, path: string, origin: string) =>
  app.request('OPTIONS', path, {
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
  });

describe('CORS at the GraphQL endpoints', () => {
  it('by default: any origin may call /graphql, none with credentials; /subgraph answers no browser origin', async () => {
    t = await startApp({});
    for (const answer of await graphqlFrom(t, PAGE)) {
      expect(answer).toEqual({ origin: PAGE, credentials: null, vary: expect.stringContaining('Origin') });
    }
    const allowed = await preflight(t, '/graphql', OTHER);
    expect(allowed.status).toBeLessThan(300);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(OTHER);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();

    const subgraph = await t.request('POST', '/subgraph', { body: { query: QUERY }, headers: { origin: PAGE } });
    expect(subgraph.headers.get('access-control-allow-origin')).toBeNull();
    expect(subgraph.headers.get('access-control-allow-credentials')).toBeNull();
    // A caller without Origin (a server, a gateway) is not concerned.
    const server = await t.request('POST', '/graphql', { body: { query: QUERY } });
    expect(server.status).toBe(200);
    expect(server.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a list: only its origins get CORS headers, with credentials, on /graphql, /subgraph and /mcp', async () => {
    t = await startApp({ CORS_ALLOWED_ORIGINS: `${PAGE}, https://admin.example` });
    for (const answer of await graphqlFrom(t, PAGE)) {
      expect(answer).toEqual({ origin: PAGE, credentials: 'true', vary: expect.stringContaining('Origin') });
    }
    for (const answer of await graphqlFrom(t, OTHER))
      expect(answer).toEqual({ origin: null, credentials: null, vary: null });
    const refusedPreflight = await preflight(t, '/graphql', OTHER);
    expect(refusedPreflight.headers.get('access-control-allow-origin')).toBeNull();
    const listedPreflight = await preflight(t, '/graphql', 'https://admin.example');
    expect(listedPreflight.headers.get('access-control-allow-origin')).toBe('https://admin.example');
    expect(listedPreflight.headers.get('access-control-allow-credentials')).toBe('true');

    const subgraph = await t.request('POST', '/subgraph', { body: { query: QUERY }, headers: { origin: PAGE } });
    expect(corsOf(subgraph.headers)).toMatchObject({ origin: PAGE, credentials: 'true' });
    const subgraphOther = await t.request('POST', '/subgraph', { body: { query: QUERY }, headers: { origin: OTHER } });
    expect(subgraphOther.headers.get('access-control-allow-origin')).toBeNull();

    // /mcp: a listed origin passes the DNS-rebinding rule (401 for want of a token, with CORS); another is refused.
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const mcp = await t.request('POST', '/mcp', { body, headers: { origin: PAGE } });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect((await t.request('POST', '/mcp', { body, headers: { origin: OTHER } })).status).toBe(403);
  });

  it('`none`: no browser origin anywhere; a value that is not an origin is refused at start', async () => {
    t = await startApp({ CORS_ALLOWED_ORIGINS: 'none' });
    for (const answer of await graphqlFrom(t, PAGE)) expect(answer.origin).toBeNull();
    const secrets = { JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') };
    expect(() => loadConfig({ ...secrets, CORS_ALLOWED_ORIGINS: 'https://app.example/path' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...secrets, CORS_ALLOWED_ORIGINS: 'app.example' })).toThrow(
      /CORS_ALLOWED_ORIGINS.*app\.example is not an origin/,
    );
  });
});
