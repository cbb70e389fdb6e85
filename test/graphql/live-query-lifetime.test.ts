// How a `@live` query's stream lives and ends (docs/live-queries.md): a password change, a revoked named token, or a
// credential that no longer checks out at a re-execution ends it with a final UNAUTHENTICATED result; shutdown ends it
// with a final message; over WebSocket it works as over SSE; across instances the writes of one reach the live
// queries of another through Redis, and after a Redis outage every live query catches up.
import { afterEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { liveTestApps, twoInstances } from '../helpers/live-apps.js';
import { wsDoor, type WsDoor } from '../helpers/ws-client.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
import { hasRedisServer, OwnRedis } from '../helpers/own-redis.js';
import { type Payload, type Subscription, subscribe } from '../events/sse.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const PASSWORD = 'correct horse battery';
const TITLES = 'query @live { campaigns(first: 10) { edges { node { title } } } }';

const doors: WsDoor[] = [];
const start = liveTestApps();

// Registered after liveTestApps': runs before it, so that servers and clients are gone before their apps close.
afterEach(async () => {
  for (const door of doors.splice(0)) await door.close();
});

const live = (t: TestApp, token: string, query = TITLES) => subscribe(t.app, '', token, 0, query);

const titles = (payload: Payload) =>
  (payload.data?.campaigns.edges as Array<{ node: { title: string } }>).map((edge) => edge.node.title);

/** The next payloads until the stream ends: the last one must be its final message. */
async function finalMessage(stream: Subscription): Promise<Payload> {
  let last: Payload | undefined;
  for (;;) {
    try {
      last = (await stream.next(3000)).payload;
    } catch (error) {
      if (stream.ended && last) return last;
      throw error;
    }
  }
}

async function until(check: () => boolean, what: string, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the end of a @live stream', () => {
  it('ends with a final UNAUTHENTICATED result when the password changes', async () => {
    const t = await start();
    const { token } = await t.account();
    const stream = await live(t, token);
    await stream.next(2000);
    const changed = await t.gql(
      `mutation { changePassword(currentPassword: "${PASSWORD}", newPassword: "another password 2") { accessToken } }`,
      {},
      token,
    );
    expect(changed.body.errors, changed.text).toBeUndefined();
    const last = await finalMessage(stream);
    expect(last.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(last.errors?.[0].message).toMatch(/revoked/);
    expect(stream.ended).toBe(true);
  });

  it('ends when its named access token is revoked', async () => {
    const t = await start();
    const { token } = await t.account();
    const created = await t.gql(
      'mutation { accessTokenCreate(input: { name: "dashboard" }) { token accessToken { tokenId } } }',
      {},
      token,
    );
    const { token: named, accessToken } = created.body.data.accessTokenCreate;
    const stream = await live(t, named);
    expect((await stream.next(2000)).payload.errors).toBeUndefined();
    const revoked = await t.gql(
      `mutation { accessTokenRevoke(input: { tokenId: "${accessToken.tokenId}" }) { deletedId } }`,
      {},
      token,
    );
    expect(revoked.body.errors, revoked.text).toBeUndefined();
    const last = await finalMessage(stream);
    expect(last.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('checks the caller again before each re-execution: a password changed on another instance ends it', async () => {
    // No Redis: instance B's change is not told to A's streams; A's next re-execution finds the token revoked.
    const [a, b] = await twoInstances(start);
    const { token, apiKey } = await a.account();
    await connectTelephony(a, token);
    await createLegacyCampaign(a, token, 'alpha', { title: 'Alpha' });
    const stream = await live(a, token);
    await stream.next(2000);
    const changed = await b.gql(
      `mutation { changePassword(currentPassword: "${PASSWORD}", newPassword: "another password 2") { accessToken } }`,
      {},
      token,
    );
    expect(changed.body.errors, changed.text).toBeUndefined();
    // A signed call-status callback on A (no bearer token: the API key names the account) changes what the query read.
    const callback = await sendCallback(a, apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'ringing' });
    expect(callback.status, callback.text).toBe(200);
    const last = await finalMessage(stream);
    expect(last.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(last.errors?.[0].message).toMatch(/no longer checks out/);
  });

  it('ends with a final message when the server shuts down', async () => {
    const t = await start();
    const { token } = await t.account();
    const stream = await live(t, token);
    await stream.next(2000);
    t.app.drain();
    const last = await finalMessage(stream);
    expect(last.errors?.[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(last.errors?.[0].message).toMatch(/shutting down/);
  });
});

describe('@live over WebSocket and across instances', () => {
  it('runs over WebSocket (graphql-transport-ws) as over SSE', async () => {
    const t = await start();
    const door = await wsDoor(t);
    doors.push(door);
    const { token } = await t.account();
    const client = door.client(token);
    const received: Payload[] = [];
    client.subscribe(
      { query: TITLES },
      { next: (value) => void received.push(value as Payload), error: () => {}, complete: () => {} },
    );
    await until(() => received.length === 1, 'the first result');
    expect(titles(received[0]!)).toEqual([]);
    await createLegacyCampaign(t, token, 'alpha', { title: 'Alpha' });
    await until(() => received.length === 2, 'the result after the change', 1000);
    expect(titles(received[1]!)).toEqual(['Alpha']);
  });

  it('with REDIS_URL, a write on instance B reaches a live query on instance A within 1 s', async () => {
    const [a, b] = await twoInstances(start, { REDIS_URL });
    const { token } = await a.account();
    const stream = await live(a, token);
    expect(titles((await stream.next(2000)).payload)).toEqual([]);
    const sent = Date.now();
    await createLegacyCampaign(b, token, 'alpha', { title: 'From B' });
    const { payload, at } = await stream.next(1000);
    expect(titles(payload)).toEqual(['From B']);
    expect(at - sent).toBeLessThan(1000);
  });

  it.runIf(hasRedisServer)(
    'while Redis is away each instance keeps its own live queries current; they catch up when it is back',
    async () => {
      const redis = await OwnRedis.start();
      try {
        const [a, b] = await twoInstances(start, { REDIS_URL: redis.url });
        const { token } = await a.account();
        const stream = await live(a, token);
        await stream.next(2000);
        await redis.kill();
        // A's own write: A's live query hears of it without Redis.
        await createLegacyCampaign(a, token, 'alpha', { title: 'On A' });
        expect(titles((await stream.next(1000)).payload)).toEqual(['On A']);
        // B's write cannot reach A now...
        await createLegacyCampaign(b, token, 'beta', { title: 'On B' });
        await stream.expectNothing(300);
        // ...and once Redis is back, A runs its live queries again.
        await redis.start();
        const { payload } = await stream.next(10_000);
        expect(titles(payload).sort()).toEqual(['On A', 'On B']);
      } finally {
        await redis.kill();
      }
    },
    30_000,
  );
});
