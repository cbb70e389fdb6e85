// GraphQL subscription campaignEvents over SSE (docs/decisions.md §9): what a live subscriber hears after REST and GraphQL
// changes, that it hears only its own account's campaign, that failed changes and unauthenticated callers get
// nothing, and that with REDIS_URL an event committed on one instance reaches a subscriber connected to another.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startApp, TEST_DATABASE_URL, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { EVENTS_CHANNEL } from '../../src/events/pubsub.js';
import { closeAll, type Received, subscribe, type Subscription } from './sse.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

const apps: TestApp[] = [];
const tempFiles: string[] = [];
/** Run after the apps are closed (a proxy their Redis connections go through). */
const cleanups: Array<() => Promise<void>> = [];
const timings: string[] = [];

async function start(env: Record<string, string> = {}, databaseUrl?: string): Promise<TestApp> {
  // The delivery worker plays no part here; without it no timer runs beside the requests.
  const t = await startApp(env, [], { worker: false, ...(databaseUrl ? { databaseUrl } : {}) });
  apps.push(t);
  return t;
}

afterEach(async () => {
  await closeAll();
  for (const t of apps.splice(0).reverse()) await t.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const file of tempFiles.splice(0)) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
});

afterAll(() => {
  if (timings.length > 0) console.info(`campaignEvents delivery: ${timings.join('; ')}`);
});

const restUpdate = (t: TestApp, token: string, campId: string, title: string) =>
  t.rest('POST', '/update_campaign', { token, body: { campId, campaignModelData: campaignModelData({ title }) } });

async function restUpdateOk(t: TestApp, token: string, campId: string, title: string) {
  const reply = await restUpdate(t, token, campId, title);
  expect(reply.status, reply.text).toBe(200);
  return reply;
}

async function gqlOk(t: TestApp, token: string, query: string, variables: Record<string, unknown>) {
  const reply = await t.gql(query, variables, token);
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data;
}

/** The CampaignEvent of a `next` payload that must carry one and no errors. */
function eventOf(received: Received) {
  expect(received.payload.errors).toBeUndefined();
  return received.payload.data.campaignEvents;
}

const PAUSE = 'mutation ($c: String!) { pauseCampaign(campId: $c) { campId } }';
const RESUME = 'mutation ($c: String!) { resumeCampaign(campId: $c) { campId } }';
const COMPLETE = 'mutation ($c: String!) { completeCampaign(campId: $c) { campId } }';
const UPDATE =
  'mutation ($c: String!, $title: String!) { updateCampaign(campId: $c, patch: { title: $title }) { campId } }';

