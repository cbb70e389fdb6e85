// An account's change events reach only that account's webhooks, even when another account has a campaign of the
// same campId with a webhook attached (campIds are unique per account only).
import { afterEach, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

let t: TestApp | undefined;
const receivers: Receiver[] = [];
afterEach(async () => {
  await t?.close();
  for (const receiver of receivers.splice(0)) await receiver.close();
  t = undefined;
});

it("A's update of campaign `spring` reaches A's receiver only; B, with its own `spring` and webhook, gets no delivery row", async () => {
  t = await startApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, [], { worker: { pollMs: 20 } });
  const app = t;
  const setUp = async () => {
    const account = await app.account();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const update = (title: string) =>
      app.rest('POST', '/update_campaign', {
        token: account.token,
        body: { campId: 'spring', campaignModelData: campaignModelData({ title }) },
      });
    expect((await update('created')).status).toBe(200);
    const created = await app.rest('POST', '/create_webhook', { token: account.token, body: { url: receiver.url } });
    const webhookId = created.body.webhookId as string;
    const attached = await app.rest('POST', `/add_webhook_campaingn?webhookId=${webhookId}&campaignId=spring`, {
      token: account.token,
    });
    expect(attached.status).toBe(200);
    return { account, receiver, update, webhookId };
  };
  const a = await setUp();
  const b = await setUp();

  expect((await a.update('A renamed it')).status).toBe(200);
  const [received] = await a.receiver.waitFor(1);
  expect(received?.json.data.title).toBe('A renamed it');
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(a.receiver.received).toHaveLength(1);
  expect(b.receiver.received).toHaveLength(0);
  const rows = await app.app.database.db
    .selectFrom('webhook_deliveries')
    .select(['account_id', 'webhook_id'])
    .execute();
  expect(rows).toEqual([{ account_id: a.account.id, webhook_id: a.webhookId }]);
});
