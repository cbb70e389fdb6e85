// Persisted operations (docs/graphql-api.md "Persisted operations"): Apollo's automatic persisted queries by default, stored in the
// database so that every instance answers a hash another one registered, with bounds; trusted documents only with
// PERSISTED_OPERATIONS=only, from the manifest `npm run schema` writes.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, validate } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import { GRAPHIQL_DEFAULT_QUERY } from '../../src/graphql/server/graphiql.js';
import {
  buildManifest,
  MANIFEST_FILE,
  readmeOperations,
  RETIRED_FILE,
  retiredOperations,
} from '../../src/graphql/server/persisted-manifest.js';
import { sha256 } from '../../src/graphql/server/persisted-operations.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { tempSqliteFile } from '../helpers/temp-database.js';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const RETIRED = retiredOperations(readFileSync(join(ROOT, RETIRED_FILE), 'utf8'));

const apps: TestApp[] = [];
const files: string[] = [];
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.close();
  for (const file of files.splice(0)) rmSync(file, { force: true });
});

async function start(env: Record<string, string> = {}, databaseUrl?: string) {
  const t = await startApp(env, [], { worker: false, ...(databaseUrl ? { databaseUrl } : {}) });
  apps.push(t);
  return t;
}

/** A database two instances can share: a fresh PostgreSQL database, or a SQLite file. */
async function sharedDatabase(env: Record<string, string> = {}) {
  if (DIALECT === 'postgres') return start(env);
  const file = tempSqliteFile('gateway-apq');
  return start({ ...env, DATABASE_URL: `sqlite:${file}` });
}

const QUERY = '{ voices(language: "en") { voiceId name } }';
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

function post(t: TestApp, body: Record<string, unknown>, token?: string) {
  return t.request('POST', '/graphql', { body, ...(token ? { token } : {}) });
}

describe('automatic persisted queries (the default)', () => {
  it('a hash miss is PersistedQueryNotFound; the query with its hash registers it; then the hash alone runs it', async () => {
    const t = await start();
    const { token } = await t.account();
    const hash = sha256(QUERY);

    const miss = await post(t, { extensions: persisted(hash) }, token);
    expect(miss.body.errors?.[0]).toMatchObject({
      message: 'PersistedQueryNotFound',
      extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
    });

    const registered = await post(t, { query: QUERY, extensions: persisted(hash) }, token);
    expect(registered.status, registered.text).toBe(200);
    const voices = registered.body.data.voices;
    expect(voices.length).toBeGreaterThan(0);

    const byHash = await post(t, { extensions: persisted(hash) }, token);
    expect(byHash.status, byHash.text).toBe(200);
    expect(byHash.body.data.voices).toEqual(voices);

    // GET with the hash alone (what a CDN can cache): no document in the URL.
    const params = new URLSearchParams({ extensions: JSON.stringify(persisted(hash)) });
    const get = await t.request('GET', `/graphql?${params}`, { token });
    expect(get.status, get.text).toBe(200);
    expect(get.body.data.voices).toEqual(voices);
  });

  it('a hash that is not the SHA-256 of the query is refused, and nothing is stored', async () => {
    const t = await start();
    const { token } = await t.account();
    const wrong = sha256('something else');
    const reply = await post(t, { query: QUERY, extensions: persisted(wrong) }, token);
    expect(reply.body.errors?.[0].extensions.code).toBe('PERSISTED_QUERY_MISMATCH');
    expect(await t.app.database.db.selectFrom('persisted_queries').selectAll().execute()).toEqual([]);
  });

  it('another instance on the same database answers a hash the first registered', async () => {
    const first = await sharedDatabase();
    const second = await start({}, first.databaseUrl);
    const { token } = await first.account();
    const hash = sha256(QUERY);
    expect((await post(first, { query: QUERY, extensions: persisted(hash) }, token)).status).toBe(200);
    const reply = await post(second, { extensions: persisted(hash) }, token);
    expect(reply.body.errors, reply.text).toBeUndefined();
    expect(reply.body.data.voices.length).toBeGreaterThan(0);
  });

  it('keeps at most APQ_MAX_QUERIES documents, the newest', async () => {
    const t = await start({ APQ_MAX_QUERIES: '3' });
    const { token } = await t.account();
    const queries = [1, 2, 3, 4, 5].map((n) => `{ voices(language: "en") { voiceId${' name'.repeat(n)} } }`);
    for (const query of queries) {
      const reply = await post(t, { query, extensions: persisted(sha256(query)) }, token);
      expect(reply.status, reply.text).toBe(200);
    }
    const stored = await t.app.database.db.selectFrom('persisted_queries').select('query').execute();
    expect(stored.map((row) => row.query).sort()).toEqual(queries.slice(2).sort());
  });

  it('does not store a document over the size bound (it still runs)', async () => {
    const t = await start();
    const { token } = await t.account();
    const query = `{ voices(language: "en") { voiceId } }${' '.repeat(100_001)}`;
    const reply = await post(t, { query, extensions: persisted(sha256(query)) }, token);
    expect(reply.status, reply.text).toBe(200);
    expect(await t.app.database.db.selectFrom('persisted_queries').selectAll().execute()).toEqual([]);
  });

  it('is off with PERSISTED_OPERATIONS=off: the hash alone is not a request', async () => {
    const t = await start({ PERSISTED_OPERATIONS: 'off' });
    const reply = await post(t, { extensions: persisted(sha256(QUERY)) });
    expect(reply.body.data).toBeUndefined();
    expect(reply.text).toMatch(/Must provide query string/);
  });
});