describe('campaignEvents on one instance', () => {
  it('delivers campaign.updated within 1 s of REST update_campaign, with the id the outbox recorded', async () => {
    const t = await start();
    const a = await t.account();
    await restUpdateOk(t, a.token, 'spring', 'Old');

    const events = await subscribe(t.app, 'spring', a.token);
    expect(events.status).toBe(200);
    expect(events.contentType).toMatch(/^text\/event-stream/);

    const sent = Date.now();
    await restUpdateOk(t, a.token, 'spring', 'New');
    const received = await events.next(1000);
    const delay = received.at - sent;
    timings.push(`REST update_campaign → subscriber ${delay} ms`);
    expect(delay).toBeLessThan(1000);

    const event = eventOf(received);
    expect(event).toMatchObject({
      type: 'campaign.updated',
      campId: 'spring',
      data: { campId: 'spring', title: 'New' },
    });
    expect(event.id).toMatch(/^evt_/);
    expect(new Date(event.createdAt).toISOString()).toBe(event.createdAt);
    // The same event (id, type, campaign, account) as the outbox holds for webhooks.
    const row = await t.app.database.db
      .selectFrom('events')
      .select(['type', 'camp_id', 'account_id'])
      .where('event_id', '=', event.id)
      .executeTakeFirst();
    expect(row).toEqual({ type: 'campaign.updated', camp_id: 'spring', account_id: a.id });
    // One change, one event.
    await events.expectNothing(200);
    expect(events.ended).toBe(false);
  });

  it("does not deliver one account's event to another account's subscriber on a campaign with the same campId", async () => {
    const t = await start();
    const a = await t.account();
    const b = await t.account();
    await restUpdateOk(t, a.token, 'shared', 'A original');
    await restUpdateOk(t, b.token, 'shared', 'B original');
    const [toA, toB] = await Promise.all([subscribe(t.app, 'shared', a.token), subscribe(t.app, 'shared', b.token)]);

    await restUpdateOk(t, a.token, 'shared', 'From A');
    const [forA] = await Promise.all([toA.next(1000), toB.expectNothing(500)]);
    expect(eventOf(forA)).toMatchObject({ type: 'campaign.updated', campId: 'shared', data: { title: 'From A' } });

    // B's subscriber was live all along: B's own change reaches it, and not A's subscriber.
    await restUpdateOk(t, b.token, 'shared', 'From B');
    const [forB] = await Promise.all([toB.next(1000), toA.expectNothing(300)]);
    expect(eventOf(forB)).toMatchObject({ type: 'campaign.updated', campId: 'shared', data: { title: 'From B' } });
    expect(eventOf(forB).id).not.toBe(eventOf(forA).id);
  });

  it("answers NOT_FOUND to a subscription on another account's campaign, and streams nothing after it", async () => {
    const t = await start();
    const a = await t.account();
    const b = await t.account();
    await restUpdateOk(t, a.token, 'only-a', 'Mine');

    const denied = await subscribe(t.app, 'only-a', b.token);
    const first = await denied.next(1000);
    expect(first.payload.data ?? null).toBeNull();
    expect(first.payload.errors).toEqual([
      expect.objectContaining({ message: 'Campaign not found', extensions: { code: 'NOT_FOUND' } }),
    ]);

    await restUpdateOk(t, a.token, 'only-a', 'Changed');
    await denied.expectNothing(300);
    expect(denied.ended).toBe(true);
    expect(denied.received).toHaveLength(1);
  });

  it('delivers campaign.status_changed for pause and resume, and campaign.updated for GraphQL updateCampaign', async () => {
    const t = await start();
    const a = await t.account();
    await restUpdateOk(t, a.token, 'spring', 'Spring');
    const events = await subscribe(t.app, 'spring', a.token);

    await gqlOk(t, a.token, PAUSE, { c: 'spring' });
    const paused = eventOf(await events.next(1000));
    expect(paused).toMatchObject({
      type: 'campaign.status_changed',
      campId: 'spring',
      data: { campId: 'spring', status: 'paused', previousStatus: 'active' },
    });

    await gqlOk(t, a.token, RESUME, { c: 'spring' });
    const resumed = eventOf(await events.next(1000));
    expect(resumed).toMatchObject({
      type: 'campaign.status_changed',
      campId: 'spring',
      data: { campId: 'spring', status: 'active', previousStatus: 'paused' },
    });

    await gqlOk(t, a.token, UPDATE, { c: 'spring', title: 'Via GraphQL' });
    const updated = eventOf(await events.next(1000));
    expect(updated).toMatchObject({
      type: 'campaign.updated',
      campId: 'spring',
      data: { campId: 'spring', title: 'Via GraphQL', status: 'active' },
    });
    expect(updated.data).not.toHaveProperty('previousStatus');

    expect(new Set([paused.id, resumed.id, updated.id]).size).toBe(3);
    await events.expectNothing(200);
  });

  it('publishes nothing for a change that fails', async () => {
    const t = await start();
    const a = await t.account();
    await restUpdateOk(t, a.token, 'spring', 'Spring');
    const events = await subscribe(t.app, 'spring', a.token);

    await gqlOk(t, a.token, PAUSE, { c: 'spring' });
    expect(eventOf(await events.next(1000)).data).toMatchObject({ status: 'paused', previousStatus: 'active' });

    // Pausing a paused campaign changes nothing (a retry answers it as it is): the next event heard is the resume.
    const again = await t.gql(PAUSE, { c: 'spring' }, a.token);
    expect(again.body.errors).toBeUndefined();
    await gqlOk(t, a.token, RESUME, { c: 'spring' });
    const resumed = eventOf(await events.next(1000));
    expect(resumed).toMatchObject({ type: 'campaign.status_changed', data: { previousStatus: 'paused' } });

    await gqlOk(t, a.token, COMPLETE, { c: 'spring' });
    expect(eventOf(await events.next(1000)).data).toMatchObject({ status: 'completed', previousStatus: 'active' });

    // A completed campaign cannot change, by GraphQL or by REST, and neither attempt is heard.
    const update = await t.gql(UPDATE, { c: 'spring', title: 'Too late' }, a.token);
    expect(update.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect((await restUpdate(t, a.token, 'spring', 'Too late')).status).toBe(409);
    expect((await t.gql(PAUSE, { c: 'spring' }, a.token)).body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    await events.expectNothing(500);
    expect(events.ended).toBe(false);

    // Nor did the outbox record them: creation, pause, resume, complete.
    const rows = await t.app.database.db
      .selectFrom('events')
      .select('type')
      .where('account_id', '=', a.id)
      .where('camp_id', '=', 'spring')
      .execute();
    expect(rows).toHaveLength(4);
  });

  it('answers UNAUTHENTICATED to a subscription without a valid token, and streams nothing after it', async () => {
    const t = await start();
    const a = await t.account();
    await restUpdateOk(t, a.token, 'spring', 'Spring');

    const anonymous = await subscribe(t.app, 'spring');
    const forged = await subscribe(t.app, 'spring', `${a.token.slice(0, -4)}AAAA`);
    for (const [subscription, message] of [
      [anonymous, 'Not authenticated'],
      [forged, 'Could not validate credentials'],
    ] as const) {
      const first = await subscription.next(1000);
      expect(first.payload.data ?? null).toBeNull();
      expect(first.payload.errors).toEqual([
        expect.objectContaining({ message, extensions: { code: 'UNAUTHENTICATED' } }),
      ]);
    }

    await restUpdateOk(t, a.token, 'spring', 'Changed');
    await Promise.all([anonymous.expectNothing(300), forged.expectNothing(300)]);
    expect(anonymous.received).toHaveLength(1);
    expect(forged.received).toHaveLength(1);
  });
});

describe('campaignEvents across two instances on one database', () => {
  /** Instance A on a database a second instance can share: a fresh PostgreSQL one, or a temporary SQLite file. */
  async function firstInstance(env: Record<string, string>) {
    if (TEST_DATABASE_URL) return start(env);
    const file = join(tmpdir(), `subscriptions-${randomBytes(6).toString('hex')}.db`);
    tempFiles.push(file);
    return start({ ...env, DATABASE_URL: `sqlite:${file}` });
  }

  async function twoInstances(env: Record<string, string>) {
    const first = await firstInstance(env);
    const second = await start(env, first.databaseUrl);
    expect(second.databaseUrl).toBe(first.databaseUrl);
    return [first, second] as const;
  }

  /** Waits until Redis has `count` subscribers (at least, with `atLeast`) on channels whose name contains `text`. */
  async function redisSubscribers(redis: Redis, text: string, count: number, timeoutMs = 2000, atLeast = false) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const channels = (await redis.pubsub('CHANNELS', `*${text}*`)) as string[];
      const counts = channels.length > 0 ? ((await redis.pubsub('NUMSUB', ...channels)) as Array<string | number>) : [];
      const total = counts.filter((_, i) => i % 2 === 1).reduce<number>((sum, n) => sum + Number(n), 0);
      if (total === count || (atLeast && total >= count)) return;
      if (Date.now() > deadline) {
        throw new Error(`Redis has ${total} subscribers on ${JSON.stringify(channels)}, expected ${count}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** The event of the update titled 'Through A', skipping earlier ones; within 1 s of `sent`. */
  async function throughA(stream: Subscription, sent: number): Promise<Received> {
    for (;;) {
      const received = await stream.next(Math.max(1, sent + 1000 - Date.now()));
      if (eventOf(received).data?.title !== 'Original') return received;
    }
  }

  it('with REDIS_URL, delivers an event committed on instance A to a subscriber on instance B within 1 s', async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      const [first, second] = await twoInstances({ REDIS_URL });
      // The token comes from A; both instances sign with the same JWT_SECRET.
      const a = await first.account();
      const campId = `multi-${randomBytes(4).toString('hex')}`;
      await restUpdateOk(first, a.token, campId, 'Original');

      const onB = await subscribe(second.app, campId, a.token);
      const onA = await subscribe(first.app, campId, a.token);
      // Each instance subscribes to the one events channel at start (src/events/pubsub.ts), not per stream.
      await redisSubscribers(redis, EVENTS_CHANNEL, 2, 2000, true);

      const sent = Date.now();
      await restUpdateOk(first, a.token, campId, 'Through A');
      // The first update's event is published after its commit, through Redis: it may reach a stream opened after
      // that commit (it did once in CI). Only the second update's event is timed and checked.
      const [fromB, fromA] = await Promise.all([throughA(onB, sent), throughA(onA, sent)]);
      const delay = fromB.at - sent;
      timings.push(`update on A → subscriber on B via Redis ${delay} ms`);
      expect(delay).toBeLessThan(1000);
      expect(eventOf(fromB)).toMatchObject({
        type: 'campaign.updated',
        campId,
        data: { campId, title: 'Through A' },
      });
      expect(eventOf(fromB)).toEqual(eventOf(fromA));

      // And the other way round, through B to the subscriber on A.
      await restUpdateOk(second, a.token, campId, 'Through B');
      const [backOnA, backOnB] = await Promise.all([onA.next(1000), onB.next(1000)]);
      expect(eventOf(backOnA)).toMatchObject({ type: 'campaign.updated', data: { title: 'Through B' } });
      expect(eventOf(backOnA).id).toBe(eventOf(backOnB).id);
      await Promise.all([onA.expectNothing(200), onB.expectNothing(0)]);

      // Opening and closing streams sends nothing to Redis: no channel of its own.
      await closeAll();
      expect(await redis.pubsub('CHANNELS', `*${campId}*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  /**
   * A TCP proxy to the local Redis that holds the replies of its n-th connection for `holdMs(n)` ms, then sends them
   * in one piece: a Redis server slow to answer a new connection's handshake.
   */
  async function slowHandshakeRedis(holdMs: (n: number) => number): Promise<string> {
    const sockets = new Set<Socket>();
    let connections = 0;
    const server = createServer((client) => {
      const upstream = connect(Number(new URL(REDIS_URL).port), '127.0.0.1');
      sockets.add(client).add(upstream);
      let held: Buffer[] | null = [];
      const release = setTimeout(() => {
        if (held?.length && client.writable) client.write(Buffer.concat(held));
        held = null;
      }, holdMs(connections++));
      client.on('data', (chunk) => upstream.write(chunk));
      upstream.on('data', (chunk: Buffer) => (held ? held.push(chunk) : client.writable && client.write(chunk)));
      const end = () => {
        clearTimeout(release);
        client.destroy();
        upstream.destroy();
      };
      for (const socket of [client, upstream]) socket.on('close', end).on('error', end);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });
    const { port } = server.address() as { port: number };
    return `redis://127.0.0.1:${port}`;
  }

  it('with REDIS_URL, keeps a subscription made while the Redis connections are still being set up', async () => {
    // Instance B's Redis is slow to answer its connections' handshakes, the subscribing connection (its second)
    // more than the other: a subscription can arrive while that connection is still being set up. (A SUBSCRIBE that
    // ioredis sends then makes its ready check fail; it reconnects without the channel, and redis-event-target never
    // subscribes to a topic again while it still has listeners: the subscriber would hear nothing, ever.)
    const slowRedis = await slowHandshakeRedis((n) => (n % 2 === 0 ? 200 : 600));
    const first = await firstInstance({ REDIS_URL });
    const a = await first.account();
    await restUpdateOk(first, a.token, 'early', 'Original');

    const second = await start({ REDIS_URL: slowRedis }, first.databaseUrl);
    const onB = await subscribe(second.app, 'early', a.token, 0);
    expect(onB.status).toBe(200);
    // Long after every handshake is over, a change committed on A reaches the subscriber on B.
    await new Promise((resolve) => setTimeout(resolve, 800));
    await restUpdateOk(first, a.token, 'early', 'Later');
    expect(eventOf(await onB.next(1000))).toMatchObject({ type: 'campaign.updated', data: { title: 'Later' } });
  });

  it('without REDIS_URL, two instances do not share events: only the instance that committed hears it', async () => {
    const [first, second] = await twoInstances({});
    const a = await first.account();
    await restUpdateOk(first, a.token, 'local', 'Original');
    const onB = await subscribe(second.app, 'local', a.token);
    const onA = await subscribe(first.app, 'local', a.token);

    await restUpdateOk(first, a.token, 'local', 'Through A');
    const [fromA] = await Promise.all([onA.next(1000), onB.expectNothing(500)]);
    expect(eventOf(fromA)).toMatchObject({ type: 'campaign.updated', data: { title: 'Through A' } });

    // B's subscriber is live: a change committed on B reaches it (and not A's).
    await restUpdateOk(second, a.token, 'local', 'Through B');
    const [fromB] = await Promise.all([onB.next(1000), onA.expectNothing(300)]);
    expect(eventOf(fromB)).toMatchObject({ type: 'campaign.updated', data: { title: 'Through B' } });
  });
});
