// Limits and protection (docs/decisions.md §4 login throttling, §10 error shapes, §11 limits): body size, GraphQL document
// limits (graphql-armor), page size, failed-login lockout and the per-account request rate, alone and shared
// between instances through Redis.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DocumentNode, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterEach, describe, expect, it } from 'vitest';
import { GRAPHIQL_DEFAULT_QUERY } from '../../src/graphql/server/graphiql.js';
import { inShadow, MAX_BODY_BYTES } from '../../src/core/request-context.js';
import { type Reply, startApp, TEST_DATABASE_URL, type TestApp } from '../helpers/app.js';

const apps: TestApp[] = [];
const tempDirs: string[] = [];

afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.close();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(...args: Parameters<typeof startApp>): Promise<TestApp> {
  const app = await startApp(...args);
  apps.push(app);
  return app;
}

/** A plugin that records the operations that reached execution. */
function executionRecorder(): { plugin: Plugin; executed: string[] } {
  const executed: string[] = [];
  const plugin: Plugin = {
    onExecute({ args }) {
      // The second answer of shadow mode (test/helpers/app.ts) runs the same operation again: not counted.
      if (inShadow()) return;
      const operation = (args.document as DocumentNode).definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
      executed.push(operation && 'name' in operation ? (operation.name?.value ?? '(anonymous)') : '(anonymous)');
    },
  };
  return { plugin, executed };
}

const MIB = MAX_BODY_BYTES;

/** A JSON text of exactly `size` bytes, made by `build` around a padding string of the right length. */
function jsonOfSize(size: number, build: (pad: string) => string): string {
  const empty = build('');
  const text = build('x'.repeat(size - Buffer.byteLength(empty)));
  expect(Buffer.byteLength(text)).toBe(size);
  return text;
}

const graphqlBody = (size: number) =>
  jsonOfSize(size, (pad) => JSON.stringify({ query: '{ __typename }', variables: { pad } }));
const campaignBody = (size: number) => jsonOfSize(size, (pad) => JSON.stringify({ campId: 'big', pad }));

