// Starts the app on a fresh database for one test: in-memory SQLite, or a fresh PostgreSQL schema when
// TEST_DATABASE_URL is set. Requests go through the app's fetch handler, as they would over HTTP.
import { randomBytes } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import pg from 'pg';
import { type App, type AppOptions, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/core/config.js';
import { assertDocumentedAnswer, isRestPath } from './openapi-answers.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const DIALECT = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestApp {
  app: App;
  /** The database it runs on (for a second instance on the same one). */
  databaseUrl: string;
  /** SQL statements run since the last `resetQueries()`. */
  queries: string[];
  /** The same statements with their parameters (to read their query plans). */
  statements: Array<{ sql: string; parameters: readonly unknown[] }>;
  resetQueries(): void;
  request(
    method: string,
    path: string,
    init?: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string },
  ): Promise<Reply<any>>;
  rest(
    method: string,
    path: string,
    init?: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string },
  ): Promise<Reply<any>>;
  gql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
  ): Promise<Reply<{ data?: T; errors?: any[] }>>;
  /** Signs up and logs in a new account; returns its bearer token and API key. */
  account(email?: string): Promise<{ token: string; apiKey: string; id: string; email: string }>;
  close(): Promise<void>;
}

/** Databases this worker made that no open test app uses; emptied before they are handed out again. */
const idleDatabases: string[] = [];

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  // Test data need not survive a crash: commits skip the WAL flush.
  url.searchParams.set('options', '-c synchronous_commit=off');
  return url.toString();
}

/**
 * A database of its own for one test app: an idle one of this worker, emptied, or a new copy of the run's migrated
 * template (test/global-setup.ts). Either way the app starts on empty tables.
 */
async function acquirePostgresDatabase(base: string): Promise<{ url: string; release(): void }> {
  const run = process.env.TEST_RUN_ID;
  if (!run) throw new Error('TEST_RUN_ID is not set: run the tests through vitest (test/global-setup.ts)');
  let name = idleDatabases.pop();
  if (name) {
    // Everything but the reference data belongs to an account and goes with it (foreign keys cascade), except the
    // persisted queries, which are shared by all; a few rows are quicker to delete than to truncate.
    await withClient(databaseUrl(base, name), (client) =>
      client.query('delete from accounts; delete from persisted_queries; delete from oauth_artifacts'),
    );
  } else {
    name = `t_${run}_${randomBytes(6).toString('hex')}`;
    const created = name;
    await withClient(base, (client) => client.query(`create database ${created} template tmpl_${run}`));
  }
  const acquired = name;
  // Once only: an app closed twice must not hand its database to two later apps at once.
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    idleDatabases.push(acquired);
  };
  return { url: databaseUrl(base, acquired), release };
}

export interface StartOptions {
  /** The delivery worker's options, or false to run without it (query counts then see only the request's SQL). */
  worker?: AppOptions['worker'];
  /** Run on this database instead of a fresh one (a second instance on another app's database). */
  databaseUrl?: string;
  /** Changes the fresh database's URL before the app opens it (a test routes it through a proxy). */
  rewriteDatabaseUrl?: (url: string) => string;
  /** Where log lines go (LOG_LEVEL must then be set too: tests log nothing by default). */
  logStream?: AppOptions['logStream'];
  /** SQLite only: work as on PostgreSQL, where no account-change version is known (src/db/database.ts). */
  accountChanges?: AppOptions['accountChanges'];
}

export async function startApp(
  env: Record<string, string> = {},
  plugins: Plugin[] = [],
  options: StartOptions = {},
): Promise<TestApp> {
  const database = TEST_DATABASE_URL && !options.databaseUrl ? await acquirePostgresDatabase(TEST_DATABASE_URL) : null;
  const databaseUrlToUse = options.databaseUrl ?? database?.url ?? 'sqlite::memory:';
  const config = loadConfig({
    DATABASE_URL: options.rewriteDatabaseUrl ? options.rewriteDatabaseUrl(databaseUrlToUse) : databaseUrlToUse,
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    LOG_LEVEL: 'silent',
    // The lowest scrypt cost config allows: hashing is not what these tests are about.
    PASSWORD_HASH_COST: '10',
    // Refused logins answered at once: the delay is tested on its own (test/security/login-across-addresses.test.ts).
    REFUSAL_DELAY_MS: '0',
    // Every in-process request comes from the same (unknown) address: the per-address throttle is tested on its own.
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: '100000',
    // The same for its share of the server's time and its requests at once (tested in test/http/work-budget.test.ts).
    ANONYMOUS_WORK_BUDGET_MS_PER_MINUTE: '100000000',
    REQUESTS_IN_FLIGHT_PER_ADDRESS: '10000',
    // Tests send requests back to back on purpose, each GraphQL one answered twice (the lane's shadow, below), on a
    // loaded machine: an account's handling time is tested on its own too. Its requests at once keep the default.
    WORK_BUDGET_MS_PER_MINUTE: '100000000',
    // Tests send large bodies back to back on purpose; the large-body budget is tested on its own.
    LARGE_BODY_MIB_PER_MINUTE: '100000',
    // Every GraphQL request the prepared lane answers is answered through yoga too, and must match it byte for byte
    // (src/http/lane-shadow.ts): the whole suite is the lane's differential test.
    GRAPHQL_PREPARED_LANE: process.env.GRAPHQL_PREPARED_LANE ?? 'shadow',
    ...env,
  });
  const queries: string[] = [];
  const statements: TestApp['statements'] = [];
  const app = await createApp(config, {
    plugins,
    onQuery: (sql, parameters) => {
      queries.push(sql);
      statements.push({ sql, parameters });
    },
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.worker !== undefined ? { worker: options.worker } : {}),
    ...(options.accountChanges ? { accountChanges: options.accountChanges } : {}),
  });
  // Every REST answer a test receives must be one the OpenAPI description allows (test/helpers/openapi-answers.ts),
  // whether it comes through request()/rest() or through a test's own call of app.fetch: a mismatch fails the test.
  const serve = app.fetch.bind(app);
  app.fetch = async (request, client) => {
    const response = await serve(request, client);
    const { pathname, search } = new URL(request.url);
    if (isRestPath(pathname)) {
      const text = await response.clone().text();
      const { status, headers } = response;
      await assertDocumentedAnswer({ method: request.method, url: pathname + search, status, headers, text });
    }
    return response;
  };

  const request: TestApp['request'] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await app.fetch(new Request(`http://127.0.0.1${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  const testApp: TestApp = {
    app,
    databaseUrl: config.DATABASE_URL,
    queries,
    statements,
    resetQueries: () => {
      queries.length = 0;
      statements.length = 0;
    },
    request,
    rest: (method, path, init) => request(method, `/api/v3${path}`, init),
    gql: (query, variables, token) => request('POST', '/graphql', { body: { query, variables }, token }),
    async account(email = `user-${randomBytes(4).toString('hex')}@example.com`) {
      const password = 'correct horse battery';
      const signup = await request('POST', '/api/v3/signup', { body: { email, password } });
      if (signup.status !== 200) throw new Error(`signup failed: ${signup.text}`);
      const login = await request('POST', '/api/v3/login', { body: { username: email, password } });
      if (login.status !== 200) throw new Error(`login failed: ${login.text}`);
      return { token: login.body.access_token, apiKey: signup.body.apiKey, id: signup.body.id, email };
    },
    async close() {
      await app.close();
      database?.release();
    },
  };
  return testApp;
}
