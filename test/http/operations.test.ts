// Request ids, log hygiene and health checks.
import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/core/config.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
let app: App | undefined;

afterEach(async () => {
  await t?.close();
  await app?.close();
  t = undefined;
  app = undefined;
});

describe('request ids', () => {
  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    t = await startApp();
    const given = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'req-123.abc' } });
    expect(given.headers.get('x-request-id')).toBe('req-123.abc');
    const made = await t.request('GET', '/api/v3/get_supported_voices');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await t.request('POST', '/graphql', {
      body: { query: '{ __typename }' },
      headers: { 'x-request-id': 'bad id\nwith newline'.replace('\n', ' ') },
    });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('logs', () => {
  it('writes one JSON line per request with its request id, and never a token, password or API key', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const config = loadConfig({
      DATABASE_URL: 'sqlite::memory:',
      JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      PASSWORD_HASH_COST: '10',
      LOG_LEVEL: 'info',
    });
    app = await createApp(config, { logStream: stream, worker: false });
    const call = (path: string, init: RequestInit = {}) => app!.fetch(new Request(`http://127.0.0.1${path}`, init));
    const password = 'a very secret password';
    const signup = await call('/api/v3/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'signup-1' },
      body: JSON.stringify({ email: 'log@example.com', password }),
    });
    const { apiKey } = (await signup.json()) as { apiKey: string };
    const login = await call('/api/v3/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'log@example.com', password }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    await call('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ viewer { email } }' }),
    });
    // A provider call carries the API key in its path, and a verify token in its query string.
    await call(`/api/v3/social_webhook/${apiKey}/camp?hub.mode=subscribe&hub.verify_token=vt-secret&hub.challenge=1`);

    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = parsed.filter((line) => line.msg === 'request');
    expect(requests).toHaveLength(4);
    expect(requests[0]).toMatchObject({ requestId: 'signup-1', method: 'POST', path: '/api/v3/signup', status: 200 });
    expect(requests[3]!.path).toBe('/api/v3/social_webhook/ck_****/camp');
    const all = lines.join('\n');
    for (const secret of [password, token, apiKey, apiKey.slice(3), 'vt-secret']) expect(all).not.toContain(secret);
  });
});

describe('log lines name their process and the client', () => {
  it('every line has pid and host; the access line has the client address as TRUST_PROXY resolves it', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const env = { DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'info', TRUST_PROXY: '1' };
    app = await createApp(
      loadConfig({ ...env, JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: Buffer.alloc(32).toString('base64') }),
      {
        logStream: stream,
        worker: false,
      },
    );
    const forwarded = { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' } };
    await app.fetch(new Request('http://127.0.0.1/healthz', forwarded), { address: '10.0.0.2' });
    await app.fetch(new Request('http://127.0.0.1/healthz'), { address: '10.0.0.3' });
    await new Promise((resolve) => setImmediate(resolve));
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.length).toBeGreaterThan(2);
    for (const line of parsed) expect(line).toMatchObject({ pid: process.pid, hostname: hostname() });
    const requests = parsed.filter((line) => line.msg === 'request');
    expect(requests.map((line) => line.client)).toEqual(['203.0.113.9', '10.0.0.3']);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz, and /readyz turns 503 while draining', async () => {
    t = await startApp();
    expect((await t.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.request('GET', '/readyz');
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
    t.app.draining = true;
    const draining = await t.request('GET', '/readyz');
    expect(draining.status, draining.text).toBe(503);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });

  it('answers /readyz 503 when the database does not answer', async () => {
    t = await startApp({}, [], { worker: false });
    await t.app.database.close();
    const reply = await t.request('GET', '/readyz');
    expect(reply.status, reply.text).toBe(503);
    expect(reply.body).toEqual({ status: 'unavailable', detail: 'The database does not answer' });
  });
});
