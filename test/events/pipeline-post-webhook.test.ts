// The text pipeline's postWebhook (docs/decisions.md §6, §9): an inbound social message on a campaign whose pipeline has a
// postWebhook is POSTed there after postWebhookDelay seconds; a failed delivery is retried mexRetry times, retryDelay
// MINUTES apart, then fails. No real waiting: the worker runs on a clock the test moves forward (`offset`).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDueDeliveries, recordAttempt } from '../../src/domain/delivery-leases.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/eventually.js';

const ENV = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.05,0.05' };
const CAMP = 'texting';
/** How long to wait before concluding that nothing (more) arrives (the worker polls every 50 ms). */
const QUIET_MS = 300;
const SECOND = 1000;
const MINUTE = 60 * SECOND;

let t: TestApp | undefined;
let token: string;
let apiKey: string;
let receivers: Receiver[] = [];
/** How far the worker's clock is ahead of the real one, in ms. */
let offset = 0;
const workerNow = () => Date.now() + offset;

async function start(env: Record<string, string> = ENV) {
  offset = 0;
  t = await startApp(env, [], { worker: { pollMs: 50, clock: workerNow } });
  ({ token, apiKey } = await t.account());
  const campaign = await t.rest('POST', '/update_campaign', {
    token,
    body: { campId: CAMP, campaignModelData: campaignModelData() },
  });
  expect(campaign.status, campaign.text).toBe(200);
  const social = await t.rest('POST', '/add_social_info', {
    token,
    body: { pageId: 'page-1', accessToken: 'EAAB-access-token-0123', verifyToken: 'verify-token-0123' },
  });
  expect(social.status, social.text).toBe(200);
}

afterEach(async () => {
  await t?.close();
  t = undefined;
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  offset = 0;
});

const app = () => t!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function receiver(respond: Receiver['respond'] = () => 200): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

