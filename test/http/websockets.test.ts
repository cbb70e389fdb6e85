// GraphQL over WebSocket (docs/graphql-api.md "Subscriptions over WebSocket"): graphql-transport-ws on /graphql beside SSE, the
// token in connection_init, the connection closed when the token is revoked or expires and at shutdown, and limits
// on connections per account and operations per connection.
import { randomBytes } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import { MAX_CONNECTIONS_PER_ACCOUNT, MAX_SUBSCRIPTIONS_PER_CONNECTION } from '../../src/http/websockets.js';
import { startApp, TEST_DATABASE_URL, type TestApp } from '../helpers/app.js';
import { tempSqliteFile } from '../helpers/temp-database.js';
import { hasRedisServer, OwnRedis } from '../helpers/own-redis.js';
import { liveStreamsOpen } from '../helpers/live-streams.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
import { createLegacyCampaign } from '../helpers/campaigns.js';

let t: TestApp;
let url: string;
const clients: Client[] = [];
const running: Array<{ app: TestApp; http: HttpServer }> = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.dispose();
  for (const { app, http } of running.splice(0).reverse()) {
    http.server.closeAllConnections();
    await new Promise<void>((resolve) => http.server.close(() => resolve()));
    await app.close();
  }
});

/** An instance listening on a free port; `databaseUrl` to share another instance's database. */
async function instance(env: Record<string, string> = {}, databaseUrl?: string) {
  const app = await startApp(env, [], { worker: false, ...(databaseUrl ? { databaseUrl } : {}) });
  const http = createHttpServer(app.app);
  running.push({ app, http });
  const { port } = await listen(http.server, 0, '127.0.0.1');
  return { app, url: `ws://127.0.0.1:${port}/graphql` };
}

async function start(env: Record<string, string> = {}) {
  ({ app: t, url } = await instance(env));
}

/** A graphql-ws client; `closed` resolves with the close event the server sent. */
function connect(token?: string, to = url) {
  let closed!: (event: { code: number; reason: string }) => void;
  const closedWith = new Promise<{ code: number; reason: string }>((resolve) => (closed = resolve));
  const client = createClient({
    url: to,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    // The close events the tests expect are read from `closed` below; not printed.
    onNonLazyError: () => undefined,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    on: { closed: (event) => closed(event as { code: number; reason: string }) },
  });
  clients.push(client);
  return { client, closedWith };
}

/** Subscribes and collects what arrives; `error` holds an error the server sent for this operation. */
function subscribe(client: Client, query: string) {
  const received: any[] = [];
  const state: { error?: unknown; done: boolean } = { done: false };
  client.subscribe(
    { query },
    {
      next: (value) => received.push(value),
      error: (error) => {
        state.error = error;
      },
      complete: () => {
        state.done = true;
      },
    },
  );
  return { received, state };
}

const EVENTS = 'subscription { campaignEvents(campId: "spring") { eventType data } }';

