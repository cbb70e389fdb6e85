// A delivery whose lease ran out while its attempt was still in flight is taken up again (docs/decisions.md §9), and from
// then on the outcome is the new lease holder's to record: the late outcome of the first attempt must not overwrite
// it (attempts, status, response code, next attempt). The worker writes an outcome only while the row still names
// its lease: the same owner AND the same lease end (src/domain/deliveries.ts recordAttempt).
//
// No real waiting for a lease to run out: a worker's clock is moved past it (WEBHOOK_TIMEOUT_SECONDS 5 makes the
// lease 8.5 s), while the receiver holds the first attempt open.
import { afterEach, expect, it } from 'vitest';
import { DIALECT, startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

const ENV = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', WEBHOOK_TIMEOUT_SECONDS: '5', WEBHOOK_RETRY_SCHEDULE: '60' };
const SECOND = 1000;
/** Past the lease (1.5 × 5 s + 1 s). */
const PAST_LEASE = 10 * SECOND;

const apps: TestApp[] = [];
let receiver: Receiver | undefined;
/** Answers the receiver still holds: given on teardown, so no worker waits for them. */
const held = new Map<number, (status: number) => void>();

afterEach(async () => {
  for (const answer of held.values()) answer(200);
  held.clear();
  for (const app of apps.splice(0).reverse()) await app.close();
  await receiver?.close();
  receiver = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A receiver that holds request `index` open until `answer(index, status)` (the others: `others`). */
async function holdingReceiver(holding: number[], others = 200) {
  receiver = await startReceiver((_request, index) =>
    holding.includes(index) ? new Promise<number>((resolve) => held.set(index, resolve)) : others,
  );
  return {
    receiver,
    answer(index: number, status: number) {
      held.get(index)!(status);
      held.delete(index);
    },
  };
}

async function start(clock: () => number, databaseUrl?: string): Promise<TestApp> {
  const app = await startApp(ENV, [], { worker: { pollMs: 20, clock }, ...(databaseUrl ? { databaseUrl } : {}) });
  apps.push(app);
  return app;
}

/** An account whose campaign "spring" has a webhook to `url`; returns a function that changes the campaign. */
async function campaignWithWebhook(app: TestApp, url: string) {
  const { token } = await app.account();
  const update = async (title: string) => {
    const reply = await app.rest('POST', '/update_campaign', {
      token,
      body: { campId: 'spring', campaignModelData: campaignModelData({ title }) },
    });
    expect(reply.status, reply.text).toBe(200);
  };
  await update('Created');
  const created = await app.gql(
    'mutation ($url: String!) { createWebhook(input: { url: $url }) { webhookId } }',
    { url },
    token,
  );
  expect(created.body.errors, created.text).toBeUndefined();
  const attached = await app.gql(
    'mutation ($w: String!) { attachWebhook(webhookId: $w, campId: "spring") { webhookId } }',
    { w: created.body.data.createWebhook.webhookId },
    token,
  );
  expect(attached.body.errors, attached.text).toBeUndefined();
  return update;
}

const deliveryRow = (app: TestApp) =>
  app.app.database.db
    .selectFrom('webhook_deliveries')
    .select(['status', 'attempts', 'last_response_code', 'last_error', 'next_attempt_at', 'lease_owner'])
    .executeTakeFirstOrThrow()
    .then((row) => ({ ...row, attempts: Number(row.attempts) }));

/** How many outcomes (recordAttempt's UPDATE, whether or not it changed a row) this app's worker has written. */
const outcomeWrites = (app: TestApp) =>
  app.queries.filter((sql) => sql.startsWith('update "webhook_deliveries"') && sql.includes('"attempts"')).length;

it('a worker that takes over its own delivery after the lease ran out: the first attempt’s late outcome is dropped', async () => {
  let offset = 0;
  const app = await start(() => Date.now() + offset);
  const { receiver: r, answer } = await holdingReceiver([0, 1]);
  const update = await campaignWithWebhook(app, r.url);

  await update('Renamed');
  await r.waitFor(1);
  const firstLease = await deliveryRow(app);
  expect(firstLease).toMatchObject({ status: 'pending', attempts: 0, lease_owner: expect.any(String) });

  // The lease runs out (on the worker's clock) with the first attempt still open: the worker takes it up again.
  offset = PAST_LEASE;
  const [first, second] = await r.waitFor(2);
  expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
  const secondLease = await deliveryRow(app);
  expect(secondLease.lease_owner).toBe(firstLease.lease_owner);
  expect(secondLease.next_attempt_at).not.toBe(firstLease.next_attempt_at);

  // The first attempt ends now, in failure: written under the lease that ran out, it changes nothing.
  const writes = outcomeWrites(app);
  answer(0, 500);
  await expect.poll(() => outcomeWrites(app)).toBe(writes + 1);
  expect(await deliveryRow(app)).toEqual(secondLease);

  // The second attempt's outcome is the one recorded.
  answer(1, 200);
  await expect.poll(() => deliveryRow(app)).toMatchObject({ status: 'succeeded' });
  expect(await deliveryRow(app)).toEqual({
    status: 'succeeded',
    attempts: 1,
    last_response_code: 200,
    last_error: null,
    next_attempt_at: null,
    lease_owner: null,
  });
  await sleep(200);
  expect(r.received).toHaveLength(2);
});

// Two instances on one database is the PostgreSQL deployment (see multi-instance.test.ts).
it.runIf(DIALECT === 'postgres')(
  'another instance takes the delivery over and records a failure: the first worker’s late success does not overwrite it',
  async () => {
    const first = await start(Date.now);
    const { receiver: r, answer } = await holdingReceiver([0], 500);
    const update = await campaignWithWebhook(first, r.url);

    await update('Renamed');
    await r.waitFor(1);
    expect(await deliveryRow(first)).toMatchObject({ status: 'pending', attempts: 0, lease_owner: expect.any(String) });

    // A second instance, whose clock is past the first one's lease, takes the delivery over; its attempt fails.
    const second = await start(() => Date.now() + PAST_LEASE, first.databaseUrl);
    await r.waitFor(2);
    await expect
      .poll(() => deliveryRow(first))
      .toMatchObject({ status: 'pending', attempts: 1, last_response_code: 500, lease_owner: null });
    const recorded = await deliveryRow(first);
    expect(recorded.last_error).toBe('Receiver answered 500');
    expect(Date.parse(recorded.next_attempt_at!)).toBeGreaterThan(Date.now() + PAST_LEASE + 50 * SECOND);
    expect(outcomeWrites(second)).toBe(1);

    // The first instance's attempt now succeeds, too late: its lease is gone, and so is its say.
    const writes = outcomeWrites(first);
    answer(0, 200);
    await expect.poll(() => outcomeWrites(first)).toBe(writes + 1);
    expect(await deliveryRow(first)).toEqual(recorded);
  },
);
