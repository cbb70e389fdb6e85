// Webhook delivery end to end: REST update_campaign → outbox → worker → a local receiver. Signatures are checked with
// the Standard Webhooks reference library (`standardwebhooks`), not with our own signing code.
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { refusedAddress } from '../../src/security/webhook-targets.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/eventually.js';

let t: TestApp;
let token: string;
let receiver: Receiver;

const FAST_RETRIES = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.05,0.05' };

async function start(env: Record<string, string> = FAST_RETRIES) {
  t = await startApp(env, [], { worker: { pollMs: 50 } });
  ({ token } = await t.account());
}

afterEach(async () => {
  await t?.close();
  await receiver?.close();
});

const updateCampaign = (campId: string, title = 'Spring outreach') =>
  t.rest('POST', '/update_campaign', { token, body: { campId, campaignModelData: campaignModelData({ title }) } });

/** Creates a webhook for `url` by REST and attaches it to `campId` (creating the campaign). */
async function webhookOn(campId: string, url: string, events?: string[]) {
  expect((await updateCampaign(campId)).status).toBe(200);
  const created = await t.rest('POST', '/create_webhook', { token, body: { url, ...(events ? { events } : {}) } });
  expect(created.status, created.text).toBe(200);
  const attached = await t.rest(
    'POST',
    `/add_webhook_campaingn?webhookId=${created.body.webhookId}&campaignId=${campId}`,
    { token },
  );
  expect(attached.status, attached.text).toBe(200);
  return created.body as { webhookId: string; secret: string };
}

async function deliveries(webhookId: string) {
  const reply = await t.gql(
    `query ($id: String!) { webhook(webhookId: $id) { deliveries(first: 20) { edges { node {
       deliveryId event status attempts lastResponseCode lastError nextAttemptAt } } } } }`,
    { id: webhookId },
    token,
  );
  return reply.body.data.webhook.deliveries.edges.map((e: any) => e.node);
}

describe('webhook delivery', () => {
  beforeEach(async () => {
    await start();
  });

  it('retries after a 500 with the same webhook-id, and every attempt verifies with the Standard Webhooks library', async () => {
    receiver = await startReceiver((_request, index) => (index === 0 ? 500 : 200));
    const { webhookId, secret } = await webhookOn('spring', receiver.url);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    expect((await updateCampaign('spring', 'Renamed')).status).toBe(200);
    const [first, second] = await receiver.waitFor(2);

    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(first!.body).toBe(second!.body);
    const verifier = new StandardWebhook(secret);
    for (const attempt of [first!, second!]) {
      const payload = verifier.verify(attempt.body, {
        'webhook-id': String(attempt.headers['webhook-id']),
        'webhook-timestamp': String(attempt.headers['webhook-timestamp']),
        'webhook-signature': String(attempt.headers['webhook-signature']),
      }) as any;
      expect(payload).toMatchObject({ type: 'campaign.updated', data: { campId: 'spring', title: 'Renamed' } });
      expect(payload.id).toMatch(/^evt_/);
    }
    // A signature made with another secret does not verify.
    expect(() =>
      new StandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(first!.body, {
        'webhook-id': String(first!.headers['webhook-id']),
        'webhook-timestamp': String(first!.headers['webhook-timestamp']),
        'webhook-signature': String(first!.headers['webhook-signature']),
      }),
    ).toThrow();

    const [delivery] = await eventually(async () => {
      const list = await deliveries(webhookId);
      expect(list[0]).toMatchObject({ status: 'SUCCEEDED', attempts: 2, lastResponseCode: 200 });
      return list;
    });
    expect(delivery.deliveryId).toBe(first!.headers['webhook-id']);
    expect(delivery).toMatchObject({ event: 'campaign.updated', lastError: null, nextAttemptAt: null });
  });

  it('marks a delivery failed after the last retry of the schedule', async () => {
    receiver = await startReceiver(() => 503);
    const { webhookId } = await webhookOn('spring', receiver.url);
    await updateCampaign('spring', 'Again');
    await receiver.waitFor(3);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(webhookId);
      expect(list[0].status).toBe('FAILED');
      return list;
    });
    expect(delivery).toMatchObject({ attempts: 3, lastResponseCode: 503, lastError: 'Receiver answered 503' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(3);
  });

  it('answers update_campaign while the receiver has not answered yet: delivery never blocks a request', async () => {
    let release!: (status: number) => void;
    const held = new Promise<number>((resolve) => (release = resolve));
    receiver = await startReceiver(() => held);
    const { webhookId } = await webhookOn('spring', receiver.url);

    const started = Date.now();
    const reply = await updateCampaign('spring', 'Quick');
    expect(reply.status, reply.text).toBe(200);
    // The receiver has got the event (or is about to) but has not answered, and the request is long done.
    await receiver.waitFor(1);
    const [pending] = await deliveries(webhookId);
    expect(pending).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(Date.now() - started).toBeLessThan(5000);
    release(200);
    await eventually(async () => expect((await deliveries(webhookId))[0].status).toBe('SUCCEEDED'));
  });

  it('disables the webhook when the receiver answers 410 Gone, and sends it nothing more', async () => {
    receiver = await startReceiver(() => 410);
    const { webhookId } = await webhookOn('spring', receiver.url);
    await updateCampaign('spring', 'One');
    await receiver.waitFor(1);
    await eventually(async () => {
      const reply = await t.gql(
        `query ($id: String!) { webhook(webhookId: $id) { enabled disabledReason } }`,
        { id: webhookId },
        token,
      );
      expect(reply.body.data.webhook).toEqual({ enabled: false, disabledReason: 'The receiver answered 410 Gone' });
      // The webhook is disabled just before the attempt is recorded: wait for both.
      expect((await deliveries(webhookId))[0]).toMatchObject({ status: 'FAILED', attempts: 1, lastResponseCode: 410 });
    });
    await updateCampaign('spring', 'Two');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);
  });
});

