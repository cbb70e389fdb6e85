// HTTP caching of GraphQL GET queries (docs/graphql-api.md "HTTP caching"): an ETag on each JSON answer to a GET, 304 for a
// matching If-None-Match, private and varying by Authorization; a write shows in the next read (a new ETag).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
  ({ token } = await t.account());
  await createLegacyCampaign(t, token, 'spring');
});
afterAll(() => t.close());

const QUERY = `/graphql?${new URLSearchParams({ query: '{ campaign(campId: "spring") { title } }' })}`;

const get = (headers: Record<string, string> = {}) => t.request('GET', QUERY, { token, headers });

it('answers a GET query with an ETag, private and varying by Authorization', async () => {
  const reply = await get();
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  expect(reply.headers.get('cache-control')).toBe('private, no-cache');
  expect(reply.headers.get('vary')).toMatch(/Authorization/);
  expect(reply.body.data.campaign.title).toBeTruthy();
});

it('answers 304 with no body when If-None-Match holds the ETag (plain, weak or in a list)', async () => {
  const etag = (await get()).headers.get('etag')!;
  for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const reply = await get({ 'if-none-match': ifNoneMatch });
    expect(reply.status, ifNoneMatch).toBe(304);
    expect(reply.text).toBe('');
    expect(reply.headers.get('etag')).toBe(etag);
  }
  expect((await get({ 'if-none-match': '"other"' })).status).toBe(200);
});

it('a write shows in the next read: the old ETag no longer matches', async () => {
  const before = await get();
  const etag = before.headers.get('etag')!;
  const renamed = await t.gql(
    'mutation { campaignUpdate(input: { campId: "spring", title: "Renamed" }) { campaign { title } } }',
    {},
    token,
  );
  expect(renamed.body.errors, renamed.text).toBeUndefined();
  const after = await get({ 'if-none-match': etag });
  expect(after.status).toBe(200);
  expect(after.body.data.campaign.title).toBe('Renamed');
  expect(after.headers.get('etag')).not.toBe(etag);
});

it('another account gets its own answer, never the 304 of someone else’s ETag', async () => {
  const etag = (await get()).headers.get('etag')!;
  const other = await t.account();
  const reply = await t.request('GET', QUERY, { token: other.token, headers: { 'if-none-match': etag } });
  expect(reply.status).toBe(200);
  expect(reply.body.data.campaign).toBeNull();
});

it('leaves POST answers, streams and GraphiQL alone', async () => {
  const post = await t.gql('{ campaign(campId: "spring") { title } }', {}, token);
  expect(post.headers.get('etag')).toBeNull();
  const page = await t.request('GET', '/graphql', { headers: { accept: 'text/html' } });
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  expect(page.headers.get('etag')).toBeNull();
});