describe('trusted documents (PERSISTED_OPERATIONS=only)', () => {
  it('runs the documents of the manifest, by hash or as text, and refuses any other', async () => {
    const t = await start({ PERSISTED_OPERATIONS: 'only' });
    // The demo account GraphiQL's Login uses (signed up by the REST door, which runs in process, not by document).
    const demo = await t.rest('POST', '/signup', { body: { email: 'demo@example.com', password: 'demo-password' } });
    expect(demo.status, demo.text).toBe(200);
    const operations = readmeOperations(README);
    const signUp = operations[0]!;
    expect(signUp).toMatch(/accountSignUp/);

    // A README operation by its hash.
    const byHash = await post(t, { extensions: persisted(sha256(signUp)) });
    expect(byHash.status, byHash.text).toBe(200);
    expect(byHash.body.data.accountSignUp.apiKey).toMatch(/^ck_/);

    // GraphiQL's default document as GraphiQL sends it: as text, with an operation name.
    const login = await post(t, { query: GRAPHIQL_DEFAULT_QUERY, operationName: 'Login' });
    expect(login.body.errors, login.text).toBeUndefined();
    expect(login.body.data.accountLogin.accessToken).toBeTruthy();

    // Anything else: refused before it is parsed.
    const other = await post(t, { query: '{ viewer { email } }' });
    expect(other.status).toBe(400);
    expect(other.body.errors?.[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
    const unknown = await post(t, { extensions: persisted(sha256('{ viewer { email } }')) });
    expect(unknown.body.errors?.[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses to start with a manifest whose key is not the hash of its document', async () => {
    const file = join(tmpdir(), `manifest-${randomBytes(4).toString('hex')}.json`);
    files.push(file);
    writeFileSync(file, JSON.stringify({ [sha256('{ a }')]: '{ b }' }));
    await expect(start({ PERSISTED_OPERATIONS: 'only', PERSISTED_OPERATIONS_MANIFEST: file })).rejects.toThrow(
      /not the SHA-256 of its document/,
    );
    await expect(
      start({ PERSISTED_OPERATIONS: 'only', PERSISTED_OPERATIONS_MANIFEST: `${file}.missing` }),
    ).rejects.toThrow(/cannot be read \(ENOENT\)/);
  });

  it(`${MANIFEST_FILE} is what npm run schema writes from GraphiQL's default document, the README and the retired documents`, () => {
    const committed = JSON.parse(readFileSync(join(ROOT, MANIFEST_FILE), 'utf8'));
    expect(committed).toEqual(buildManifest(README, RETIRED));
    expect(Object.values(committed)).toContain(GRAPHIQL_DEFAULT_QUERY);
    for (const document of RETIRED) expect(Object.values(committed)).toContain(document);
  });

  it('the retired documents (kept for one release) still validate against the public schema, and run', async () => {
    expect(RETIRED.length).toBeGreaterThan(0);
    for (const document of RETIRED) expect(validate(schema, parse(document)), document).toEqual([]);
    // GraphiQL's default document of the last release, as a returning user's tab still holds it.
    const t = await start({ PERSISTED_OPERATIONS: 'only' });
    const signedUp = await t.rest('POST', '/signup', {
      body: { email: 'demo@example.com', password: 'demo-password' },
    });
    expect(signedUp.status, signedUp.text).toBe(200);
    const oldDefault = RETIRED.find((document) => document.includes('mutation Login'));
    expect(oldDefault).toBeDefined();
    const login = await post(t, { query: oldDefault, operationName: 'Login' });
    expect(login.body.errors, login.text).toBeUndefined();
    expect(login.body.data.login.accessToken).toBeTruthy();
  });
});