describe('webhook targets', () => {
  it('refuses a private-address target with a 422 (REST) and BAD_USER_INPUT (GraphQL) unless the flag is set', async () => {
    await start({});
    const rest = await t.rest('POST', '/create_webhook', { token, body: { url: 'http://10.1.2.3/hook' } });
    expect(rest.status, rest.text).toBe(422);
    expect(rest.body.detail).toEqual([
      expect.objectContaining({ type: 'value_error', loc: ['body', 'url'], input: 'http://10.1.2.3/hook' }),
    ]);
    expect(rest.body.detail[0].msg).toContain('10.1.2.3 is a private address');

    const gql = await t.gql(
      'mutation ($url: String!) { createWebhook(input: { url: $url }) { webhookId } }',
      { url: 'http://127.0.0.1:8080/hook' },
      token,
    );
    expect(gql.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(gql.body.errors?.[0].message).toContain('127.0.0.1 is a loopback address');
    await t.close();

    await start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    const allowed = await t.rest('POST', '/create_webhook', { token, body: { url: 'http://10.1.2.3/hook' } });
    expect(allowed.status, allowed.text).toBe(200);
  });

  it('checks what a host name resolves to at delivery, and refuses a private answer', async () => {
    // This machine's own name passes registration (it is not a literal address) but resolves to itself.
    const name = hostname();
    const { address } = await lookup(name);
    expect(refusedAddress(address), `${name} resolves to ${address}, expected a non-public address`).not.toBeNull();

    await start({ WEBHOOK_RETRY_SCHEDULE: '0.05' });
    receiver = await startReceiver(() => 200);
    const url = receiver.url.replace('127.0.0.1', name);
    const { webhookId } = await webhookOn('spring', url);
    await updateCampaign('spring', 'Rebound');
    const [delivery] = await eventually(async () => {
      const list = await deliveries(webhookId);
      expect(list[0].status).toBe('FAILED');
      return list;
    });
    expect(delivery).toMatchObject({ attempts: 2, lastResponseCode: null });
    expect(delivery.lastError).toBe(`Target refused: ${name} resolves to ${address}, ${refusedAddress(address)}`);
    expect(receiver.received).toHaveLength(0);
  });
});
