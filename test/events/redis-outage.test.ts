// Redis away, nobody waits (docs/decisions.md §15): a Redis of the test's own (a redis-server process on a free port)
// is killed under an app; reads and writes keep their latency, a stream can still be opened, the events committed
// meanwhile reach the subscribers once Redis is back (on PostgreSQL across two instances), /readyz names what is
// degraded, and the log has one line per change of state, without stacks.
import { afterEach, describe, expect, test } from 'vitest';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { eventually } from '../helpers/eventually.js';
import { logCapture } from '../helpers/log-lines.js';
import { hasRedisServer, OwnRedis } from '../helpers/own-redis.js';
import { EVENTS_CHANNEL } from '../../src/events/pubsub.js';
import { closeAll, subscribe } from './sse.js';

const apps: TestApp[] = [];
let redis: OwnRedis | null = null;
afterEach(async () => {
  await closeAll();
  for (const app of apps.splice(0).reverse()) await app.close();
  await redis?.kill();
  redis = null;
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function timedReads(app: TestApp, token: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const [rest, graphql] = await Promise.all([
      app.rest('GET', '/get_campaigns', { token }),
      app.gql('{ campaigns(first: 5) { edges { node { campId } } } }', {}, token),
    ]);
    times.push(performance.now() - started);
    expect(rest.status).toBe(200);
    expect(graphql.body.errors).toBeUndefined();
  }
  return times;
}

const UPDATE =
  'mutation ($c: String!, $t: String!) { campaignUpdate(input: { campId: $c, title: $t }) { campaign { title } } }';

/** An app (logging at info) on a Redis of the test's own, with an account and its campaign `spring`. */
async function appOnOwnRedis() {
  const own = await OwnRedis.start();
  redis = own;
  const logs = logCapture();
  const app = await startApp({ REDIS_URL: own.url, LOG_LEVEL: 'info' }, [], { logStream: logs.stream });
  apps.push(app);
  const user = await app.account();
  await createLegacyCampaign(app, user.token, 'spring');
  return { own, logs, app, user };
}

describe.runIf(hasRedisServer)('Redis away', () => {
  test('requests keep their latency, a stream opens, events arrive, /readyz and the log tell it once', async () => {
    const { own, logs, app, user } = await appOnOwnRedis();
    const stream = await subscribe(app.app, 'spring', user.token);

    const before = median(await timedReads(app, user.token, 15));
    await own.kill();
    // From the first moment on: no request waits for Redis.
    const during = median(await timedReads(app, user.token, 15));
    expect(during, `median ${during} ms with Redis away, ${before} ms before`).toBeLessThan(before + 10);
    const started = performance.now();
    const written = await app.gql(UPDATE, { c: 'spring', t: 'during the outage' }, user.token);
    expect(written.body.errors).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(500);
    // The event of this instance reaches its subscriber at once.
    expect((await stream.next(2000)).payload.data.campaignEvents.type).toBe('campaign.updated');

    // A stream can be opened while Redis is away, and is answered at once.
    const opening = performance.now();
    const late = await subscribe(app.app, 'spring', user.token);
    expect(late.status).toBe(200);
    expect(performance.now() - opening).toBeLessThan(1000);

    await eventually(async () => {
      const ready = await app.request('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', degraded: ['redis'] });
    });

    await own.start();
    await eventually(
      async () => expect((await app.request('GET', '/readyz')).body).toEqual({ status: 'ready' }),
      10_000,
    );
    // Nothing twice: the event this stream had is not replayed to it.
    await stream.expectNothing(300);
    const after = await app.gql(UPDATE, { c: 'spring', t: 'after' }, user.token);
    expect(after.body.errors).toBeUndefined();
    expect((await stream.next(2000)).payload.data.campaignEvents.data.title).toBe('after');

    const states = logs.lines.filter((line) => /^Redis (unavailable|available again)/.test(line.msg));
    expect(states.map((line) => [line.level, line.msg.split(':')[0]])).toEqual([
      [40, 'Redis unavailable'],
      [30, 'Redis available again'],
    ]);
    expect(logs.lines.filter((line) => line.level >= 40 && line.msg !== states[0]?.msg)).toEqual([]);
    expect(logs.lines.some((line) => line.err?.stack)).toBe(false);
  }, 40_000);

  test('an instance started while Redis is away starts degraded, serves, and joins Redis when it answers', async () => {
    const own = await OwnRedis.start();
    redis = own;
    await own.kill();
    const logs = logCapture();
    const started = performance.now();
    const app = await startApp({ REDIS_URL: own.url, LOG_LEVEL: 'info' }, [], { logStream: logs.stream });
    apps.push(app);
    expect(performance.now() - started).toBeLessThan(10_000);
    // One warning naming the Redis it tried (a password would be masked), without a stack; /readyz says degraded.
    const warned = logs.lines.filter((line) => line.level >= 40);
    expect(warned.map((line) => line.msg.split(':')[0])).toEqual(['Redis does not answer at start']);
    expect(warned[0]).toMatchObject({ redis: own.url });
    expect(warned[0]?.err).toBeUndefined();
    expect((await app.request('GET', '/readyz')).body).toEqual({ status: 'ready', degraded: ['redis'] });
    const user = await app.account();
    await createLegacyCampaign(app, user.token, 'spring');
    const stream = await subscribe(app.app, 'spring', user.token);
    const during = await app.gql(UPDATE, { c: 'spring', t: 'before Redis' }, user.token);
    expect(during.body.errors).toBeUndefined();
    expect((await stream.next(2000)).payload.data.campaignEvents.data.title).toBe('before Redis');

    await own.start();
    await eventually(
      async () => expect((await app.request('GET', '/readyz')).body).toEqual({ status: 'ready' }),
      10_000,
    );
    expect(logs.lines.filter((line) => /^Redis available again/.test(line.msg))).toHaveLength(1);
    // Subscribed once it answered: every event another instance publishes on Redis reaches this one.
    const { Redis } = await import('ioredis');
    const other = new Redis(own.url);
    try {
      await eventually(async () => expect(await other.pubsub('NUMSUB', EVENTS_CHANNEL)).toEqual([EVENTS_CHANNEL, 1]));
    } finally {
      other.disconnect();
    }
  }, 40_000);

  test('a Redis that hangs (SIGSTOP) costs one command timeout, not one per request', async () => {
    const { own, logs, app, user } = await appOnOwnRedis();
    const before = median(await timedReads(app, user.token, 15));
    own.pause();
    try {
      const times = await timedReads(app, user.token, 15);
      // The first request waits for the command timeout (100 ms); the next ones do not ask Redis.
      expect(median(times), `${times.join(', ')} ms with Redis hanging, ${before} ms before`).toBeLessThan(before + 10);
      const written = await app.gql(UPDATE, { c: 'spring', t: 'while it hangs' }, user.token);
      expect(written.body.errors).toBeUndefined();
    } finally {
      own.resume();
    }
    await eventually(async () => expect((await app.request('GET', '/readyz')).body).toEqual({ status: 'ready' }));
    const states = logs.lines.filter((line) => /^Redis (unavailable|available again)/.test(line.msg));
    expect(states.map((line) => line.msg.split(':')[0])).toEqual(['Redis unavailable', 'Redis available again']);
  }, 30_000);

  test.runIf(DIALECT === 'postgres')(
    "another instance's events committed while Redis was away reach this instance's subscribers once it is back",
    async () => {
      redis = await OwnRedis.start();
      const first = await startApp({ REDIS_URL: redis.url }, [], { worker: false });
      apps.push(first);
      const second = await startApp({ REDIS_URL: redis.url }, [], { databaseUrl: first.databaseUrl, worker: false });
      apps.push(second);
      const user = await first.account();
      await createLegacyCampaign(first, user.token, 'spring');
      const stream = await subscribe(second.app, 'spring', user.token);

      await redis.kill();
      for (const title of ['one', 'two', 'three']) {
        const reply = await first.gql(UPDATE, { c: 'spring', t: title }, user.token);
        expect(reply.body.errors).toBeUndefined();
      }
      await stream.expectNothing(300);
      await redis.start();
      const titles: string[] = [];
      for (let i = 0; i < 3; i++) titles.push((await stream.next(10_000)).payload.data.campaignEvents.data.title);
      expect(titles).toEqual(['one', 'two', 'three']);
      await stream.expectNothing(300);
    },
    40_000,
  );
});
