// An account's change events reach only that account's webhooks, even when another account has a campaign of the
// same campId with a webhook attached (campIds are unique per account only).
import { expect, it } from 'vitest';
import { campaignModelData } from '../helpers/campaigns.js';
import { webhookTestBed } from '../helpers/receiver.js';

const bed = webhookTestBed();

it("A's update of campaign `spring` reaches A's receiver only; B, with its own `spring` and webhook, gets no delivery row", async () => {
  const t = await bed.start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, { worker: { pollMs: 20 } });
  const app = t;
  const tenant = async () => {
    const account = await app.account();
    const receiver = await bed.receiver();
    const update = (title: string) =>
      app.rest('POST', '/update_campaign', {
        token: account.token,
        body: { campId: 'spring', campaignModelData: campaignModelData({ title }) },
      });
    return { account, receiver, update };
  };
  const attachWebhook = async (owner: Awaited<ReturnType<typeof tenant>>) => {
    const created = await app.rest('POST', '/create_webhook', {
      token: owner.account.token,
      body: { url: owner.receiver.url },
    });
    expect(created.status, created.text).toBe(200);
    const webhookId = created.body.webhookId as string;
    const attached = await app.rest('POST', `/add_webhook_campaingn?webhookId=${webhookId}&campaignId=spring`, {
      token: owner.account.token,
    });
    expect(attached.status, attached.text).toBe(200);
    return webhookId;
  };
  const a = await tenant();
  const b = await tenant();
  // Both campaigns exist before either webhook is attached: the only event raised with webhooks attached is A's update.
  expect((await a.update('A created it')).status).toBe(200);
  expect((await b.update('B created it')).status).toBe(200);
  const aWebhook = await attachWebhook(a);
  const bWebhook = await attachWebhook(b);

  expect((await a.update('A renamed it')).status).toBe(200);
  // The delivery rows are written in the update's transaction: they are all there once it has answered.
  const rows = await app.app.database.db
    .selectFrom('webhook_deliveries')
    .select(['account_id', 'webhook_id'])
    .execute();
  expect(rows.filter((row) => row.webhook_id === bWebhook)).toEqual([]);
  expect(rows.filter((row) => row.account_id === b.account.id)).toEqual([]);
  expect(rows).toEqual([{ account_id: a.account.id, webhook_id: aWebhook }]);

  const [received] = await a.receiver.waitFor(1);
  expect(received?.json.data.title).toBe('A renamed it');
  expect(a.receiver.received).toHaveLength(1);
  expect(b.receiver.received).toHaveLength(0);
});
