// Two instances on one PostgreSQL database share the outbox: their workers lease deliveries with FOR UPDATE SKIP
// LOCKED, so 200 events are delivered exactly once between them in the normal case. PostgreSQL only: several
// instances is the PostgreSQL deployment (docs/architecture.md), and two in-process apps on one SQLite file would block each
// other (better-sqlite3 waits for a lock synchronously, on the thread the other app needs to release it).
import { afterEach, expect, it } from 'vitest';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

const apps: TestApp[] = [];
let receiver: Receiver | undefined;

afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.close();
  await receiver?.close();
});

const ENV = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' };

it.runIf(DIALECT === 'postgres')(
  'delivers each of 200 events once between two instances',
  async () => {
    const first = await startApp(ENV, [], { worker: { pollMs: 20 } });
    apps.push(first);
    const second = await startApp(ENV, [], { databaseUrl: first.databaseUrl, worker: { pollMs: 20 } });
    apps.push(second);

    receiver = await startReceiver(() => 200);
    const { token } = await first.account();
    const created = await first.gql(
      `mutation ($input: CreateCampaignInput!, $url: String!) {
       createCampaign(input: $input) { campId }
       createWebhook(input: { url: $url }) { webhookId }
     }`,
      { input: campaignInput({ campId: 'shared' }), url: receiver.url },
      token,
    );
    const { webhookId } = created.body.data.createWebhook;
    await second.gql(
      'mutation ($w: String!) { attachWebhook(webhookId: $w, campId: "shared") { webhookId } }',
      { w: webhookId },
      token,
    );

    // 10 requests of 20 updates each (one transaction, one event each), alternating instances, all at once.
    const updates = Array.from(
      { length: 20 },
      (_, i) => `u${i}: updateCampaign(campId: "shared", patch: { title: "t${i}" }) { campId }`,
    );
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? first : second).gql(`mutation { ${updates.join('\n')} }`, {}, token),
      ),
    );
    for (const reply of replies) expect(reply.body.errors).toBeUndefined();

    const received = await receiver.waitFor(200, 20_000);
    // Give a twin delivery time to show up, had there been one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(200);
    const ids = new Set(received.map((r) => r.headers['webhook-id']));
    const events = new Set(received.map((r) => r.json.id));
    expect(ids.size).toBe(200);
    expect(events.size).toBe(200);

    const rows = await first.app.database.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
    expect(rows).toHaveLength(200);
    expect(rows.every((row) => row.status === 'succeeded' && Number(row.attempts) === 1)).toBe(true);
  },
  60_000,
);
