// Nothing is lost when the server dies between a change and its delivery: the event and its delivery row were
// committed with the change, and after a restart the worker delivers it (with the same webhook-id).
import type { ChildProcess } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { tempSqliteFile } from '../helpers/temp-database.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { kill, startServerProcess } from '../helpers/server-process.js';

let admin: TestApp | undefined;
let receiver: Receiver | undefined;
let server: ChildProcess | undefined;

afterEach(async () => {
  server?.kill('SIGKILL');
  await admin?.close();
  await receiver?.close();
});

/** `npm start` on the given database, with the test apps' keys (test/helpers/app.ts), so tokens and sealed secrets
 * work across both. A short timeout makes a short lease: an attempt cut off by the crash is taken up again ~2.5 s
 * later. */
const startServer = (databaseUrl: string) =>
  startServerProcess({
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    WEBHOOK_TIMEOUT_SECONDS: '1',
  });

/** A database the child servers and an admin app (no worker of its own) share. */
async function sharedDatabase(): Promise<TestApp> {
  const env = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' };
  if (DIALECT === 'postgres') return startApp(env, [], { worker: false });
  const file = tempSqliteFile('gateway-crash');
  return startApp({ ...env, DATABASE_URL: `sqlite:${file}` }, [], { worker: false });
}

async function setUp(respond: Receiver['respond']) {
  admin = await sharedDatabase();
  receiver = await startReceiver(respond);
  const { token } = await admin.account();
  const campaign = await admin.rest('POST', '/update_campaign', {
    token,
    body: { campId: 'spring', campaignModelData: campaignModelData() },
  });
  expect(campaign.status, campaign.text).toBe(200);
  const created = await admin.gql(
    'mutation ($url: String!) { createWebhook(input: { url: $url }) { webhookId } }',
    { url: receiver.url },
    token,
  );
  const { webhookId } = created.body.data.createWebhook;
  await admin.gql(
    'mutation ($w: String!) { attachWebhook(webhookId: $w, campId: "spring") { webhookId } }',
    { w: webhookId },
    token,
  );
  return { token };
}

async function updateThrough(base: string, token: string, title: string) {
  const reply = await fetch(`${base}/api/v3/update_campaign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ campId: 'spring', campaignModelData: campaignModelData({ title }) }),
  });
  expect(reply.status).toBe(200);
}

const deliveryRows = () =>
  admin!.app.database.db.selectFrom('webhook_deliveries').select(['delivery_id', 'status', 'attempts']).execute();

it('delivers after a restart an event whose delivery was in flight when the server was SIGKILLed', async () => {
  // The first request is never answered: the server dies while it waits.
  const { token } = await setUp((_request, index) => (index === 0 ? new Promise<number>(() => {}) : 200));
  const first = await startServer(admin!.databaseUrl);
  server = first.child;
  await updateThrough(first.base, token, 'Before the crash');
  const [inFlight] = await receiver!.waitFor(1);
  await kill(first.child);

  expect(await deliveryRows()).toEqual([expect.objectContaining({ status: 'pending', attempts: 0 })]);

  const second = await startServer(admin!.databaseUrl);
  server = second.child;
  const [, redelivered] = await receiver!.waitFor(2, 10_000);
  expect(redelivered!.headers['webhook-id']).toBe(inFlight!.headers['webhook-id']);
  expect(redelivered!.json).toMatchObject({ type: 'campaign.updated', data: { title: 'Before the crash' } });
  await expect
    .poll(deliveryRows, { timeout: 5000 })
    .toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
}, 40_000);

it('delivers after a restart an event committed just before a SIGKILL', async () => {
  const { token } = await setUp(() => 200);
  const first = await startServer(admin!.databaseUrl);
  server = first.child;
  // Several changes, then an immediate kill: some deliveries may have gone out, the rest had not started.
  await Promise.all(['a', 'b', 'c', 'd', 'e'].map((title) => updateThrough(first.base, token, title)));
  await kill(first.child);
  const before = new Set(receiver!.received.map((r) => r.headers['webhook-id']));

  const second = await startServer(admin!.databaseUrl);
  server = second.child;
  await expect
    .poll(deliveryRows, { timeout: 10_000 })
    .toEqual(Array.from({ length: 5 }, () => expect.objectContaining({ status: 'succeeded' })));
  const ids = new Set(receiver!.received.map((r) => r.headers['webhook-id']));
  expect(ids.size).toBe(5);
  for (const id of before) expect(ids.has(id)).toBe(true);
  expect(new Set(receiver!.received.map((r) => r.json.data.title))).toEqual(new Set(['a', 'b', 'c', 'd', 'e']));
}, 40_000);
