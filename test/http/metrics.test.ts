// Prometheus metrics at /metrics (docs/observability.md "Metrics"): both doors' requests by route and status, GraphQL phases by
// operation name, errors by code, the outbox backlog and delivery outcomes, live streams, the process; labels from
// bounded sets only (no raw paths, no API keys, at most 100 operation names); the setting turns it off or protects it.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_OPERATION_NAMES } from '../../src/http/metrics.js';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { eventually } from '../helpers/eventually.js';
import { attachNewWebhook } from '../helpers/webhooks.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

let t: TestApp;
let receiver: Receiver | undefined;
afterEach(async () => {
  await t.close();
  await receiver?.close();
  receiver = undefined;
});

async function scrape(headers: Record<string, string> = {}) {
  const reply = await t.request('GET', '/metrics', { headers });
  return reply;
}

/** The value of a sample line `name{labels} value` whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`${name}{`) || l.startsWith(`${name} `)
        ? Object.entries(labels).every(([key, value]) => l.includes(`${key}="${value}"`))
        : false,
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  it('reports both doors, GraphQL phases by operation, errors by code, streams, the backlog and the process', async () => {
    t = await startApp({}, [], { worker: false });
    const { token, apiKey } = await t.account();
    await createLegacyCampaign(t, token, 'spring');
    await connectTelephony(t, token);
    expect((await t.rest('GET', '/get_campaigns', { token })).status).toBe(200);
    expect((await sendCallback(t, apiKey, 'spring', { CallSid: 'CA1', CallStatus: 'completed' })).status).toBe(200);
    const named = await t.gql('query CampaignList { campaigns(first: 5) { edges { node { campId } } } }', {}, token);
    expect(named.body.errors, named.text).toBeUndefined();
    await t.gql('{ viewer { email } }'); // no token: UNAUTHENTICATED
    // REST refusals count under the REST door, by the code of their status.
    expect((await t.rest('GET', '/get_campaigns')).status).toBe(401);
    expect((await t.rest('GET', '/get_campaign?campId=nope', { token })).status).toBe(404);
    expect((await t.rest('GET', '/get_campaign', { token })).status).toBe(422);
    expect((await t.rest('GET', '/update_campaign', { token })).status).toBe(405);

    const reply = await scrape();
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = reply.text;
    const rest = { door: 'rest', route: '/api/v3/get_campaigns', method: 'GET', status: '200' };
    expect(sample(text, 'gateway_http_request_duration_seconds_count', rest)).toBe(1);
    // A provider path is labelled by its template: the API key never reaches the metrics.
    const callback = { route: '/api/v3/telephony_webhook/{apiKey}/{campId}', method: 'POST' };
    expect(sample(text, 'gateway_http_request_duration_seconds_count', callback)).toBe(1);
    expect(text).not.toContain(apiKey);
    expect(text).not.toMatch(/ck_/);
    expect(sample(text, 'graphql_envelop_phase_execute_count', { operationName: 'CampaignList' })).toBe(1);
    expect(sample(text, 'graphql_envelop_request_duration_count', { operationName: 'CampaignList' })).toBe(1);
    expect(sample(text, 'gateway_errors_total', { door: 'graphql', code: 'UNAUTHENTICATED' })).toBe(1);
    for (const code of ['UNAUTHENTICATED', 'NOT_FOUND', 'BAD_USER_INPUT', 'METHOD_NOT_ALLOWED']) {
      expect(sample(text, 'gateway_errors_total', { door: 'rest', code }), code).toBe(1);
    }
    expect(sample(text, 'gateway_live_streams')).toBe(0);
    expect(sample(text, 'gateway_webhook_deliveries_pending')).toBe(0);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeDefined();
  });

  it(`labels at most ${MAX_OPERATION_NAMES} operation names; the others are "other"`, async () => {
    t = await startApp({}, [], { worker: false });
    const { token } = await t.account();
    for (let i = 0; i < MAX_OPERATION_NAMES + 20; i++) {
      const reply = await t.gql(`query Op${i} { viewer { email } }`, {}, token);
      expect(reply.body.errors).toBeUndefined();
    }
    const text = (await scrape()).text;
    const names = new Set(
      [...text.matchAll(/^graphql_envelop_phase_execute_count\{[^}]*operationName="([^"]*)"/gm)].map((m) => m[1]),
    );
    expect(names.size).toBeLessThanOrEqual(MAX_OPERATION_NAMES + 1);
    expect(names.has('other')).toBe(true);
    expect(sample(text, 'graphql_envelop_phase_execute_count', { operationName: 'other' })).toBeGreaterThanOrEqual(20);
  });

  it('counts webhook delivery attempts by outcome, and shows the backlog', async () => {
    t = await startApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '60' }, [], {
      worker: { pollMs: 20 },
    });
    receiver = await startReceiver((_request, index) => (index === 0 ? 200 : 500));
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'spring');
    await attachNewWebhook(t, token, 'spring', receiver.url);
    await t.gql('mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }', {}, token);
    await t.gql('mutation { campaignResume(input: { campId: "spring" }) { campaign { id } } }', {}, token);
    await receiver.waitFor(2);
    await eventually(async () => {
      const text = (await scrape()).text;
      expect(sample(text, 'gateway_webhook_delivery_attempts_total', { outcome: 'delivered' })).toBe(1);
      expect(sample(text, 'gateway_webhook_delivery_attempts_total', { outcome: 'retry' })).toBe(1);
      // The delivered one's lag, from its event's commit: under a few seconds here.
      expect(sample(text, 'gateway_webhook_delivery_lag_seconds_count')).toBe(1);
      expect(sample(text, 'gateway_webhook_delivery_lag_seconds_bucket', { le: '10' })).toBe(1);
      // The one to be retried in 60 s is the backlog.
      expect(sample(text, 'gateway_webhook_deliveries_pending')).toBe(1);
    });
  });

  it('is off with METRICS=false (404), and needs the bearer METRICS_TOKEN when one is set (401 otherwise)', async () => {
    t = await startApp({ METRICS: 'false' }, [], { worker: false });
    expect((await scrape()).status).toBe(404);
    await t.close();

    const secret = 'metrics-token-0123456789';
    t = await startApp({ METRICS_TOKEN: secret }, [], { worker: false });
    const without = await scrape();
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('Bearer');
    expect((await scrape({ authorization: 'Bearer metrics-token-wrong-wrong' })).status).toBe(401);
    expect((await scrape({ authorization: `Bearer ${secret}` })).status).toBe(200);
  });
});

describe('metrics an on-call rotation needs (issue 54)', () => {
  const NAMED = 'query ListForMetrics { campaigns(first: 5) { edges { node { campId } } } }';

  it('counts the operation of every request on every path: yoga, the prepared lane, REST routes', async () => {
    t = await startApp({}, [], { worker: false });
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'spring');
    const operations = 'gateway_graphql_operation_duration_seconds_count';
    // Twenty of one named operation: the first through yoga, the rest through the prepared lane.
    for (let i = 0; i < 20; i++) expect((await t.gql(NAMED, {}, token)).body.errors).toBeUndefined();
    for (let i = 0; i < 3; i++) await t.gql('{ campaigns(first: 1) { edges { cursor } } }', {}, token);
    const restCount = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith(`${operations}{door="rest"`))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    const before = restCount((await scrape()).text);
    expect((await t.rest('GET', '/get_campaigns', { token })).status).toBe(200);
    const text = (await scrape()).text;
    const named = { door: 'graphql', operation_name: 'ListForMetrics', operation_type: 'query' };
    expect(sample(text, operations, named)).toBe(20);
    expect(sample(text, operations, { door: 'graphql', operation_name: 'anonymous' })).toBe(3);
    // A REST route runs its prepared document, counted under its operation's name.
    expect(restCount(text) - before).toBe(1);
  });

  it('tells readiness, Redis, the pool and the oldest due delivery; a scrape with METRICS_TOKEN is outside the anonymous budget', async () => {
    const secret = 'metrics-token-0123456789';
    t = await startApp({ METRICS_TOKEN: secret, ANONYMOUS_RATE_LIMIT_PER_MINUTE: '3' }, [], { worker: false });
    const bearer = { authorization: `Bearer ${secret}` };
    for (let i = 0; i < 10; i++) expect((await scrape(bearer)).status).toBe(200);
    const text = (await scrape(bearer)).text;
    expect(sample(text, 'gateway_ready')).toBe(1);
    expect(sample(text, 'gateway_webhook_oldest_due_seconds')).toBe(0);
    // Without REDIS_URL there is no Redis to be connected to; on SQLite no pool.
    expect(sample(text, 'gateway_redis_connected')).toBeUndefined();
    if (DIALECT === 'postgres') {
      expect(sample(text, 'gateway_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);
      // The scrape's own queries may wait for a connection of the test's small pool: present, whatever its value.
      expect(sample(text, 'gateway_db_pool_waiting')).toBeDefined();
    } else expect(sample(text, 'gateway_db_pool_waiting')).toBeUndefined();
    // Without the token, /metrics counts against the address's anonymous budget like any anonymous request.
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await scrape()).status);
    expect(statuses).toContain(429);
    // Draining: not ready.
    t.app.draining = true;
    expect(sample((await scrape(bearer)).text, 'gateway_ready')).toBe(0);
  });

  it('answers while the database does not: not ready, the gauges it cannot read as NaN, the others as usual', async () => {
    t = await startApp({}, [], { worker: false });
    await t.app.database.close();
    const reply = await scrape();
    expect(reply.status).toBe(200);
    expect(sample(reply.text, 'gateway_ready')).toBe(0);
    expect(sample(reply.text, 'gateway_webhook_deliveries_pending')).toBeNaN();
    expect(sample(reply.text, 'gateway_webhook_oldest_due_seconds')).toBeNaN();
    expect(sample(reply.text, 'gateway_live_streams')).toBe(0);
  });

  it('tells how long the oldest due delivery has waited', async () => {
    t = await startApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, [], { worker: false });
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'spring');
    await attachNewWebhook(t, token, 'spring', 'http://127.0.0.1:9/hook');
    await t.gql('mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }', {}, token);
    // No worker: it waits. Made due two minutes ago.
    await t.app.database.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: new Date(Date.now() - 120_000).toISOString() })
      .execute();
    const waited = sample((await scrape()).text, 'gateway_webhook_oldest_due_seconds') ?? 0;
    expect(waited).toBeGreaterThanOrEqual(120);
    expect(waited).toBeLessThan(180);
  });
});

describe('Redis connected (metrics)', () => {
  it('is 1 with a Redis that answers', async () => {
    t = await startApp({ REDIS_URL: 'redis://127.0.0.1:6379' }, [], { worker: false });
    expect(sample((await scrape()).text, 'gateway_redis_connected')).toBe(1);
  });
});