async function setPipeline(fields: Record<string, unknown>) {
  const reply = await app().rest('POST', `/text_pipeline_configuration?campId=${CAMP}`, {
    token,
    body: { goal: 'Book a demo', ...fields },
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

let messageCounter = 0;
/** Posts a page-style envelope with these message ids to the campaign's social webhook. */
async function inbound(...mids: string[]) {
  const body = {
    object: 'page',
    entry: [
      {
        messaging: mids.map((mid) => ({
          sender: { id: 'customer-1' },
          timestamp: 1700000000000 + ++messageCounter * 1000,
          message: { mid, text: `text of ${mid}` },
        })),
      },
    ],
  };
  const reply = await app().rest('POST', `/social_webhook/${encodeURIComponent(apiKey)}/${CAMP}`, {
    raw: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { received: number };
}

interface DeliveryNode {
  deliveryId: string;
  webhookId: string | null;
  status: string;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  event: string;
}

/** The pipeline's deliveries as GraphQL shows them, newest first. */
async function pipelineDeliveries(): Promise<DeliveryNode[]> {
  const reply = await app().gql(
    `query ($c: String!) { campaign(campId: $c) { textPipeline { deliveries(first: 10) { edges { node {
       deliveryId webhookId status attempts lastResponseCode lastError nextAttemptAt event } } } } } }`,
    { c: CAMP },
    token,
  );
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  return reply.body.data.campaign.textPipeline.deliveries.edges.map((edge: { node: DeliveryNode }) => edge.node);
}

async function onlyDelivery(): Promise<DeliveryNode> {
  const list = await pipelineDeliveries();
  expect(list).toHaveLength(1);
  return list[0]!;
}

/** `nextAttemptAt` is `delayMs` (plus up to 10 % jitter) after the worker-clock instant `attemptAt`. */
function expectDueAfter(nextAttemptAt: string | null, attemptAt: number, delayMs: number) {
  expect(nextAttemptAt).not.toBeNull();
  const due = Date.parse(nextAttemptAt!);
  expect(due).toBeGreaterThanOrEqual(attemptAt + delayMs - SECOND);
  expect(due).toBeLessThanOrEqual(attemptAt + delayMs * 1.1 + SECOND);
}

describe('postWebhook delivery', () => {
  beforeEach(() => start());

  it('POSTs an inbound message after postWebhookDelay seconds, unsigned, with webhook-id and webhook-timestamp', async () => {
    const r = await receiver();
    await setPipeline({ postWebhook: r.url, postWebhookDelay: 30 });
    const sentAt = Date.now();
    expect(await inbound('m.1')).toEqual({ received: 1 });

    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(0);
    const waiting = await onlyDelivery();
    expect(waiting).toMatchObject({
      webhookId: null,
      status: 'PENDING',
      attempts: 0,
      lastResponseCode: null,
      event: 'social.message.received',
    });
    expectDueAfter(waiting.nextAttemptAt, sentAt, 30 * SECOND);

    // Not yet due at +29 s on the worker's clock.
    offset = 29 * SECOND;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(0);

    offset = 31 * SECOND;
    const [request] = await r.waitFor(1);
    expect(request!.json).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'social.message.received',
      createdAt: expect.any(String),
      data: expect.objectContaining({ messageId: 'm.1', campaignId: CAMP, sender: 'customer-1', text: 'text of m.1' }),
    });
    expect(request!.headers['content-type']).toContain('application/json');
    expect(request!.headers['webhook-id']).toBe(waiting.deliveryId);
    const timestamp = Number(request!.headers['webhook-timestamp']);
    expect(Math.abs(timestamp - (request!.at + offset) / 1000)).toBeLessThan(5);
    expect(request!.headers).not.toHaveProperty('webhook-signature');

    const done = await eventually(async () => {
      const delivery = await onlyDelivery();
      expect(delivery.status).toBe('SUCCEEDED');
      return delivery;
    });
    expect(done).toMatchObject({ attempts: 1, lastResponseCode: 200, lastError: null, nextAttemptAt: null });
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);
  });

  it('with postWebhookDelay 0, posts at once: one delivery per new message, none for a repeated one', async () => {
    const r = await receiver();
    await setPipeline({ postWebhook: r.url });
    expect(await inbound('m.1', 'm.2')).toEqual({ received: 2 });
    const requests = await r.waitFor(2);
    expect(requests.map((request) => request.json.data.messageId).sort()).toEqual(['m.1', 'm.2']);
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(2);

    expect(await inbound('m.1', 'm.2')).toEqual({ received: 0 });
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(2);
    const list = await eventually(async () => {
      const all = await pipelineDeliveries();
      expect(all.map((delivery) => delivery.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
      return all;
    });
    expect(list.every((delivery) => delivery.event === 'social.message.received')).toBe(true);
  });

  it('retries a failed delivery mexRetry times, retryDelay minutes apart, then fails for good', async () => {
    const r = await receiver(() => 500);
    await setPipeline({ postWebhook: r.url, mexRetry: 2, retryDelay: 1 });
    await inbound('m.1');

    // First attempt: at once.
    const [first] = await r.waitFor(1);
    const afterFirst = await eventually(async () => {
      const delivery = await onlyDelivery();
      expect(delivery.attempts).toBe(1);
      return delivery;
    });
    expect(afterFirst).toMatchObject({ status: 'PENDING', lastResponseCode: 500, event: 'social.message.received' });
    expect(afterFirst.lastError).toContain('500');
    expectDueAfter(afterFirst.nextAttemptAt, first!.at + offset, MINUTE);

    // Not the 0.05 s of WEBHOOK_RETRY_SCHEDULE, nor before a minute has passed.
    await sleep(QUIET_MS);
    offset = 50 * SECOND;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);

    // Second attempt, past +60 s (and its jitter).
    offset = 67 * SECOND;
    const [, second] = await r.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
    const afterSecond = await eventually(async () => {
      const delivery = await onlyDelivery();
      expect(delivery.attempts).toBe(2);
      return delivery;
    });
    expect(afterSecond).toMatchObject({ status: 'PENDING', lastResponseCode: 500 });
    expectDueAfter(afterSecond.nextAttemptAt, second!.at + offset, MINUTE);

    offset = (67 + 50) * SECOND;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(2);

    // Third attempt, another minute later: the last (1 + mexRetry).
    offset = (67 + 67) * SECOND;
    const [, , third] = await r.waitFor(3);
    expect(third!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const failed = await eventually(async () => {
      const delivery = await onlyDelivery();
      expect(delivery.status).toBe('FAILED');
      return delivery;
    });
    expect(failed).toMatchObject({ attempts: 3, lastResponseCode: 500, nextAttemptAt: null });

    // No more attempts, however far the clock moves.
    offset += 60 * MINUTE;
    await sleep(QUIET_MS);
    offset += 24 * 60 * MINUTE;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(3);
    expect(await onlyDelivery()).toMatchObject({ status: 'FAILED', attempts: 3 });
  });

  it('retryDelay counts minutes: retryDelay 2 waits two minutes; mexRetry 1 allows one retry', async () => {
    const r = await receiver(() => 503);
    await setPipeline({ postWebhook: r.url, mexRetry: 1, retryDelay: 2 });
    await inbound('m.1');
    const [first] = await r.waitFor(1);
    const pending = await eventually(async () => {
      const delivery = await onlyDelivery();
      expect(delivery.attempts).toBe(1);
      return delivery;
    });
    expect(pending.status).toBe('PENDING');
    expectDueAfter(pending.nextAttemptAt, first!.at + offset, 2 * MINUTE);

    offset = 100 * SECOND;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);

    offset = 133 * SECOND;
    await r.waitFor(2);
    const failed = await eventually(async () => {
      const delivery = await onlyDelivery();
      expect(delivery.status).toBe('FAILED');
      return delivery;
    });
    expect(failed).toMatchObject({ attempts: 2, lastResponseCode: 503, nextAttemptAt: null });
    offset += 10 * MINUTE;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(2);
  });

  it('a success after a failure ends the retries', async () => {
    const r = await receiver((_request, index) => (index === 0 ? 500 : 204));
    await setPipeline({ postWebhook: r.url, mexRetry: 3, retryDelay: 1 });
    await inbound('m.1');
    await r.waitFor(1);
    // The failure is recorded (and its retry scheduled) before the clock moves on.
    await eventually(async () => expect((await onlyDelivery()).attempts).toBe(1));
    offset = 67 * SECOND;
    await r.waitFor(2);
    const done = await eventually(async () => {
      const delivery = await onlyDelivery();
      expect(delivery.status).toBe('SUCCEEDED');
      return delivery;
    });
    expect(done).toMatchObject({ attempts: 2, lastResponseCode: 204, nextAttemptAt: null });
    offset += 10 * MINUTE;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(2);
  });

  it('a pipeline without postWebhook, or no pipeline at all, produces no delivery', async () => {
    const db = app().app.database.db;
    expect(await inbound('m.0')).toEqual({ received: 1 });

    await setPipeline({ postWebhook: null, postWebhookDelay: 0 });
    expect(await inbound('m.1')).toEqual({ received: 1 });
    offset = 10 * MINUTE;
    await sleep(QUIET_MS);

    expect(await pipelineDeliveries()).toEqual([]);
    expect(await db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
    // The events themselves are recorded.
    const events = await db.selectFrom('events').select(['type', 'camp_id']).where('camp_id', '=', CAMP).execute();
    expect(events.filter((row) => row.type === 'social.message.received')).toHaveLength(2);
  });

  it('goes to the postWebhook alongside the attached webhooks, each listed in its own place', async () => {
    const pipelineTarget = await receiver();
    const hookTarget = await receiver();
    await setPipeline({ postWebhook: pipelineTarget.url, postWebhookDelay: 60 });
    const created = await app().gql(
      `mutation ($url: String!) { createWebhook(input: { url: $url }) { webhookId } }`,
      { url: hookTarget.url },
      token,
    );
    const webhookId = created.body.data.createWebhook.webhookId as string;
    const attached = await app().gql(
      `mutation ($w: String!, $c: String!) { attachWebhook(webhookId: $w, campId: $c) { webhookId } }`,
      { w: webhookId, c: CAMP },
      token,
    );
    expect(attached.body.errors).toBeUndefined();

    await inbound('m.1');
    // The attached webhook gets it at once, signed; the pipeline waits for its delay.
    const [signed] = await hookTarget.waitFor(1);
    expect(String(signed!.headers['webhook-signature'])).toMatch(/^v1,/);
    await sleep(QUIET_MS);
    expect(pipelineTarget.received).toHaveLength(0);
    offset = 61 * SECOND;
    const [unsigned] = await pipelineTarget.waitFor(1);
    expect(unsigned!.headers).not.toHaveProperty('webhook-signature');
    expect(unsigned!.body).toBe(signed!.body);
    expect(unsigned!.headers['webhook-id']).not.toBe(signed!.headers['webhook-id']);

    const pipelineList = await eventually(async () => {
      const list = await pipelineDeliveries();
      expect(list.map((delivery) => delivery.status)).toEqual(['SUCCEEDED']);
      return list;
    });
    expect(pipelineList[0]).toMatchObject({ webhookId: null, deliveryId: unsigned!.headers['webhook-id'] });
    const hookList = await app().gql(
      `query ($w: String!) { webhook(webhookId: $w) { deliveries(first: 10) { edges { node { deliveryId } } } } }`,
      { w: webhookId },
      token,
    );
    expect(hookList.body.data.webhook.deliveries.edges.map((edge: any) => edge.node.deliveryId)).toEqual([
      signed!.headers['webhook-id'],
    ]);
  });
});

describe('postWebhook target check', () => {
  it('refuses a private postWebhook (REST 422, GraphQL BAD_USER_INPUT) unless ALLOW_PRIVATE_WEBHOOK_TARGETS', async () => {
    await start({});
    const url = 'http://127.0.0.1/x';
    const rest = await app().rest('POST', `/text_pipeline_configuration?campId=${CAMP}`, {
      token,
      body: { goal: 'Book a demo', postWebhook: url },
    });
    expect(rest.status, rest.text).toBe(422);
    expect(rest.body.detail).toEqual([
      expect.objectContaining({ type: 'value_error', loc: ['body', 'postWebhook'], input: url }),
    ]);
    expect(rest.body.detail[0].msg).toContain('127.0.0.1');

    const gql = await app().gql(
      `mutation ($c: String!, $input: TextPipelineInput!) { setTextPipeline(campId: $c, input: $input) { campId } }`,
      { c: CAMP, input: { goal: 'Book a demo', postWebhook: 'http://10.0.0.5/hook' } },
      token,
    );
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(gql.body.errors![0].extensions.issues).toEqual([
      expect.objectContaining({ path: ['input', 'postWebhook'] }),
    ]);

    // Nothing was stored.
    const stored = await app().rest('GET', `/text_pipeline_configuration?campId=${CAMP}`, { token });
    expect(stored.status, stored.text).toBe(404);
    expect(stored.body).toEqual({ detail: 'Text pipeline configuration not found' });
    // A public target is fine.
    const ok = await app().rest('POST', `/text_pipeline_configuration?campId=${CAMP}`, {
      token,
      body: { goal: 'Book a demo', postWebhook: 'https://hooks.example.com/x' },
    });
    expect(ok.status, ok.text).toBe(200);
  });
});

// Deleting the text pipeline cancels its pending postWebhook deliveries: they become FAILED ("Text pipeline deleted"),
// unsent, at once, whichever door deleted it; the worker never sends them, however far its clock moves.
describe('deleting the text pipeline', () => {
  beforeEach(() => start());

  const deleteBy = {
    async REST() {
      const reply = await app().rest('DELETE', `/text_pipeline_configuration?campId=${CAMP}`, { token });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual({ detail: 'Text pipeline configuration deleted' });
    },
    async GraphQL() {
      const reply = await app().gql(
        'mutation ($c: String!) { deleteTextPipeline(campId: $c) { campId } }',
        { c: CAMP },
        token,
      );
      expect(reply.body.errors, reply.text).toBeUndefined();
      expect(reply.body.data.deleteTextPipeline).toEqual({ campId: CAMP });
    },
  };

  const rows = () =>
    app()
      .app.database.db.selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'last_error', 'next_attempt_at', 'lease_owner'])
      .execute();
  const cancelled = { status: 'failed', attempts: 0, last_error: 'Text pipeline deleted', next_attempt_at: null };

  for (const [door, remove] of Object.entries(deleteBy)) {
    it(`cancels its pending postWebhook deliveries (${door} delete)`, async () => {
      const r = await receiver();
      await setPipeline({ postWebhook: r.url, postWebhookDelay: 30 });
      await inbound('m.1', 'm.2');
      expect((await pipelineDeliveries()).map((delivery) => delivery.status)).toEqual(['PENDING', 'PENDING']);

      await remove();
      expect(await rows()).toEqual([
        { ...cancelled, lease_owner: null },
        { ...cancelled, lease_owner: null },
      ]);

      // Past their due time: still nothing sent.
      offset = 10 * MINUTE;
      await sleep(QUIET_MS);
      expect(r.received).toHaveLength(0);

      // A new pipeline lists them as they ended, and does not revive them.
      await setPipeline({ postWebhook: r.url });
      offset = 20 * MINUTE;
      await sleep(QUIET_MS);
      expect(r.received).toHaveLength(0);
      expect(await pipelineDeliveries()).toEqual([
        expect.objectContaining({ status: 'FAILED', attempts: 0, lastError: 'Text pipeline deleted' }),
        expect.objectContaining({ status: 'FAILED', attempts: 0, lastError: 'Text pipeline deleted' }),
      ]);
    });
  }

  it('cancels a delivery a worker has leased but not posted yet; that worker cannot record an outcome for it', async () => {
    const r = await receiver();
    await setPipeline({ postWebhook: r.url, postWebhookDelay: 30 });
    await inbound('m.1');
    // Another instance's worker (here, by hand) leases the due delivery and stalls before its POST.
    const { db } = app().app.database;
    const lease = { owner: 'worker_stalled', leaseUntil: new Date(Date.now() + 60 * SECOND).toISOString() };
    const claimed = await claimDueDeliveries(db, {
      owner: lease.owner,
      now: new Date(Date.now() + 31 * SECOND).toISOString(),
      leaseUntil: lease.leaseUntil,
      limit: 10,
    });
    expect(claimed).toHaveLength(1);

    await deleteBy.GraphQL();
    expect(await rows()).toEqual([{ ...cancelled, lease_owner: null }]);
    await recordAttempt(db, lease, claimed[0]!.deliveryId, { ok: true, responseCode: 200 });
    expect(await rows()).toEqual([{ ...cancelled, lease_owner: null }]);

    // Its lease long over, no worker takes the delivery up.
    offset = 10 * MINUTE;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(0);
    expect(await rows()).toEqual([{ ...cancelled, lease_owner: null }]);
  });

  it('a delivery still pending when its pipeline is gone (added as the delete committed) is not sent: checked at claim', async () => {
    const r = await receiver();
    await setPipeline({ postWebhook: r.url, postWebhookDelay: 30 });
    await inbound('m.1');
    // As if the inbound message's transaction had added the delivery just after a delete had cancelled the others.
    await app().app.database.db.deleteFrom('text_pipelines').where('camp_id', '=', CAMP).execute();

    offset = 31 * SECOND;
    await eventually(async () => expect(await rows()).toEqual([{ ...cancelled, lease_owner: null }]));
    offset = 10 * MINUTE;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(0);
  });
});

describe('changing the text pipeline', () => {
  beforeEach(() => start());

  const redeliver = (deliveryId: string) =>
    app().gql(
      'mutation ($id: String!) { redeliverWebhookDelivery(deliveryId: $id) { deliveryId status } }',
      { id: deliveryId },
      token,
    );

  it('pending deliveries follow a changed postWebhook: the new one gets them, the old one nothing', async () => {
    const before = await receiver();
    const after = await receiver();
    await setPipeline({ postWebhook: before.url, postWebhookDelay: 30 });
    await inbound('m.1');
    await setPipeline({ postWebhook: after.url, postWebhookDelay: 30 });

    offset = 10 * MINUTE;
    await eventually(async () => expect(after.received).toHaveLength(1));
    await sleep(QUIET_MS);
    expect(before.received).toHaveLength(0);
    expect((await onlyDelivery()).status).toBe('SUCCEEDED');
  });

  it('removing the postWebhook cancels the pending deliveries, unsent', async () => {
    const r = await receiver();
    await setPipeline({ postWebhook: r.url, postWebhookDelay: 30 });
    await inbound('m.1');
    await setPipeline({});

    expect(await onlyDelivery()).toMatchObject({ status: 'FAILED', lastError: 'Text pipeline postWebhook removed' });
    offset = 10 * MINUTE;
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(0);
  });

  it('redelivering goes to the postWebhook as it is now, and is CONFLICT when there is none', async () => {
    const first = await receiver();
    await setPipeline({ postWebhook: first.url });
    await inbound('m.1');
    await eventually(async () => expect((await onlyDelivery()).status).toBe('SUCCEEDED'));
    const { deliveryId } = await onlyDelivery();

    const del = await app().rest('DELETE', `/text_pipeline_configuration?campId=${CAMP}`, { token });
    expect(del.status, del.text).toBe(200);
    const refused = await redeliver(deliveryId);
    expect(refused.body.errors?.[0].extensions.code, refused.text).toBe('CONFLICT');

    const second = await receiver();
    await setPipeline({ postWebhook: second.url });
    const queued = await redeliver(deliveryId);
    expect(queued.body.errors, queued.text).toBeUndefined();
    await eventually(async () => expect(second.received).toHaveLength(1));
    expect(first.received).toHaveLength(1);
  });
});
