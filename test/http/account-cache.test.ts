// The account cache (docs/decisions.md §14): on SQLite an authenticated read request reads no account once its account
// is known; on PostgreSQL every request reads it. Either way every change to an account — made by this instance,
// another instance on the same database, or the CLI's own connection — is seen by the very next request, on both doors.
import type SQLite from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { DATA_VERSION_REUSE_MS, sqliteAccountChanges } from '../../src/db/account-changes.js';
import { openDatabase } from '../../src/db/database.js';
import { createAccountCache } from '../../src/domain/account-cache.js';
import { deleteAccountByEmail, rotateApiKey } from '../../src/domain/accounts.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { tempSqliteFile } from '../helpers/temp-database.js';

const apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** An app on a database another instance can open too (a SQLite file; PostgreSQL's fresh database). */
async function sharedApp(): Promise<TestApp> {
  const databaseUrl = DIALECT === 'sqlite' ? `sqlite:${tempSqliteFile('account-cache')}` : undefined;
  const app = await startApp({}, [], { worker: false, ...(databaseUrl ? { databaseUrl } : {}) });
  apps.push(app);
  return app;
}

const CAMPAIGNS = '{ campaigns(first: 1) { edges { node { campId } } } }';
const accountReads = (app: TestApp) => app.queries.filter((sql) => /from "accounts"/.test(sql)).length;

async function expectServed(app: TestApp, token: string) {
  expect((await app.rest('GET', '/get_campaigns', { token })).status).toBe(200);
  expect((await app.gql(CAMPAIGNS, {}, token)).body.errors).toBeUndefined();
}

async function expectRefused(app: TestApp, token: string) {
  const rest = await app.rest('GET', '/get_campaigns', { token });
  expect(rest.status, rest.text).toBe(401);
  expect((await app.gql(CAMPAIGNS, {}, token)).body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
}

describe('the account cache', () => {
  test('a request whose account is known reads no account on SQLite (a write starts over); PostgreSQL reads or checks it', async () => {
    const app = await sharedApp();
    const user = await app.account();
    await expectServed(app, user.token);
    app.resetQueries();
    await expectServed(app, user.token);
    if (DIALECT === 'postgres') {
      // Each request reads its account, or (test/http/provisional-credentials.test.ts) with rows to read checks it
      // in the page's own statement.
      expect(accountReads(app)).toBeGreaterThanOrEqual(2);
      return;
    }
    expect(accountReads(app)).toBe(0);
    // A write (any write of this instance) and the next request reads the account again.
    await createLegacyCampaign(app, user.token, 'c1');
    app.resetQueries();
    await app.rest('GET', '/get_campaigns', { token: user.token });
    expect(accountReads(app)).toBe(1);
  });

  test("another instance's key rotation revokes this instance's cached token on its very next request", async () => {
    const first = await sharedApp();
    const user = await first.account();
    await expectServed(first, user.token);
    await expectServed(first, user.token);
    const second = await startApp({}, [], { databaseUrl: first.databaseUrl, worker: false });
    apps.push(second);
    const rotated = await second.gql('mutation { accountApiKeyRotate { apiKey } }', {}, user.token);
    expect(rotated.body.errors).toBeUndefined();
    await expectRefused(first, user.token);
  });

  // Another process's commit is seen within a millisecond or on the next turn of the event loop
  // (src/db/account-changes.ts): the CLI here shares this process, so its writes are followed by a turn, as a request
  // after another process's write always is (it arrives on a turn of its own).
  test('a change made through its own connection (as the CLI makes them) is seen by the next request', async () => {
    const app = await sharedApp();
    const user = await app.account();
    const other = await app.account();
    await expectServed(app, user.token);
    await expectServed(app, other.token);
    const cli = openDatabase(app.databaseUrl);
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    try {
      await rotateApiKey(cli.db, user.id);
      await nextTurn();
      await expectRefused(app, user.token);
      await expectServed(app, other.token);
      await deleteAccountByEmail(cli.db, other.email);
      await nextTurn();
      await expectRefused(app, other.token);
    } finally {
      await cli.close();
    }
  });
});

describe('its bound and version', () => {
  const account = (id: string) => ({ id, email: `${id}@x`, apiKeyHint: 'ck_…', createdAt: '', tokenVersion: 0 });

  test('keeps at most its bound, starts over when the version changes, reads every time while it is unknown', async () => {
    let version: string | null = '1';
    const reads: string[] = [];
    const read = async (id: string) => {
      reads.push(id);
      return account(id);
    };
    const cache = createAccountCache(read, { version: () => version }, 2);
    expect(await cache.find('a')).toEqual(account('a'));
    await cache.find('b');
    await cache.find('a');
    expect(reads).toEqual(['a', 'b']);
    await cache.find('c');
    expect(cache.size).toBe(2);
    await cache.find('a');
    expect(reads).toEqual(['a', 'b', 'c', 'a']);
    version = '2';
    await cache.find('a');
    expect(reads).toEqual(['a', 'b', 'c', 'a', 'a']);
    expect(cache.size).toBe(1);
    expect(cache.recent('a')).toBeUndefined();
    version = null;
    await cache.find('a');
    await cache.find('a');
    expect(reads.slice(-2)).toEqual(['a', 'a']);
    // What was read last is only a provisional answer, for the caller to confirm (src/authentication.ts).
    expect(cache.recent('a')).toEqual(account('a'));
    expect(cache.recent('b')).toBeUndefined();
    version = '3';
    expect(cache.recent('a')).toBeUndefined();
    await cache.find('a');
    expect(reads.slice(-2)).toEqual(['a', 'a']);
  });

  test('an account read while the version changed is not kept', async () => {
    let version = 1;
    const cache = createAccountCache(
      async (id) => {
        version += 1;
        return account(id);
      },
      { version: () => String(version) },
    );
    await cache.find('a');
    expect(cache.size).toBe(0);
  });
});

describe("SQLite's version of the accounts (issue 55: PRAGMA data_version at most once per turn and 1 ms apart)", () => {
  /** A database whose `PRAGMA data_version` counts its reads and answers what the test sets. */
  function fakeSqlite() {
    const state = { reads: 0, version: 1 };
    const statement = { pluck: () => ({ get: () => ((state.reads += 1), state.version) }) };
    return { state, sqlite: { prepare: () => statement } as unknown as Pick<SQLite.Database, 'prepare'> };
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  test('requests of one turn share a read; a write of this process is seen at once', () => {
    const { state, sqlite } = fakeSqlite();
    let clock = 0;
    const changes = sqliteAccountChanges(sqlite, () => clock);
    const first = changes.version();
    clock += 0.5;
    expect(changes.version()).toBe(first);
    expect(state.reads).toBe(1);
    changes.localWrite();
    expect(changes.version()).not.toBe(first);
    expect(state.reads).toBe(1);
  });

  test("another process's commit is seen within a millisecond in the same turn, and on the next turn", async () => {
    const { state, sqlite } = fakeSqlite();
    let clock = 0;
    const changes = sqliteAccountChanges(sqlite, () => clock);
    const first = changes.version();
    state.version = 2;
    clock += DATA_VERSION_REUSE_MS;
    const later = changes.version();
    expect(later).not.toBe(first);
    expect(state.reads).toBe(2);
    state.version = 3;
    await nextTurn();
    expect(changes.version()).not.toBe(later);
    expect(state.reads).toBe(3);
  });
});
