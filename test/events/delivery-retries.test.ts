// A delivery attempt that gets no HTTP answer at all is retried like one answered with an error (docs/decisions.md §9): a
// refused connection (nothing listens on the port) and a receiver that does not answer within
// WEBHOOK_TIMEOUT_SECONDS (fractions allowed) each leave the delivery PENDING with attempts 1, no response code and
// the error in lastError; once the receiver is back, the next attempt (same webhook-id) succeeds. No real waiting
// for the retry: the worker runs on a clock the test moves forward.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

const SECOND = 1000;
/** The first retry comes a minute (plus up to 10 % jitter) after the first attempt. */
const ENV = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '60,60' };

let t: TestApp | undefined;
let token: string;
let offset = 0;
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const close of closers.splice(0)) await close();
  offset = 0;
});

async function start(env: Record<string, string> = {}) {
  offset = 0;
  t = await startApp({ ...ENV, ...env }, [], { worker: { pollMs: 20, clock: () => Date.now() + offset } });
  ({ token } = await t.account());
}

/** Campaign "spring" with a webhook to `url`; returns the webhook's id. */
async function webhookTo(url: string): Promise<string> {
  await update('Created');
  const created = await t!.gql(
    'mutation ($url: String!) { createWebhook(input: { url: $url }) { webhookId } }',
    { url },
    token,
  );
  expect(created.body.errors, created.text).toBeUndefined();
  const { webhookId } = created.body.data.createWebhook;
  const attached = await t!.gql(
    'mutation ($w: String!) { attachWebhook(webhookId: $w, campId: "spring") { webhookId } }',
    { w: webhookId },
    token,
  );
  expect(attached.body.errors, attached.text).toBeUndefined();
  return webhookId as string;
}

async function update(title: string) {
  const reply = await t!.rest('POST', '/update_campaign', {
    token,
    body: { campId: 'spring', campaignModelData: campaignModelData({ title }) },
  });
  expect(reply.status, reply.text).toBe(200);
}

interface DeliveryNode {
  deliveryId: string;
  status: string;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
}

/** The webhook's one delivery, once `check` passes on it. */
async function deliveryOnce(webhookId: string, check: (delivery: DeliveryNode) => void): Promise<DeliveryNode> {
  let last: DeliveryNode | undefined;
  await expect
    .poll(
      async () => {
        const reply = await t!.gql(
          `query ($w: String!) { webhook(webhookId: $w) { deliveries(first: 5) { edges { node {
             deliveryId status attempts lastResponseCode lastError nextAttemptAt } } } } }`,
          { w: webhookId },
          token,
        );
        const edges = reply.body.data.webhook.deliveries.edges as Array<{ node: DeliveryNode }>;
        expect(edges).toHaveLength(1);
        last = edges[0]!.node;
        check(last);
        return true;
      },
      { timeout: 3000, interval: 20 },
    )
    .toBe(true);
  return last!;
}

/** After a failed first attempt: pending, attempts 1, no response code, the error kept, retried in a minute. */
async function expectRetryScheduled(webhookId: string, error: RegExp, attemptAt: number): Promise<DeliveryNode> {
  const delivery = await deliveryOnce(webhookId, (d) => expect(d.attempts).toBe(1));
  expect(delivery).toMatchObject({ status: 'PENDING', attempts: 1, lastResponseCode: null });
  expect(delivery.lastError).toMatch(error);
  const due = Date.parse(delivery.nextAttemptAt!);
  expect(due).toBeGreaterThanOrEqual(attemptAt + 59 * SECOND);
  expect(due).toBeLessThanOrEqual(Date.now() + 67 * SECOND);
  return delivery;
}

/** Once the worker's clock passes the retry: the same delivery succeeds, and the receiver got that one retry. */
async function expectSucceededOnRetry(webhookId: string, deliveryId: string, retries: () => unknown[]) {
  offset = 70 * SECOND;
  const done = await deliveryOnce(webhookId, (d) => expect(d.status).toBe('SUCCEEDED'));
  expect(done).toMatchObject({ deliveryId, attempts: 2, lastResponseCode: 200, lastError: null, nextAttemptAt: null });
  expect(retries()).toEqual([deliveryId]);
}

/** A port nothing listens on (any more): connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A receiver on exactly `port`, answering 200; records the webhook-id of each request. */
async function receiverOn(port: number): Promise<{ webhookIds: unknown[] }> {
  const webhookIds: unknown[] = [];
  const server: Server = createServer((req, res) => {
    webhookIds.push(req.headers['webhook-id']);
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { webhookIds };
}

it('a refused connection is retried: pending, attempts 1, lastError set; then succeeds once the receiver listens', async () => {
  await start();
  const port = await closedPort();
  const webhookId = await webhookTo(`http://127.0.0.1:${port}/hook`);

  const attemptAt = Date.now();
  await update('Renamed');
  const failed = await expectRetryScheduled(webhookId, /ECONNREFUSED/, attemptAt);

  const receiver = await receiverOn(port);
  await expectSucceededOnRetry(webhookId, failed.deliveryId, () => receiver.webhookIds);
});

it('no answer within WEBHOOK_TIMEOUT_SECONDS (0.3) is retried the same way; the next answer in time succeeds', async () => {
  await start({ WEBHOOK_TIMEOUT_SECONDS: '0.3' });
  // The first request is never answered; the next ones at once.
  const receiver: Receiver = await startReceiver((_request, index) =>
    index === 0 ? new Promise<number>(() => {}) : 200,
  );
  closers.push(() => receiver.close());
  const webhookId = await webhookTo(receiver.url);

  const attemptAt = Date.now();
  await update('Renamed');
  await receiver.waitFor(1);
  const failed = await expectRetryScheduled(webhookId, /No response within 0\.3 s/, attemptAt);

  await expectSucceededOnRetry(webhookId, failed.deliveryId, () =>
    receiver.received.slice(1).map((r) => r.headers['webhook-id']),
  );
});
