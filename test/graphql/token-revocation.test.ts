// Rotating the API key or changing the password revokes every access token issued before, on both doors, and ends
// the live streams opened with them; a stream also ends when its token expires, and when the server drains.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { closeAll, subscribe } from '../events/sse.js';

let t: TestApp;
let user: Awaited<ReturnType<TestApp['account']>>;

beforeEach(async () => {
  // No delivery worker: these tests move fake timers an hour ahead, and its poll (every 500 ms, a query each) would be
  // run 7 200 times on the way — seconds on PostgreSQL, past the test's timeout on a loaded machine.
  t = await startApp({}, [], { worker: false });
  user = await t.account();
  await createLegacyCampaign(t, user.token, 'spring');
});
afterEach(async () => {
  vi.useRealTimers();
  await closeAll();
  await t.close();
});

const CAMPAIGNS = '{ campaigns(first: 1) { edges { node { campId } } } }';

async function expectRevoked(token: string) {
  const rest = await t.rest('GET', '/get_campaigns', { token });
  expect(rest.status, rest.text).toBe(401);
  expect(rest.body).toEqual({ detail: 'Could not validate credentials' });
  const graphql = await t.gql(CAMPAIGNS, {}, token);
  expect(graphql.body.errors![0].extensions.code).toBe('UNAUTHENTICATED');
}

async function login(password = 'correct horse battery') {
  const reply = await t.rest('POST', '/login', { body: { username: user.email, password } });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.access_token as string;
}

describe('revocation', () => {
  test('rotateApiKey revokes earlier tokens (even cached ones) on both doors; a new login works', async () => {
    const other = await login();
    expect((await t.rest('GET', '/get_campaigns', { token: other })).status).toBe(200);
    const rotated = await t.gql('mutation { rotateApiKey { apiKey } }', {}, user.token);
    expect(rotated.body.errors).toBeUndefined();
    await expectRevoked(user.token);
    await expectRevoked(other);
    const fresh = await login();
    expect((await t.rest('GET', '/get_campaigns', { token: fresh })).status).toBe(200);
    expect((await t.gql(CAMPAIGNS, {}, fresh)).body.data.campaigns.edges).toHaveLength(1);
  });

  test('changePassword checks the current password, revokes earlier tokens and answers a working new one', async () => {
    const CHANGE = `mutation ($c: String!, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) { accessToken } }`;
    const wrong = await t.gql(CHANGE, { c: 'not my password', n: 'a brand new password' }, user.token);
    expect(wrong.body.errors![0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await t.rest('GET', '/get_campaigns', { token: user.token })).status).toBe(200);
    const short = await t.gql(CHANGE, { c: 'correct horse battery', n: 'short' }, user.token);
    expect(short.body.errors![0].extensions.code).toBe('BAD_USER_INPUT');

    const changed = await t.gql(CHANGE, { c: 'correct horse battery', n: 'a brand new password' }, user.token);
    expect(changed.body.errors).toBeUndefined();
    await expectRevoked(user.token);
    const token = changed.body.data.changePassword.accessToken as string;
    expect((await t.rest('GET', '/get_campaigns', { token })).status).toBe(200);
    expect(
      (await t.rest('POST', '/login', { body: { username: user.email, password: 'correct horse battery' } })).status,
    ).toBe(401);
    await login('a brand new password');
  });

  test("another account's tokens keep working", async () => {
    const other = await t.account();
    await t.gql('mutation { rotateApiKey { apiKey } }', {}, user.token);
    expect((await t.rest('GET', '/get_campaigns', { token: other.token })).status).toBe(200);
  });
});

describe('live streams end', () => {
  test('when the API key is rotated: at once, with event: complete', async () => {
    const stream = await subscribe(t.app, 'spring', user.token);
    expect(stream.status).toBe(200);
    await t.gql('mutation { rotateApiKey { apiKey } }', {}, user.token);
    await vi.waitFor(() => expect(stream.ended).toBe(true), { timeout: 2000 });
  });

  test('when the token expires', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'], shouldAdvanceTime: true });
    const stream = await subscribe(t.app, 'spring', user.token);
    expect(stream.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(3600 * 1000 + 1000);
    await vi.waitFor(() => expect(stream.ended).toBe(true), { timeout: 2000 });
  });

  test('when the revocation happened on another instance (checked periodically)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval'], shouldAdvanceTime: true });
    const stream = await subscribe(t.app, 'spring', user.token);
    // The same database, changed behind this instance's back: only the periodic check can tell.
    await t.app.database.db.updateTable('accounts').set({ token_version: 7 }).where('id', '=', user.id).execute();
    expect(stream.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    await vi.waitFor(() => expect(stream.ended).toBe(true), { timeout: 2000 });
  });

  test('when the server drains, and a stream opened while draining ends at once', async () => {
    const stream = await subscribe(t.app, 'spring', user.token);
    t.app.drain();
    await vi.waitFor(() => expect(stream.ended).toBe(true), { timeout: 2000 });
    const late = await subscribe(t.app, 'spring', user.token);
    await vi.waitFor(() => expect(late.ended).toBe(true), { timeout: 2000 });
  });
});
