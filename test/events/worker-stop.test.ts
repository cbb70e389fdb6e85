// A stopping worker (shutdown) waits a moment for attempts in flight, then cuts them without recording an outcome:
// shutdown stays within its 5 s, and the delivery, still leased, is attempted again (same webhook-id) once its lease
// runs out — as after a crash (test/events/crash-recovery.test.ts).
import { expect, it } from 'vitest';
import { campaignModelData } from '../helpers/campaigns.js';
import { logCapture } from '../helpers/log-lines.js';
import { webhookTestBed } from '../helpers/receiver.js';

const bed = webhookTestBed();

it('cuts an attempt still in flight after a 1 s grace and records nothing, so the delivery goes again', async () => {
  let release: (status: number) => void = () => undefined;
  const receiver = await bed.receiver(() => new Promise<number>((resolve) => (release = resolve)));
  const { stream, lines } = logCapture();
  const t = await bed.start(
    { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', WEBHOOK_TIMEOUT_SECONDS: '30', LOG_LEVEL: 'info' },
    {
      worker: { pollMs: 20 },
      logStream: stream,
    },
  );
  const { token } = await t.account();
  const update = () =>
    t.rest('POST', '/update_campaign', { token, body: { campId: 'spring', campaignModelData: campaignModelData() } });
  expect((await update()).status).toBe(200);
  const created = await t.gql(
    `mutation ($u: String!) { createWebhook(input: { url: $u }) { webhookId } }`,
    { u: receiver.url },
    token,
  );
  const webhookId = created.body.data.createWebhook.webhookId as string;
  await t.gql(
    `mutation ($w: String!) { attachWebhook(webhookId: $w, campId: "spring") { webhookId } }`,
    { w: webhookId },
    token,
  );
  expect((await update()).status).toBe(200);
  await expect.poll(() => receiver.received.length, { timeout: 3000 }).toBe(1);

  const started = performance.now();
  await t.app.close();
  const took = performance.now() - started;
  expect(took).toBeGreaterThan(900);
  expect(took).toBeLessThan(2500);
  release(200); // too late: the attempt was cut
  // Nothing recorded (no failed attempt, no error): the lease will run out and the delivery go again.
  expect(lines.filter((line) => line.level >= 40).map((line) => line.msg)).toEqual([]);
  bed.closedByTest();
}, 15_000);
