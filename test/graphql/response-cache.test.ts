// The optional response cache (docs/graphql-api.md "HTTP caching", RESPONSE_CACHE=true): a repeated query is answered without
// the database; every write (a mutation of either door, a provider callback, any other write) is visible to the next
// read, on every instance (the generation is shared through Redis); entries are per account and bounded.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { startApp, TEST_DATABASE_URL, type TestApp } from '../helpers/app.js';
import { tempSqliteFile } from '../helpers/temp-database.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.close();
});

async function start(env: Record<string, string> = {}, databaseUrl?: string) {
  const base: Record<string, string> = TEST_DATABASE_URL ? { REDIS_URL } : {};
  const t = await startApp({ RESPONSE_CACHE: 'true', ...base, ...env }, [], {
    worker: false,
    ...(databaseUrl ? { databaseUrl } : {}),
  });
  apps.push(t);
  return t;
}

const TITLE = '{ campaign(campId: "spring") { title } }';
const campaignReads = (t: TestApp) => t.queries.filter((sql) => /from "campaigns"/.test(sql)).length;

async function title(t: TestApp, token: string): Promise<string> {
  const reply = await t.gql(TITLE, {}, token);
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data.campaign.title;
}

describe('RESPONSE_CACHE=true', () => {
  it('answers a repeated query from the cache, and the next read after a mutation from the database', async () => {
    const t = await start();
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'spring', { title: 'First' });
    expect(await title(t, token)).toBe('First');
    t.resetQueries();
    expect(await title(t, token)).toBe('First');
    expect(campaignReads(t)).toBe(0);

    const renamed = await t.gql(
      'mutation { campaignUpdate(input: { campId: "spring", title: "Second" }) { campaign { title } } }',
      {},
      token,
    );
    expect(renamed.body.errors, renamed.text).toBeUndefined();
    expect(await title(t, token)).toBe('Second');
    // The REST door's write too.
    await createLegacyCampaign(t, token, 'spring', { title: 'Third' });
    expect(await title(t, token)).toBe('Third');
  });

  it('sees writes that are not GraphQL mutations: a provider callback, any write to the database', async () => {
    const t = await start();
    const { token, apiKey } = await t.account();
    await connectTelephony(t, token);
    await createLegacyCampaign(t, token, 'spring');
    const count = async () =>
      (await t.gql('{ campaign(campId: "spring") { metrics { totalNumCall } } }', {}, token)).body.data.campaign.metrics
        .totalNumCall;
    expect(await count()).toBe(0);
    expect((await sendCallback(t, apiKey, 'spring', { CallSid: 'CA1', CallStatus: 'ringing' })).status).toBe(200);
    expect(await count()).toBe(1);
    // A write no request made (an operator's, the delivery worker's): the generation moves all the same.
    await t.app.database.db.updateTable('campaigns').set({ title: 'Changed in the database' }).execute();
    expect(await title(t, token)).toBe('Changed in the database');
  });

  it('keeps entries per account (and per token version)', async () => {
    const t = await start();
    const a = await t.account();
    const b = await t.account();
    await createLegacyCampaign(t, a.token, 'spring', { title: 'A' });
    await createLegacyCampaign(t, b.token, 'spring', { title: 'B' });
    expect(await title(t, a.token)).toBe('A');
    expect(await title(t, b.token)).toBe('B');
    expect(await title(t, a.token)).toBe('A');
  });

  it('holds at most RESPONSE_CACHE_MAX_ENTRIES results', async () => {
    const t = await start({ RESPONSE_CACHE_MAX_ENTRIES: '2' });
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'spring');
    const queries = ['title', 'tone', 'script'].map((field) => `{ campaign(campId: "spring") { ${field} } }`);
    for (const query of queries) await t.gql(query, {}, token);
    t.resetQueries();
    await t.gql(queries[2]!, {}, token); // still cached
    expect(campaignReads(t)).toBe(0);
    await t.gql(queries[0]!, {}, token); // evicted: read again
    expect(campaignReads(t)).toBe(1);
  });

  it('holds at most RESPONSE_CACHE_MAX_MB of results, by estimate (src/core/byte-bounded-caches.ts)', async () => {
    // 1 MiB holds five results of 45 KB of JSON (each charged ~180 KB), not eight.
    const t = await start({ RESPONSE_CACHE_MAX_MB: '1' });
    const { token } = await t.account();
    const script = 'x'.repeat(45_000);
    const campIds = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (const campId of campIds) await createLegacyCampaign(t, token, campId, { script });
    const queries = campIds.map((campId) => `{ campaign(campId: "${campId}") { script } }`);
    for (const query of queries) await t.gql(query, {}, token);
    t.resetQueries();
    await t.gql(queries[7]!, {}, token); // the newest: still cached
    await t.gql(queries[6]!, {}, token);
    expect(campaignReads(t)).toBe(0);
    await t.gql(queries[0]!, {}, token); // evicted for bytes (the entry count, 1000, was never reached)
    expect(campaignReads(t)).toBe(1);
  });

  it('a write on one instance is visible to the next read on the other (generation shared through Redis)', async () => {
    const shared: Record<string, string> = TEST_DATABASE_URL
      ? {}
      : { DATABASE_URL: `sqlite:${tempSqliteFile('response-cache')}` };
    const a = await start({ ...shared, REDIS_URL });
    const b = await start({ REDIS_URL }, a.databaseUrl);
    const { token } = await a.account();
    await createLegacyCampaign(a, token, 'spring', { title: 'Before' });
    expect(await title(a, token)).toBe('Before');
    expect(await title(b, token)).toBe('Before');
    b.resetQueries();
    expect(await title(b, token)).toBe('Before');
    expect(campaignReads(b)).toBe(0); // B answers from its cache

    await a.gql(
      'mutation { campaignUpdate(input: { campId: "spring", title: "After" }) { campaign { id } } }',
      {},
      token,
    );
    expect(await title(b, token)).toBe('After');
    expect(await title(a, token)).toBe('After');
  });

  it('is refused on PostgreSQL without REDIS_URL (the instances could not share the generation)', () => {
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
        RESPONSE_CACHE: 'true',
        JWT_SECRET: 'x'.repeat(32),
        SECRETS_KEY: Buffer.alloc(32).toString('base64'),
      }),
    ).toThrow(/RESPONSE_CACHE=.*needs REDIS_URL/);
  });
});
