// One round trip per read where no account-change version is known (docs/decisions.md §14): on PostgreSQL a read is
// answered on the credential last read for its token, and the request's first hot read checks it in its own statement;
// nothing leaves before it is confirmed, and a credential that did not stand is answered exactly as if the account had
// been read first. These tests run on PostgreSQL, and on SQLite told to work as PostgreSQL does (accountChanges:
// 'unknown'), each change made by another instance or by a connection of its own (as the CLI makes them).
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { rotateApiKey } from '../../src/domain/accounts.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { campaignInput, campaignModelData, createLegacyCampaign } from '../helpers/campaigns.js';
import { tempSqliteFile } from '../helpers/temp-database.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function start(env: Record<string, string> = {}, databaseUrl?: string): Promise<TestApp> {
  const sqliteFile = DIALECT === 'sqlite' && !databaseUrl ? `sqlite:${tempSqliteFile('provisional')}` : undefined;
  const url = databaseUrl ?? sqliteFile;
  const app = await startApp(env, [], {
    worker: false,
    accountChanges: 'unknown',
    ...(url ? { databaseUrl: url } : {}),
  });
  apps.push(app);
  return app;
}

/** A connection of its own to the app's database (the CLI's kind of change). */
async function withConnection<T>(app: TestApp, work: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>) {
  const handle = openDatabase(app.databaseUrl);
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

const CAMPAIGNS = '{ campaigns(first: 5) { edges { node { campId } } } }';
const VIEWER_AND_CAMPAIGNS = '{ viewer { accountId apiKeyHint } campaigns(first: 5) { edges { node { campId } } } }';
const carriesCheck = (sql: string) => sql.includes('"$credential"');

async function expectRefused(app: TestApp, token: string) {
  const rest = await app.rest('GET', '/get_campaigns', { token });
  expect(rest.status, rest.text).toBe(401);
  expect(rest.body).toEqual({ detail: 'Could not validate credentials' });
  const gql = await app.gql(CAMPAIGNS, {}, token);
  expect(gql.body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
  expect(gql.body.data).toBeNull();
}

describe('a read on a credential read before', () => {
  test('costs one statement, the credential check riding in it (REST list, GraphQL page, campaign by id)', async () => {
    const app = await start();
    const user = await app.account();
    await createLegacyCampaign(app, user.token, 'c1');
    // The first read of this token reads the account; the next ones take it as read and check it in the statement.
    expect((await app.rest('GET', '/get_campaigns', { token: user.token })).status).toBe(200);

    for (const [name, read] of [
      ['REST get_campaigns', () => app.rest('GET', '/get_campaigns', { token: user.token })],
      ['REST get_campaign', () => app.rest('GET', '/get_campaign?campId=c1', { token: user.token })],
      ['GraphQL campaigns', () => app.gql(CAMPAIGNS, {}, user.token)],
    ] as const) {
      app.resetQueries();
      const answer = await read();
      expect(answer.status, name).toBe(200);
      expect(answer.text, name).toContain('c1');
      // No statement of its own reads the account: the first one (the page) carries the check. (get_campaign's
      // second statement reads the campaign's call figures.)
      expect(
        app.queries.filter((sql) => sql.includes('"accounts"')),
        name,
      ).toHaveLength(1);
      expect(carriesCheck(app.queries[0]!), name).toBe(true);
      if (name !== 'REST get_campaign') expect(app.queries, name).toHaveLength(1);
    }
  });

  test("a named access token's too: its id and digest are checked in the same statement", async () => {
    const app = await start();
    const user = await app.account();
    await createLegacyCampaign(app, user.token, 'c1');
    const created = await app.gql('mutation { accessTokenCreate(input: { name: "agent" }) { token } }', {}, user.token);
    const { token } = created.body.data.accessTokenCreate as { token: string };
    expect((await app.gql(CAMPAIGNS, {}, token)).body.errors).toBeUndefined(); // reads the token and its account
    for (const [name, read] of [
      ['REST get_campaigns', () => app.rest('GET', '/get_campaigns', { token })],
      ['GraphQL campaigns', () => app.gql(CAMPAIGNS, {}, token)],
    ] as const) {
      app.resetQueries();
      const answer = await read();
      expect(answer.status, name).toBe(200);
      expect(answer.text, name).toContain('c1');
      expect(app.queries, name).toHaveLength(1);
      expect(carriesCheck(app.queries[0]!), name).toBe(true);
      expect(app.queries[0], name).toContain('"access_tokens"."token_hash" = ');
    }
  });

  test('with nothing to read the account is read before the answer leaves (two statements)', async () => {
    const app = await start();
    const user = await app.account();
    await app.rest('GET', '/get_campaigns', { token: user.token });
    app.resetQueries();
    expect((await app.rest('GET', '/get_campaigns', { token: user.token })).body).toEqual([]);
    expect(app.queries).toHaveLength(2);
    expect(app.queries.filter((sql) => /from "accounts" where "id" = /.test(sql))).toHaveLength(1);
  });
});

describe('a credential that no longer stands', () => {
  test("another instance's key rotation: the check in the page's own statement refuses the very next read", async () => {
    const first = await start();
    const user = await first.account();
    await createLegacyCampaign(first, user.token, 'c1');
    await first.gql(CAMPAIGNS, {}, user.token);
    const second = await start({}, first.databaseUrl);
    expect(
      (await second.gql('mutation { accountApiKeyRotate { apiKey } }', {}, user.token)).body.errors,
    ).toBeUndefined();
    await expectRefused(first, user.token);
  });

  test('a change through its own connection (the CLI), with or without rows to read', async () => {
    const app = await start();
    const withRows = await app.account();
    const withoutRows = await app.account();
    await createLegacyCampaign(app, withRows.token, 'c1');
    for (const user of [withRows, withoutRows]) await app.gql(CAMPAIGNS, {}, user.token);
    await withConnection(app, async (db) => {
      await rotateApiKey(db, withRows.id);
      await rotateApiKey(db, withoutRows.id);
    });
    await expectRefused(app, withRows.token);
    await expectRefused(app, withoutRows.token);
  });

  test('a mutation on a revoked credential is refused before anything is written, on both doors', async () => {
    const app = await start();
    const user = await app.account();
    await createLegacyCampaign(app, user.token, 'c1');
    await app.gql(CAMPAIGNS, {}, user.token);
    await withConnection(app, (db) => rotateApiKey(db, user.id));
    const created = await app.gql(
      'mutation ($input: CreateCampaignInput!) { createCampaign(input: $input) { campId } }',
      { input: campaignInput() },
      user.token,
    );
    expect(created.body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    const updated = await app.rest('POST', '/update_campaign', {
      token: user.token,
      body: { campId: 'c2', campaignModelData: campaignModelData() },
    });
    expect(updated.status).toBe(401);
    const campaigns = await withConnection(app, (db) =>
      db.selectFrom('campaigns').select('camp_id').where('account_id', '=', user.id).execute(),
    );
    expect(campaigns.map((row) => row.camp_id)).toEqual(['c1']);
  });

  test('a named access token: its account rotated is still served (with the account as it is now); revoked, refused', async () => {
    const app = await start();
    const user = await app.account();
    await createLegacyCampaign(app, user.token, 'c1');
    const created = await app.gql(
      'mutation { accessTokenCreate(input: { name: "agent" }) { token accessToken { tokenId } } }',
      {},
      user.token,
    );
    const { token, accessToken } = created.body.data.accessTokenCreate as {
      token: string;
      accessToken: { tokenId: string };
    };
    const before = await app.gql(VIEWER_AND_CAMPAIGNS, {}, token);
    expect(before.body.errors).toBeUndefined();

    const { apiKey } = await withConnection(app, (db) => rotateApiKey(db, user.id));
    app.resetQueries();
    const after = await app.gql(VIEWER_AND_CAMPAIGNS, {}, token);
    expect(after.body.errors).toBeUndefined();
    expect(after.body.data.viewer.apiKeyHint).toBe(`****${apiKey.slice(-4)}`);
    expect(after.body.data.viewer.apiKeyHint).not.toBe(before.body.data.viewer.apiKeyHint);

    await withConnection(app, (db) =>
      db.deleteFrom('access_tokens').where('token_id', '=', accessToken.tokenId).execute(),
    );
    await expectRefused(app, token);
  });

  test('a cached answer (RESPONSE_CACHE) is not served to a revoked credential', async () => {
    // On PostgreSQL the cache's generation lives in Redis (docs/graphql-api.md "HTTP caching"); a CLI change bumps none.
    const app = await start({ RESPONSE_CACHE: 'true', ...(DIALECT === 'postgres' ? { REDIS_URL } : {}) });
    const user = await app.account();
    await createLegacyCampaign(app, user.token, 'c1');
    expect((await app.gql(CAMPAIGNS, {}, user.token)).body.errors).toBeUndefined();
    app.resetQueries();
    expect((await app.gql(CAMPAIGNS, {}, user.token)).body.errors).toBeUndefined();
    // A hit: no page read; the credential is confirmed by reading the account.
    expect(app.queries.filter((sql) => sql.includes('"campaigns"'))).toEqual([]);
    await withConnection(app, (db) => rotateApiKey(db, user.id));
    const refused = await app.gql(CAMPAIGNS, {}, user.token);
    expect(refused.body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
  });
});