/** A request whose body arrives as a stream of 64 KiB chunks, without Content-Length (chunked over HTTP). */
function chunkedRequest(path: string, text: string, headers: Record<string, string> = {}): Request {
  const bytes = Buffer.from(text);
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + 65_536)));
      offset += 65_536;
    },
  });
  return new Request(`http://127.0.0.1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
}

async function read(response: Response): Promise<{ status: number; headers: Headers; body: any }> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body };
}

describe('request body size (1 MiB)', () => {
  it('refuses a declared body of 1 MiB + 1 byte on both doors with 413', async () => {
    const t = await start({}, [], { worker: false });
    const { token } = await t.account();

    const rest = await t.rest('POST', '/update_campaign', {
      token,
      raw: campaignBody(MIB + 1),
      headers: { 'content-type': 'application/json', 'content-length': String(MIB + 1) },
    });
    expect(rest.status, rest.text).toBe(413);
    expect(rest.body).toEqual({ detail: 'Request body too large' });

    const gql = await t.request('POST', '/graphql', {
      token,
      raw: graphqlBody(MIB + 1),
      headers: { 'content-type': 'application/json', 'content-length': String(MIB + 1) },
    });
    expect(gql.status, gql.text).toBe(413);
    expect(gql.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    expect(gql.body.errors[0].message).toMatch(/^Request body too large/);
    expect(gql.body.data).toBeUndefined();

    // Without a token too: the size is checked before anything else reads the body.
    const anonymous = await t.rest('POST', '/update_campaign', {
      raw: campaignBody(MIB + 1),
      headers: { 'content-type': 'application/json', 'content-length': String(MIB + 1) },
    });
    expect(anonymous.status, anonymous.text).toBe(413);
    expect(anonymous.body).toEqual({ detail: 'Request body too large' });
  });

  it('refuses a chunked body (no Content-Length) of 1 MiB + 1 byte on both doors with 413', async () => {
    const t = await start({}, [], { worker: false });
    const { token } = await t.account();
    const authorization = `Bearer ${token}`;

    const rest = await read(
      await t.app.fetch(chunkedRequest('/api/v3/update_campaign', campaignBody(MIB + 1), { authorization })),
    );
    expect(rest.status).toBe(413);
    expect(rest.body).toEqual({ detail: 'Request body too large' });

    const gql = await read(await t.app.fetch(chunkedRequest('/graphql', graphqlBody(MIB + 1), { authorization })));
    expect(gql.status).toBe(413);
    expect(gql.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    expect(gql.body.errors[0].message).toMatch(/^Request body too large/);
    expect(gql.body.data).toBeUndefined();
  });

  it('does not refuse a body of exactly 1 MiB for its size, declared or chunked', async () => {
    const t = await start({}, [], { worker: false });
    const { token } = await t.account();
    const authorization = `Bearer ${token}`;

    // REST: the padded body is read and validated (the campaign data is missing), not refused for its size.
    const rest = await t.rest('POST', '/update_campaign', {
      token,
      raw: campaignBody(MIB),
      headers: { 'content-type': 'application/json', 'content-length': String(MIB) },
    });
    expect(rest.status).not.toBe(413);
    expect(rest.status, rest.text).toBe(422);
    const restChunked = await read(
      await t.app.fetch(chunkedRequest('/api/v3/update_campaign', campaignBody(MIB), { authorization })),
    );
    expect(restChunked.status).toBe(422);

    // GraphQL: the whole body arrives (a chunked one is buffered intact) and the query runs.
    const gql = await t.request('POST', '/graphql', {
      token,
      raw: graphqlBody(MIB),
      headers: { 'content-type': 'application/json', 'content-length': String(MIB) },
    });
    expect(gql.status, gql.text).toBe(200);
    expect(gql.body).toEqual({ data: { __typename: 'Query' } });
    const gqlChunked = await read(await t.app.fetch(chunkedRequest('/graphql', graphqlBody(MIB), { authorization })));
    expect(gqlChunked.status).toBe(200);
    expect(gqlChunked.body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('GraphQL document limits', () => {
  const aliases = (n: number) =>
    `query Aliases { ${Array.from({ length: n }, (_, i) => `a${i}: viewer { email }`).join(' ')} }`;

  /** POSTs a query with the given Accept header. */
  const post = (t: TestApp, token: string, body: Record<string, unknown>, accept: string) =>
    t.request('POST', '/graphql', { token, body, headers: { accept } });

  /** Refused under both media types: 200 for application/json, 400 for application/graphql-response+json. */
  async function expectRefused(
    t: TestApp,
    token: string,
    body: Record<string, unknown>,
    code: string,
    message: RegExp,
  ): Promise<void> {
    const json = await post(t, token, body, 'application/json');
    expect(json.status, json.text).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    const graphqlResponse = await post(t, token, body, 'application/graphql-response+json');
    expect(graphqlResponse.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
    // Soft, so that the checks below still run should the status be wrong.
    expect.soft(graphqlResponse.status, 'status for application/graphql-response+json').toBe(400);
    for (const reply of [json, graphqlResponse] as Reply<any>[]) {
      expect(reply.body.data).toBeUndefined();
      expect(reply.body.errors).toHaveLength(1);
      expect(reply.body.errors[0].extensions.code).toBe(code);
      expect(reply.body.errors[0].message).toMatch(message);
    }
  }

  it('refuses 31 aliases and accepts 30', async () => {
    const { plugin, executed } = executionRecorder();
    const t = await start({}, [plugin], { worker: false });
    const { token, email } = await t.account();
    executed.length = 0;

    await expectRefused(
      t,
      token,
      { query: aliases(31) },
      'GRAPHQL_VALIDATION_FAILED',
      /aliases limit of 30 exceeded, found 31/i,
    );
    expect(executed).toEqual([]);

    const allowed = await post(t, token, { query: aliases(30) }, 'application/json');
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.body.errors).toBeUndefined();
    expect(Object.keys(allowed.body.data)).toHaveLength(30);
    expect(allowed.body.data.a29).toEqual({ email });
    expect(executed).toEqual(['Aliases']);
  });

  it('refuses a document deeper than 12 and accepts depth 12', async () => {
    const { plugin, executed } = executionRecorder();
    const t = await start({}, [plugin], { worker: false });
    const { token } = await t.account();
    executed.length = 0;

    // campaigns > edges > node > callLogs > edges > node > campaign > callLogs > … > __typename: `levels` fields deep.
    const nest = (levels: number): string => {
      const chain = ['campaigns(first: 1)', 'edges', 'node'];
      const cycle = ['callLogs(first: 1)', 'edges', 'node', 'campaign'];
      for (let i = 0; chain.length < levels - 1; i++) chain.push(cycle[i % cycle.length]!);
      return `query Deep { ${chain.map((f) => `${f} {`).join(' ')} __typename ${'}'.repeat(chain.length)} }`;
    };
    await expectRefused(
      t,
      token,
      { query: nest(13) },
      'GRAPHQL_VALIDATION_FAILED',
      /depth limit of 12 exceeded, found 13/i,
    );
    expect(executed).toEqual([]);

    const ok = await post(t, token, { query: nest(12) }, 'application/json');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.campaigns.edges).toEqual([]);
    expect(executed).toEqual(['Deep']);
  });

  it('refuses a document of more than 5000 tokens as a parse failure and accepts 5000', async () => {
    const { plugin, executed } = executionRecorder();
    const t = await start({}, [plugin], { worker: false });
    const { token } = await t.account();
    executed.length = 0;

    // `query Ids { nodes(ids: [ … ]) { __typename } }`: 14 tokens around the list, one per id.
    const missing = Buffer.from('Campaign:missing').toString('base64');
    const ids = (tokens: number) =>
      `query Ids { nodes(ids: [${Array(tokens - 14)
        .fill(JSON.stringify(missing))
        .join(' ')}]) { __typename } }`;
    await expectRefused(t, token, { query: ids(5001) }, 'GRAPHQL_PARSE_FAILED', /token limit of 5000 exceeded/i);
    expect(executed).toEqual([]);

    // 5000 tokens parse and run (then `nodes` itself refuses more than 100 ids).
    const ok = await post(t, token, { query: ids(5000) }, 'application/json');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(ok.body.errors[0].message).toMatch(/at most 100 ids/);
    expect(executed).toEqual(['Ids']);
  });

  it('refuses a costly document and runs nothing of it', async () => {
    const { plugin, executed } = executionRecorder();
    const t = await start({}, [plugin], { worker: false });
    const { token } = await t.account();
    executed.length = 0;

    const costly = `query Costly {
      campaigns(first: 100) { edges { node { callLogs(first: 100) { edges { node { campaign { meetings { title } } } } } } } }
    }`;
    await expectRefused(
      t,
      token,
      { query: costly },
      'COST_LIMIT_EXCEEDED',
      /would cost \d+, more than the limit of 20000/,
    );
    expect(executed).toEqual([]);
  });

  it("accepts the GraphiQL default query's Campaigns operation", async () => {
    const t = await start({}, [], { worker: false });
    const { token, email } = await t.account();
    const reply = await post(
      t,
      token,
      { query: GRAPHIQL_DEFAULT_QUERY, operationName: 'Campaigns' },
      'application/graphql-response+json',
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.viewer).toEqual({ id: expect.any(String), email });
    expect(reply.body.data.campaigns.edges).toEqual([]);
  });
});

describe('page size', () => {
  it('refuses campaigns(first: 101) with BAD_USER_INPUT and get_campaigns?limit=1001 with 422', async () => {
    const t = await start({}, [], { worker: false });
    const { token } = await t.account();

    const gql = await t.gql('{ campaigns(first: 101) { edges { node { campId } } } }', {}, token);
    expect(gql.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(gql.body.errors?.[0].extensions.issues).toEqual([
      expect.objectContaining({ path: ['first'], message: 'Input should be less than or equal to 100' }),
    ]);
    expect(gql.body.data).toBeNull();
    const hundred = await t.gql('{ campaigns(first: 100) { edges { node { campId } } } }', {}, token);
    expect(hundred.body.errors).toBeUndefined();

    const rest = await t.rest('GET', '/get_campaigns?limit=1001', { token });
    expect(rest.status, rest.text).toBe(422);
    expect(rest.body.detail).toEqual([
      expect.objectContaining({ type: 'less_than_equal', loc: ['query', 'limit'], input: '1001' }),
    ]);
    expect((await t.rest('GET', '/get_campaigns?limit=1000', { token })).status).toBe(200);
  });
});

describe('login throttling', () => {
  const PASSWORD = 'correct horse battery';
  const login = (t: TestApp, username: string, password: string) =>
    t.rest('POST', '/login', { body: { username, password } });
  const LOCKED = /^Too many failed login attempts; try again in (\d+) seconds$/;

  async function fail(t: TestApp, username: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++) {
      const reply = await login(t, username, 'wrong password');
      expect(reply.status, `failure ${i + 1} for ${username}`).toBe(401);
      expect(reply.body).toEqual({ detail: 'Incorrect username or password' });
    }
  }

  it('locks an e-mail out after 5 failures, even for the right password, on both doors', async () => {
    const t = await start({}, [], { worker: false });
    const { email } = await t.account();
    const other = await t.account();

    await fail(t, email, 5);
    const locked = await login(t, email, PASSWORD);
    expect(locked.status, locked.text).toBe(429);
    expect(locked.body).toEqual({ detail: expect.stringMatching(LOCKED) });
    const retryAfter = locked.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(900);
    expect(LOCKED.exec(locked.body.detail)?.[1]).toBe(retryAfter);

    const gql = await t.gql(
      'mutation ($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken } }',
      { email, password: PASSWORD },
    );
    expect(gql.body.data).toBeNull();
    expect(gql.body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
    expect(gql.body.errors?.[0].message).toMatch(LOCKED);
    expect(gql.body.errors?.[0].extensions.retryAfter).toBeGreaterThan(0);
    expect(gql.body.errors?.[0].extensions.retryAfter).toBeLessThanOrEqual(900);

    // Another e-mail is not affected.
    const fine = await login(t, other.email, PASSWORD);
    expect(fine.status, fine.text).toBe(200);
    expect(fine.body.access_token).toEqual(expect.any(String));
  });

  it('counts GraphQL failures too', async () => {
    const t = await start({}, [], { worker: false });
    const { email } = await t.account();
    const mutation =
      'mutation ($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken } }';
    for (let i = 0; i < 5; i++) {
      const reply = await t.gql(mutation, { email, password: 'wrong password' });
      expect(reply.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    const locked = await login(t, email, PASSWORD);
    expect(locked.status, locked.text).toBe(429);
    expect(locked.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  });

  it('resets the count on a successful login', async () => {
    const t = await start({}, [], { worker: false });
    const { email } = await t.account();
    await fail(t, email, 4);
    expect((await login(t, email, PASSWORD)).status).toBe(200);
    await fail(t, email, 4);
    const allowed = await login(t, email, PASSWORD);
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.body.access_token).toEqual(expect.any(String));
  });

  it('matches e-mails case-insensitively', async () => {
    const t = await start({}, [], { worker: false });
    await t.account('ana@x.com');
    await fail(t, 'Ana@x.com', 3);
    await fail(t, ' ANA@X.COM', 2);
    const locked = await login(t, 'ana@x.com', PASSWORD);
    expect(locked.status, locked.text).toBe(429);
    expect(locked.body.detail).toMatch(LOCKED);
  });

  it('lifts the lock once the failure window has passed', async () => {
    const t = await start({ LOGIN_FAILURE_WINDOW_SECONDS: '2' }, [], { worker: false });
    const { email } = await t.account();
    await fail(t, email, 5);
    const locked = await login(t, email, PASSWORD);
    expect(locked.status, locked.text).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(2);

    await new Promise((resolve) => setTimeout(resolve, 2200));
    const allowed = await login(t, email, PASSWORD);
    expect(allowed.status, allowed.text).toBe(200);
  });
});

describe('per-account request rate', () => {
  const TOO_MANY = /^Too many requests: at most 5 per minute; try again in (\d+) seconds$/;

  function expectRetryAfter(reply: Reply): void {
    const value = reply.headers.get('retry-after');
    expect(value).toMatch(/^\d+$/);
    expect(Number(value)).toBeGreaterThan(0);
    expect(Number(value)).toBeLessThanOrEqual(60);
  }

  it('answers a 429 after REFUSAL_DELAY_MS (the rate, the work budget), and other requests at once', async () => {
    const t = await start({ RATE_LIMIT_PER_MINUTE: '2', REFUSAL_DELAY_MS: '300' }, [], { worker: false });
    const a = await t.account();
    const timed = async (token: string) => {
      const began = performance.now();
      const reply = await t.rest('GET', '/get_campaigns', { token });
      return { status: reply.status, ms: performance.now() - began };
    };
    for (let i = 0; i < 2; i++) expect((await timed(a.token)).status).toBe(200);
    const refused = await timed(a.token);
    expect(refused.status).toBe(429);
    expect(refused.ms).toBeGreaterThanOrEqual(290);
    // Another account's request is not held behind it.
    const b = await t.account();
    const other = await Promise.all([timed(a.token), timed(b.token)]);
    expect(other[0]!.status).toBe(429);
    expect(other[1]!.status).toBe(200);
    expect(other[1]!.ms).toBeLessThan(other[0]!.ms);

    // A spent work budget: refused after the delay too.
    const spent = await start(
      { WORK_BUDGET_MS_PER_MINUTE: '100', RATE_LIMIT_PER_MINUTE: '1000', REFUSAL_DELAY_MS: '300' },
      [],
      { worker: false },
    );
    const c = await spent.account();
    // Requests until the budget is spent: the one refused is answered after the delay.
    let held = { status: 200, detail: '', ms: 0 };
    for (let i = 0; i < 200 && held.status === 200; i++) {
      const began = performance.now();
      const reply = await spent.rest('GET', '/get_campaigns', { token: c.token });
      held = { status: reply.status, detail: String(reply.body?.detail ?? ''), ms: performance.now() - began };
    }
    expect(held.status).toBe(429);
    expect(held.detail).toMatch(/^Too much work/);
    expect(held.ms).toBeGreaterThanOrEqual(290);

    // A body over the limit: 413, after the delay too.
    const large = performance.now();
    const tooLarge = await spent.rest('POST', '/update_campaign', {
      raw: campaignBody(MIB + 1),
      headers: { 'content-type': 'application/json', 'content-length': String(MIB + 1) },
    });
    expect(tooLarge.status, tooLarge.text).toBe(413);
    expect(performance.now() - large).toBeGreaterThanOrEqual(290);
  });

  it("refuses an account's 6th authenticated request within the minute on both doors", async () => {
    const t = await start({ RATE_LIMIT_PER_MINUTE: '5' }, [], { worker: false });
    const a = await t.account();
    const b = await t.account();

    for (let i = 0; i < 3; i++) expect((await t.rest('GET', '/get_campaigns', { token: a.token })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const reply = await t.gql('{ viewer { id: accountId } }', {}, a.token);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data.viewer.id).toBe(a.id);
    }

    const rest = await t.rest('GET', '/get_campaigns', { token: a.token });
    expect(rest.status, rest.text).toBe(429);
    expect(rest.body).toEqual({ detail: expect.stringMatching(TOO_MANY) });
    expectRetryAfter(rest);

    const gql = await t.gql('{ viewer { id: accountId } }', {}, a.token);
    expect(gql.status, gql.text).toBe(429);
    expect(gql.body.data).toBeUndefined();
    expect(gql.body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
    expect(gql.body.errors?.[0].message).toMatch(TOO_MANY);
    expectRetryAfter(gql);

    // Another account has its own count.
    const other = await t.gql('{ viewer { id: accountId } }', {}, b.token);
    expect(other.status, other.text).toBe(200);
    expect(other.body.data.viewer.id).toBe(b.id);
    expect((await t.rest('GET', '/get_campaigns', { token: b.token })).status).toBe(200);

    // Requests without a bearer token are not counted: new accounts still sign up and log in, and an
    // unauthenticated call is refused for authentication, not for the rate.
    const c = await t.account();
    expect(c.token).toEqual(expect.any(String));
    const login = await t.rest('POST', '/login', { body: { username: c.email, password: 'correct horse battery' } });
    expect(login.status, login.text).toBe(200);
    const anonymous = await t.rest('GET', '/get_campaigns');
    expect(anonymous.status, anonymous.text).toBe(401);
  });
});

describe('rate limits across instances', () => {
  /** Two instances on one database, both with `env`. */
  async function twoInstances(env: Record<string, string>): Promise<[TestApp, TestApp]> {
    let databaseEnv: Record<string, string> = {};
    if (!TEST_DATABASE_URL) {
      const dir = mkdtempSync(join(tmpdir(), 'limits-'));
      tempDirs.push(dir);
      databaseEnv = { DATABASE_URL: `sqlite:${join(dir, 'shared.db')}` };
    }
    const first = await start({ ...env, ...databaseEnv });
    const second = await start(env, [], {
      databaseUrl: first.databaseUrl,
      ...(TEST_DATABASE_URL ? {} : { worker: false }),
    });
    return [first, second];
  }

  it('shares the count through Redis: 3 requests on A and 3 on B make the 6th a 429', async () => {
    const [a, b] = await twoInstances({ REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_PER_MINUTE: '5' });
    const { token } = await a.account();
    for (let i = 0; i < 3; i++) expect((await a.gql('{ viewer { id: accountId } }', {}, token)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await b.gql('{ viewer { id: accountId } }', {}, token)).status).toBe(200);
    const sixth = await b.gql('{ viewer { id: accountId } }', {}, token);
    expect(sixth.status, sixth.text).toBe(429);
    expect(sixth.body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    // A sees the same count.
    const rest = await a.rest('GET', '/get_campaigns', { token });
    expect(rest.status, rest.text).toBe(429);
    expect(rest.body.detail).toMatch(/^Too many requests/);
  });

  it('does not share the count without Redis: 3 requests on each instance all pass', async () => {
    const [a, b] = await twoInstances({ RATE_LIMIT_PER_MINUTE: '5' });
    const { token } = await a.account();
    for (const app of [a, b, a, b, a, b]) {
      const reply = await app.gql('{ viewer { id: accountId } }', {}, token);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.errors).toBeUndefined();
    }
  });
});