async function until(check: () => boolean, what: string, ms = 3000, poll?: () => Promise<void>) {
  const deadline = Date.now() + ms;
  for (;;) {
    await poll?.();
    if (check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('subscriptions over WebSocket', () => {
  it('takes a named access token; a read-only one runs queries but no mutation', async () => {
    await start();
    const { token } = await t.account();
    const CREATE = 'mutation ($i: AccessTokenCreateInput!) { accessTokenCreate(input: $i) { token } }';
    const named = async (input: Record<string, unknown>) =>
      (await t.gql(CREATE, { i: input }, token)).body.data.accessTokenCreate.token as string;
    const reader = await named({ name: 'ws reader', readOnly: true });
    const { client } = connect(reader);
    const query = subscribe(client, '{ viewer { email } }');
    await until(() => query.state.done, 'the query');
    expect(query.received[0].data.viewer.email).toMatch(/@example\.com$/);
    const write = subscribe(
      client,
      'mutation { webhookCreate(input: { url: "https://example.com/h" }) { webhook { id } } }',
    );
    await until(() => write.state.done || write.state.error !== undefined, 'the refused mutation');
    expect(write.received[0]?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('delivers a campaign event to a subscriber authenticated in connection_init', async () => {
    await start();
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'spring');
    const { client } = connect(token);
    const { received } = subscribe(client, EVENTS);
    // Wait until the subscription is live: the connection's stream and its own (graphql-ws runs a connection's
    // operations side by side: a query sent after it may well be answered before it is set up).
    await liveStreamsOpen(t, 2);
    const paused = await t.gql(
      'mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }',
      {},
      token,
    );
    expect(paused.body.errors, paused.text).toBeUndefined();
    await until(() => received.length > 0, 'the event');
    expect(received[0].data.campaignEvents.eventType).toBe('CAMPAIGN_STATUS_CHANGED');
  });

  it('closes a connection without a valid token (4403), and one whose token is revoked', async () => {
    await start();
    const none = connect();
    expect((await none.closedWith).code).toBe(4403);
    const bad = connect('not-a-token');
    expect((await bad.closedWith).code).toBe(4403);

    const { token } = await t.account();
    const { client, closedWith } = connect(token);
    const ready = subscribe(client, '{ viewer { email } }');
    await until(() => ready.state.done, 'the first query');
    const rotated = await t.gql('mutation { rotateApiKey { apiKey } }', {}, token);
    expect(rotated.body.errors, rotated.text).toBeUndefined();
    const event = await closedWith;
    expect(event.code).toBe(4403);
    expect(event.reason).toMatch(/expired or was revoked/);
  });

  it('closes every connection at shutdown (1001)', async () => {
    await start();
    const { token } = await t.account();
    const { client, closedWith } = connect(token);
    const ready = subscribe(client, '{ viewer { email } }');
    await until(() => ready.state.done, 'the first query');
    t.app.drain();
    expect((await closedWith).code).toBe(1001);
  });

  it(`allows ${MAX_CONNECTIONS_PER_ACCOUNT} connections per account and ${MAX_SUBSCRIPTIONS_PER_CONNECTION} operations per connection`, async () => {
    await start();
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'spring');
    const open = Array.from({ length: MAX_CONNECTIONS_PER_ACCOUNT }, () => connect(token));
    for (const { client } of open) {
      const ready = subscribe(client, '{ viewer { email } }');
      await until(() => ready.state.done, 'a query');
    }
    const extra = connect(token);
    expect((await extra.closedWith).code).toBe(4429);

    const [{ client }] = open as [(typeof open)[number]];
    const subscriptions = Array.from({ length: MAX_SUBSCRIPTIONS_PER_CONNECTION + 1 }, () => subscribe(client, EVENTS));
    await until(() => subscriptions.some((s) => s.state.error !== undefined), 'the refusal');
    const refused = subscriptions.filter((s) => s.state.error !== undefined);
    expect(refused).toHaveLength(1);
    expect(JSON.stringify(refused[0]!.state.error)).toMatch(/At most 20 operations/);
  });

  it('with REDIS_URL, an event committed on instance A reaches a WebSocket subscriber on instance B', async () => {
    const shared: Record<string, string> = TEST_DATABASE_URL
      ? {}
      : { DATABASE_URL: `sqlite:${tempSqliteFile('websockets')}` };
    const a = await instance({ ...shared, REDIS_URL });
    const b = await instance({ REDIS_URL }, a.app.databaseUrl);
    const { token } = await a.app.account();
    const campId = `ws-${randomBytes(4).toString('hex')}`;
    await createLegacyCampaign(a.app, token, campId);

    const { client } = connect(token, b.url);
    const { received } = subscribe(client, `subscription { campaignEvents(campId: "${campId}") { eventType } }`);
    // The subscription on B is in place once B hands it an event: A changes the campaign until one arrives (each
    // instance subscribes to Redis's one events channel at start; a stream adds nothing there).
    let title = 0;
    await until(
      () => received.length > 0,
      'the event on B',
      5000,
      async () => {
        if (received.length > 0) return;
        const updated = await a.app.gql(
          `mutation { campaignUpdate(input: { campId: "${campId}", title: "t${(title += 1)}" }) { campaign { id } } }`,
          {},
          token,
        );
        expect(updated.body.errors, updated.text).toBeUndefined();
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
    );
    expect(received[0].data.campaignEvents.eventType).toBe('CAMPAIGN_UPDATED');
  });
});

describe.runIf(hasRedisServer && TEST_DATABASE_URL)('WebSocket subscribers and a Redis outage', () => {
  let redis: OwnRedis | null = null;
  afterEach(async () => {
    await redis?.kill();
    redis = null;
  });

  it("receive another instance's events committed while Redis was away once it is back", async () => {
    redis = await OwnRedis.start();
    const a = await instance({ REDIS_URL: redis.url });
    const b = await instance({ REDIS_URL: redis.url }, a.app.databaseUrl);
    const { token } = await a.app.account();
    await createLegacyCampaign(a.app, token, 'spring');
    const { client } = connect(token, b.url);
    const { received } = subscribe(client, 'subscription { campaignEvents(campId: "spring") { data } }');
    const update = async (title: string) => {
      const reply = await a.app.gql(
        `mutation { campaignUpdate(input: { campId: "spring", title: "${title}" }) { campaign { id } } }`,
        {},
        token,
      );
      expect(reply.body.errors, reply.text).toBeUndefined();
    };
    // The subscription on B is in place once an event reaches it.
    await until(
      () => received.length > 0,
      'the first event on B',
      5000,
      async () => {
        if (received.length === 0) await update('warm-up');
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
    );
    await redis.kill();
    for (const title of ['one', 'two', 'three']) await update(title);
    await redis.start();
    const titles = () =>
      received.map((value) => value.data.campaignEvents.data.title as string).filter((title) => title !== 'warm-up');
    await until(() => titles().length >= 3, 'the events of the outage on B', 10_000);
    expect(titles()).toEqual(['one', 'two', 'three']);
  }, 30_000);
});
