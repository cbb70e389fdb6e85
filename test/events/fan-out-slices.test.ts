// Fan-out in bounded slices (docs/webhooks.md "Fan-out"): one social delivery of 1 000 messages to a campaign with 50
// webhooks is 50 000 deliveries. It is answered at once, its events commit with its messages, and the delivery rows
// are written by the worker a slice at a time, so the event loop is never held for long; the account's pending cap
// holds, the rest are listed as failed with the reason, and the refusal is logged once.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { capReason, countFanOuts, PENDING_DELIVERIES_PER_ACCOUNT } from '../../src/domain/fan-outs.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { eventually } from '../helpers/eventually.js';
import { logCapture } from '../helpers/log-lines.js';
import { webhookTestBed } from '../helpers/receiver.js';
import { attachNewWebhook } from '../helpers/webhooks.js';
import { collectGarbageNow } from '../helpers/full-collection.js';

const CAMP = 'busy';
const WEBHOOKS = 50;
const MESSAGES = 1000;
/**
 * The longest the event loop may be held (wall clock, perf_hooks.monitorEventLoopDelay) while the batch is answered
 * and fanned out. Without slices it was held 8–11 s on an idle machine (all 50 000 rows in the request's transaction).
 * With them a slice takes 10–70 ms of CPU; but on this 2-core machine shared by a dozen busy processes (load 15–20)
 * the request's own stall (parsing and storing 1 000 messages) took 150–330 ms of CPU and up to 1.4 s of wall clock,
 * so the bounds leave room for that load and still fail, by several times, without slices.
 */
const MAX_LOOP_DELAY_MS = 3000;
/** The most CPU time (this process's, user + system) spent in one stall of the event loop: what load inflates least. */
const MAX_STALL_CPU_MS = 1000;

/** Records every stall of the event loop longer than 50 ms: its wall-clock length and the CPU time spent in it. */
function stallMonitor() {
  const stalls: Array<{ ms: number; cpuMs: number }> = [];
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    if (now - last > 50) stalls.push({ ms: now - last, cpuMs: (cpu.user + cpu.system) / 1000 });
    last = now;
    lastCpu = process.cpuUsage();
  }, 5);
  return { stalls, stop: () => clearInterval(timer) };
}

const bed = webhookTestBed();

it('1 000 messages × 50 webhooks: answered, written in slices with the loop never held long, capped at the pending limit, refusal logged once', async () => {
  const logs = logCapture();
  const t = await bed.start(
    { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', LOG_LEVEL: 'warn' },
    {
      worker: { pollMs: 20 },
      logStream: logs.stream,
    },
  );
  // The receiver holds every request: nothing leaves the pending state, so the counts below are exact.
  const receiver = await bed.receiver(() => new Promise<number>(() => undefined));
  const app = t;
  const { token, apiKey, id: accountId } = await app.account();
  const campaign = await app.rest('POST', '/update_campaign', {
    token,
    body: { campId: CAMP, campaignModelData: campaignModelData() },
  });
  expect(campaign.status, campaign.text).toBe(200);
  const social = await app.rest('POST', '/add_social_info', {
    token,
    body: { pageId: 'page-1', accessToken: 'EAAB-access-token-0123', verifyToken: 'verify-token-0123' },
  });
  expect(social.status, social.text).toBe(200);
  for (let i = 0; i < WEBHOOKS; i++) await attachNewWebhook(app, token, CAMP, `${receiver.url}?n=${i}`);

  const body = JSON.stringify({
    object: 'page',
    entry: [
      {
        messaging: Array.from({ length: MESSAGES }, (_, i) => ({
          sender: { id: `customer-${i % 7}` },
          timestamp: 1700000000000 + i * 1000,
          message: { mid: `m.${i}`, text: `text of message ${i}` },
        })),
      },
    ],
  });

  // What earlier test files of this worker left is collected before the measurement, not in it (a major collection
  // of it once held the loop 940 ms, 1.8 s of CPU across V8's threads, in CI).
  collectGarbageNow();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const monitor = stallMonitor();
  const started = performance.now();
  const reply = await app.rest('POST', `/social_webhook/${encodeURIComponent(apiKey)}/${CAMP}`, {
    raw: body,
    headers: { 'content-type': 'application/json' },
  });
  const answeredMs = performance.now() - started;
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toEqual({ received: MESSAGES });

  const { db } = app.app.database;
  // The events committed with the messages; their delivery rows follow, slice by slice.
  const events = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('type', '=', 'social.message.received')
    .executeTakeFirstOrThrow();
  expect(Number(events.n)).toBe(MESSAGES);
  await eventually(async () => expect(await countFanOuts(db)).toBe(0), 120_000);
  const expandedMs = performance.now() - started;
  // Timers run once more before the measurement ends: a stall just before it would otherwise go unrecorded.
  await new Promise((resolve) => setTimeout(resolve, 100));
  delay.disable();
  monitor.stop();
  // perf_hooks' histogram, and the monitor's own view (the histogram has been seen to miss one long stall).
  const maxDelayMs = Math.max(delay.max / 1e6, ...monitor.stalls.map((stall) => stall.ms));
  const maxStallCpuMs = Math.max(0, ...monitor.stalls.map((stall) => stall.cpuMs));
  console.info(
    `fan-out of ${MESSAGES * WEBHOOKS}: answered in ${answeredMs.toFixed(0)} ms, rows written in ${expandedMs.toFixed(0)} ms; ` +
      `event loop delay max ${maxDelayMs.toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms; ` +
      `${monitor.stalls.length} stalls over 50 ms, the most CPU in one ${maxStallCpuMs.toFixed(0)} ms`,
  );
  expect(maxDelayMs).toBeLessThan(MAX_LOOP_DELAY_MS);
  expect(maxStallCpuMs).toBeLessThan(MAX_STALL_CPU_MS);

  // Exactly the cap is pending (some may have had an attempt time out, still pending); the rest are listed, unsent.
  const byStatus = await db
    .selectFrom('webhook_deliveries')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where((eb) =>
      eb.or([eb('status', '=', 'pending'), eb('last_error', '=', capReason(PENDING_DELIVERIES_PER_ACCOUNT))]),
    )
    .groupBy('status')
    .execute();
  expect(Object.fromEntries(byStatus.map((row) => [row.status, Number(row.n)]))).toEqual({
    pending: PENDING_DELIVERIES_PER_ACCOUNT,
    failed: MESSAGES * WEBHOOKS - PENDING_DELIVERIES_PER_ACCOUNT,
  });
  // A refused delivery can be redelivered once the backlog has gone out, not while the account is at its cap.
  const refused = await db
    .selectFrom('webhook_deliveries')
    .select('delivery_id')
    .where('account_id', '=', accountId)
    .where('status', '=', 'failed')
    .executeTakeFirstOrThrow();
  const redeliver = await app.gql(
    'mutation ($id: String!) { webhookDeliveryRedeliver(input: { deliveryId: $id }) { delivery { status } } }',
    { id: refused.delivery_id },
    token,
  );
  expect(redeliver.body.errors?.[0]).toMatchObject({
    message: `The account already has ${PENDING_DELIVERIES_PER_ACCOUNT} deliveries pending; redeliver once they have gone out`,
    extensions: { code: 'CONFLICT' },
  });

  const refusals = logs.lines.filter((line) => line.msg.startsWith('webhook deliveries refused'));
  expect(refusals).toHaveLength(1);
  expect(refusals[0]).toMatchObject({ level: 40, cap: PENDING_DELIVERIES_PER_ACCOUNT });
}, 180_000);
