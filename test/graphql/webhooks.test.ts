// Webhooks over GraphQL (docs/decisions.md §9, §10): createWebhook, node refetch, webhooks / webhook, updateWebhook,
// deleteWebhook, attachWebhook / detachWebhook with Campaign.webhooks and Webhook.campaigns, Webhook.deliveries,
// redeliverWebhookDelivery, tenant isolation, authentication and the SQL cost of Campaign.webhooks.
// Delivery itself (signatures, retries, 410) is covered by test/events/webhook-delivery.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type StartOptions, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/eventually.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const PUBLIC_URL = 'https://hooks.example.com/x';

const WEBHOOK = /* GraphQL */ `
  fragment W on Webhook {
    id
    webhookId
    url
    events
    description
    enabled
    secret
    createdAt
  }
`;

const CREATE = /* GraphQL */ `
  mutation Create($input: CreateWebhookInput!) {
    createWebhook(input: $input) {
      ...W
    }
  }
  ${WEBHOOK}
`;
const UPDATE = /* GraphQL */ `
  mutation Update($webhookId: String!, $patch: UpdateWebhookInput!) {
    updateWebhook(webhookId: $webhookId, patch: $patch) {
      ...W
      disabledReason
      updatedAt
    }
  }
  ${WEBHOOK}
`;
const DELETE = /* GraphQL */ `
  mutation Delete($webhookId: String!) {
    deleteWebhook(webhookId: $webhookId) {
      ...W
    }
  }
  ${WEBHOOK}
`;
const ATTACH = /* GraphQL */ `
  mutation Attach($webhookId: String!, $campId: String!) {
    attachWebhook(webhookId: $webhookId, campId: $campId) {
      webhookId
      campaigns {
        campId
      }
    }
  }
`;
const DETACH = /* GraphQL */ `
  mutation Detach($webhookId: String!, $campId: String!) {
    detachWebhook(webhookId: $webhookId, campId: $campId) {
      webhookId
      campaigns {
        campId
      }
    }
  }
`;
const LIST = /* GraphQL */ `
  query List {
    webhooks {
      ...W
    }
  }
  ${WEBHOOK}
`;
const GET = /* GraphQL */ `
  query Get($webhookId: String!) {
    webhook(webhookId: $webhookId) {
      ...W
      campaigns {
        campId
      }
    }
  }
  ${WEBHOOK}
`;
const NODE = /* GraphQL */ `
  query Node($id: ID!) {
    node(id: $id) {
      id
      __typename
      ... on Webhook {
        webhookId
        url
        secret
      }
    }
  }
`;
const CAMPAIGN_WEBHOOKS = /* GraphQL */ `
  query CampaignWebhooks($campId: String!) {
    campaign(campId: $campId) {
      webhooks {
        webhookId
      }
    }
  }
`;
const DELIVERIES = /* GraphQL */ `
  query Deliveries($webhookId: String!) {
    webhook(webhookId: $webhookId) {
      deliveries(first: 20) {
        edges {
          cursor
          node {
            deliveryId
            webhookId
            campId
            event
            status
            attempts
            lastResponseCode
            nextAttemptAt
          }
        }
        pageInfo {
          hasNextPage
          hasPreviousPage
        }
      }
    }
  }
`;
const REDELIVER = /* GraphQL */ `
  mutation Redeliver($deliveryId: String!) {
    redeliverWebhookDelivery(deliveryId: $deliveryId) {
      deliveryId
      webhookId
      status
      attempts
      nextAttemptAt
    }
  }
`;

interface Issue {
  path: Array<string | number>;
  message: string;
}

let t: TestApp;
let token: string;

async function start(env: Record<string, string> = {}, options: StartOptions = { worker: false }) {
  t = await startApp(env, [], options);
  ({ token } = await t.account());
}

afterEach(async () => {
  await t?.close();
});

/** Runs an operation that must succeed and returns its data. */
async function ok(query: string, variables: Record<string, unknown> = {}, as = token): Promise<any> {
  const reply = await t.gql(query, variables, as);
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  return reply.body.data;
}

/** Runs an operation that must fail and returns its first error. */
async function fails(query: string, variables: Record<string, unknown> = {}, as = token): Promise<any> {
  const reply = await t.gql(query, variables, as);
  expect(reply.body.errors, JSON.stringify(reply.body.data)).toBeDefined();
  return reply.body.errors![0];
}

/** The issues of a BAD_USER_INPUT error. */
function issuesOf(error: any): Issue[] {
  expect(error.extensions.code).toBe('BAD_USER_INPUT');
  expect(Array.isArray(error.extensions.issues)).toBe(true);
  return error.extensions.issues as Issue[];
}

const createWebhook = async (input: Record<string, unknown> = {}, as = token) =>
  (await ok(CREATE, { input: { url: PUBLIC_URL, ...input } }, as)).createWebhook;

async function createCampaign(campId: string, as = token) {
  await ok(
    'mutation ($input: CreateCampaignInput!) { createCampaign(input: $input) { campId } }',
    { input: campaignInput({ campId }) },
    as,
  );
}

const updateCampaign = (campId: string, title: string, as = token) =>
  ok(
    'mutation ($campId: String!, $patch: UpdateCampaignInput!) { updateCampaign(campId: $campId, patch: $patch) { campId } }',
    {
      campId,
      patch: { title },
    },
    as,
  );

const webhookIdsOfCampaign = async (campId: string, as = token) =>
  ((await ok(CAMPAIGN_WEBHOOKS, { campId }, as)).campaign.webhooks as Array<{ webhookId: string }>).map(
    (w) => w.webhookId,
  );

const campIdsOfWebhook = async (webhookId: string, as = token) =>
  ((await ok(GET, { webhookId }, as)).webhook.campaigns as Array<{ campId: string }>).map((c) => c.campId);

const deliveriesOf = async (webhookId: string, as = token) =>
  (await ok(DELIVERIES, { webhookId }, as)).webhook.deliveries;

describe('createWebhook', () => {
  beforeEach(async () => {
    await start();
  });

  it('returns the webhook with its signing secret', async () => {
    const webhook = await createWebhook({ events: ['call.ended', 'meeting.booked'], description: 'CRM' });
    expect(webhook).toEqual({
      id: expect.any(String),
      webhookId: expect.stringMatching(/^wh_/),
      url: PUBLIC_URL,
      events: ['call.ended', 'meeting.booked'],
      description: 'CRM',
      enabled: true,
      secret: expect.stringMatching(SECRET),
      createdAt: expect.stringMatching(ISO_UTC),
    });
    expect(Buffer.from(webhook.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });

  it('defaults to every event type and no description', async () => {
    expect(await createWebhook()).toMatchObject({ events: [], description: null });
    expect(await createWebhook({ events: [] })).toMatchObject({ events: [] });
  });

  it('deduplicates event types', async () => {
    expect((await createWebhook({ events: ['call.ended', 'call.ended'] })).events).toEqual(['call.ended']);
  });

  it('an unknown event type is BAD_USER_INPUT at its index, and nothing is stored', async () => {
    const error = await fails(CREATE, { input: { url: PUBLIC_URL, events: ['call.ended', 'call.started'] } });
    expect(issuesOf(error).map((issue) => issue.path)).toEqual([['input', 'events', 1]]);
    expect((await ok(LIST)).webhooks).toEqual([]);
  });

  it('a bad url or an over-long description is BAD_USER_INPUT', async () => {
    const ftp = issuesOf(await fails(CREATE, { input: { url: 'ftp://hooks.example.com/x' } }));
    expect(ftp.map((issue) => issue.path)).toEqual([['input', 'url']]);
    const long = issuesOf(await fails(CREATE, { input: { url: PUBLIC_URL, description: 'd'.repeat(501) } }));
    expect(long.map((issue) => issue.path)).toEqual([['input', 'description']]);
  });

  it('a private target is BAD_USER_INPUT at input.url', async () => {
    const error = await fails(CREATE, { input: { url: 'http://192.168.0.10/hook' } });
    const issues = issuesOf(error);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toEqual(['input', 'url']);
    expect(issues[0]!.message).toContain('192.168.0.10 is a private address');
  });
});

describe('reading webhooks', () => {
  beforeEach(async () => {
    await start();
  });

  it('webhooks lists them oldest first', async () => {
    const created = [];
    for (const name of ['a', 'b', 'c']) {
      created.push(await createWebhook({ description: name }));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect((await ok(LIST)).webhooks).toEqual(created);
  });

  it('webhook(webhookId) finds one, null for an unknown id', async () => {
    const created = await createWebhook({ description: 'one' });
    expect((await ok(GET, { webhookId: created.webhookId })).webhook).toEqual({ ...created, campaigns: [] });
    expect((await ok(GET, { webhookId: 'wh_unknown' })).webhook).toBeNull();
  });

  it('node(id) refetches a Webhook by its global id', async () => {
    const created = await createWebhook();
    const { node } = await ok(NODE, { id: created.id });
    expect(node).toEqual({
      id: created.id,
      __typename: 'Webhook',
      webhookId: created.webhookId,
      url: PUBLIC_URL,
      secret: created.secret,
    });
  });

  it('Webhook.deliveries is an empty connection at first', async () => {
    const { webhookId } = await createWebhook();
    expect(await deliveriesOf(webhookId)).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false },
    });
  });
});

describe('updateWebhook', () => {
  let created: any;

  beforeEach(async () => {
    await start();
    created = await createWebhook({ events: ['call.ended'], description: 'before' });
  });

  it('changes only the fields given', async () => {
    const { updateWebhook: described } = await ok(UPDATE, {
      webhookId: created.webhookId,
      patch: { description: 'after' },
    });
    expect(described).toMatchObject({ ...created, description: 'after' });

    const { updateWebhook: moved } = await ok(UPDATE, {
      webhookId: created.webhookId,
      patch: { url: 'https://other.example.com/y', events: ['meeting.booked', 'meeting.booked'] },
    });
    expect(moved).toMatchObject({
      ...created,
      url: 'https://other.example.com/y',
      events: ['meeting.booked'],
      description: 'after',
    });

    const { updateWebhook: disabled } = await ok(UPDATE, { webhookId: created.webhookId, patch: { enabled: false } });
    expect(disabled).toMatchObject({
      url: 'https://other.example.com/y',
      events: ['meeting.booked'],
      description: 'after',
      enabled: false,
      secret: created.secret,
    });
    const { updateWebhook: enabled } = await ok(UPDATE, { webhookId: created.webhookId, patch: { enabled: true } });
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null });

    // What a later read sees.
    expect((await ok(GET, { webhookId: created.webhookId })).webhook).toMatchObject({
      url: 'https://other.example.com/y',
      events: ['meeting.booked'],
      description: 'after',
      enabled: true,
      secret: created.secret,
      createdAt: created.createdAt,
    });
  });

  it('an empty patch changes nothing', async () => {
    const { updateWebhook: same } = await ok(UPDATE, { webhookId: created.webhookId, patch: {} });
    expect(same).toMatchObject(created);
  });

  it('events: [] means every type again', async () => {
    const { updateWebhook: all } = await ok(UPDATE, { webhookId: created.webhookId, patch: { events: [] } });
    expect(all.events).toEqual([]);
  });

  it('a private url is refused with BAD_USER_INPUT at patch.url, and nothing changes', async () => {
    const error = await fails(UPDATE, {
      webhookId: created.webhookId,
      patch: { url: 'http://169.254.169.254/latest', description: 'changed' },
    });
    const issues = issuesOf(error);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toEqual(['patch', 'url']);
    expect(issues[0]!.message).toContain('169.254.169.254');
    expect((await ok(GET, { webhookId: created.webhookId })).webhook).toMatchObject({
      url: PUBLIC_URL,
      description: 'before',
    });
  });

  it('an unknown event type or a bad url is BAD_USER_INPUT', async () => {
    const events = issuesOf(await fails(UPDATE, { webhookId: created.webhookId, patch: { events: ['nope'] } }));
    expect(events.map((issue) => issue.path)).toEqual([['patch', 'events', 0]]);
    const url = issuesOf(await fails(UPDATE, { webhookId: created.webhookId, patch: { url: 'ftp://x.example/y' } }));
    expect(url.map((issue) => issue.path)).toEqual([['patch', 'url']]);
  });

  it('an unknown webhook is NOT_FOUND', async () => {
    const error = await fails(UPDATE, { webhookId: 'wh_unknown', patch: { description: 'x' } });
    expect(error.extensions.code).toBe('NOT_FOUND');
  });
});

describe('updateWebhook with ALLOW_PRIVATE_WEBHOOK_TARGETS=true', () => {
  it('accepts a private url', async () => {
    await start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    const created = await createWebhook();
    const { updateWebhook: moved } = await ok(UPDATE, {
      webhookId: created.webhookId,
      patch: { url: 'http://10.0.0.7/hook' },
    });
    expect(moved.url).toBe('http://10.0.0.7/hook');
  });
});

describe('deleteWebhook', () => {
  beforeEach(async () => {
    await start();
  });

  it('returns the webhook as it was, and it is gone from everywhere', async () => {
    await createCampaign('spring');
    const created = await createWebhook();
    const kept = await createWebhook();
    await ok(ATTACH, { webhookId: created.webhookId, campId: 'spring' });

    expect((await ok(DELETE, { webhookId: created.webhookId })).deleteWebhook).toEqual(created);
    expect((await ok(GET, { webhookId: created.webhookId })).webhook).toBeNull();
    expect((await ok(NODE, { id: created.id })).node).toBeNull();
    expect((await ok(LIST)).webhooks.map((w: { webhookId: string }) => w.webhookId)).toEqual([kept.webhookId]);
    expect(await webhookIdsOfCampaign('spring')).toEqual([]);

    expect((await fails(DELETE, { webhookId: created.webhookId })).extensions.code).toBe('NOT_FOUND');
  });

  it('an unknown webhook is NOT_FOUND', async () => {
    expect((await fails(DELETE, { webhookId: 'wh_unknown' })).extensions.code).toBe('NOT_FOUND');
  });
});

describe('attachWebhook / detachWebhook', () => {
  let webhookId: string;

  beforeEach(async () => {
    await start();
    await createCampaign('spring');
    await createCampaign('autumn');
    ({ webhookId } = await createWebhook());
  });

  it('attach shows in Campaign.webhooks and Webhook.campaigns; attaching twice changes nothing', async () => {
    const { attachWebhook } = await ok(ATTACH, { webhookId, campId: 'spring' });
    expect(attachWebhook).toEqual({ webhookId, campaigns: [{ campId: 'spring' }] });
    const again = await ok(ATTACH, { webhookId, campId: 'spring' });
    expect(again.attachWebhook).toEqual({ webhookId, campaigns: [{ campId: 'spring' }] });

    expect(await webhookIdsOfCampaign('spring')).toEqual([webhookId]);
    expect(await webhookIdsOfCampaign('autumn')).toEqual([]);
    expect(await campIdsOfWebhook(webhookId)).toEqual(['spring']);

    await ok(ATTACH, { webhookId, campId: 'autumn' });
    expect((await campIdsOfWebhook(webhookId)).sort()).toEqual(['autumn', 'spring']);
  });

  it('Campaign.webhooks lists every attached webhook, oldest first', async () => {
    await new Promise((resolve) => setTimeout(resolve, 2));
    const second = await createWebhook();
    await ok(ATTACH, { webhookId: second.webhookId, campId: 'spring' });
    await ok(ATTACH, { webhookId, campId: 'spring' });
    expect(await webhookIdsOfCampaign('spring')).toEqual([webhookId, second.webhookId]);
  });

  it('detach removes the attachment; detaching one that is not attached is harmless', async () => {
    await ok(ATTACH, { webhookId, campId: 'spring' });
    await ok(ATTACH, { webhookId, campId: 'autumn' });

    const { detachWebhook } = await ok(DETACH, { webhookId, campId: 'spring' });
    expect(detachWebhook).toEqual({ webhookId, campaigns: [{ campId: 'autumn' }] });
    expect(await webhookIdsOfCampaign('spring')).toEqual([]);
    expect(await webhookIdsOfCampaign('autumn')).toEqual([webhookId]);

    const again = await ok(DETACH, { webhookId, campId: 'spring' });
    expect(again.detachWebhook).toEqual({ webhookId, campaigns: [{ campId: 'autumn' }] });
    expect(await campIdsOfWebhook(webhookId)).toEqual(['autumn']);
  });

  it('unknown webhooks and campaigns are NOT_FOUND', async () => {
    for (const query of [ATTACH, DETACH]) {
      const noWebhook = await fails(query, { webhookId: 'wh_unknown', campId: 'spring' });
      expect(noWebhook.extensions.code).toBe('NOT_FOUND');
      expect(noWebhook.message).toBe('Webhook not found');
      const noCampaign = await fails(query, { webhookId, campId: 'nope' });
      expect(noCampaign.extensions.code).toBe('NOT_FOUND');
      expect(noCampaign.message).toBe('Campaign not found');
    }
    expect(await campIdsOfWebhook(webhookId)).toEqual([]);
  });
});

describe('redeliverWebhookDelivery, with no delivery worker', () => {
  let webhookId: string;

  beforeEach(async () => {
    await start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, { worker: false });
    await createCampaign('spring');
    ({ webhookId } = await createWebhook({ url: 'http://127.0.0.1:9/hook' }));
    await ok(ATTACH, { webhookId, campId: 'spring' });
  });

  it('an unknown delivery is NOT_FOUND', async () => {
    const error = await fails(REDELIVER, { deliveryId: 'msg_unknown' });
    expect(error.extensions.code).toBe('NOT_FOUND');
  });

  it('a delivery that is still pending is CONFLICT, and stays as it was', async () => {
    await updateCampaign('spring', 'Renamed');
    const { edges } = await deliveriesOf(webhookId);
    expect(edges).toHaveLength(1);
    const pending = edges[0].node;
    expect(pending).toMatchObject({
      webhookId,
      campId: 'spring',
      event: 'campaign.updated',
      status: 'PENDING',
      attempts: 0,
      lastResponseCode: null,
      nextAttemptAt: expect.stringMatching(ISO_UTC),
    });

    const error = await fails(REDELIVER, { deliveryId: pending.deliveryId });
    expect(error.extensions.code).toBe('CONFLICT');
    expect((await deliveriesOf(webhookId)).edges.map((e: any) => e.node)).toEqual([pending]);
  });

  it("another account's delivery is NOT_FOUND, not CONFLICT", async () => {
    await updateCampaign('spring', 'Renamed');
    const [edge] = (await deliveriesOf(webhookId)).edges;
    const other = await t.account();
    const error = await fails(REDELIVER, { deliveryId: edge.node.deliveryId }, other.token);
    expect(error.extensions.code).toBe('NOT_FOUND');
  });

  it('deleting the webhook deletes its deliveries', async () => {
    await updateCampaign('spring', 'Renamed');
    const [edge] = (await deliveriesOf(webhookId)).edges;
    await ok(DELETE, { webhookId });
    expect(await t.app.database.db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
    expect((await fails(REDELIVER, { deliveryId: edge.node.deliveryId })).extensions.code).toBe('NOT_FOUND');
  });

  it('deliveries are raised only for the event types the webhook asked for', async () => {
    await ok(UPDATE, { webhookId, patch: { events: ['call.ended'] } });
    await updateCampaign('spring', 'Renamed');
    expect((await deliveriesOf(webhookId)).edges).toEqual([]);
  });
});

describe('redeliverWebhookDelivery, with the delivery worker', () => {
  let receiver: Receiver;

  beforeEach(async () => {
    await start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, { worker: { pollMs: 50 } });
    receiver = await startReceiver(() => 200);
  });

  afterEach(async () => {
    await receiver.close();
  });

  it('queues a finished delivery again with the same deliveryId, and it is sent again with the same webhook-id', async () => {
    await createCampaign('spring');
    const { webhookId } = await createWebhook({ url: receiver.url });
    await ok(ATTACH, { webhookId, campId: 'spring' });
    await updateCampaign('spring', 'Renamed');

    const [first] = await receiver.waitFor(1);
    const done = await eventually(async () => {
      const [edge] = (await deliveriesOf(webhookId)).edges;
      expect(edge.node).toMatchObject({ status: 'SUCCEEDED', attempts: 1, lastResponseCode: 200 });
      return edge.node;
    });
    expect(done.deliveryId).toBe(first!.headers['webhook-id']);

    const { redeliverWebhookDelivery: queued } = await ok(REDELIVER, { deliveryId: done.deliveryId });
    expect(queued).toEqual({
      deliveryId: done.deliveryId,
      webhookId,
      status: 'PENDING',
      attempts: 1,
      nextAttemptAt: expect.stringMatching(ISO_UTC),
    });

    const [, second] = await receiver.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(done.deliveryId);
    expect(second!.body).toBe(first!.body);
    await eventually(async () => {
      const { edges } = await deliveriesOf(webhookId);
      expect(edges).toHaveLength(1);
      expect(edges[0].node).toMatchObject({ deliveryId: done.deliveryId, status: 'SUCCEEDED', attempts: 2 });
    });
    expect(receiver.received).toHaveLength(2);
  });

  it('a delivery of a disabled webhook is CONFLICT until the webhook is enabled again', async () => {
    await createCampaign('spring');
    const { webhookId } = await createWebhook({ url: receiver.url });
    await ok(ATTACH, { webhookId, campId: 'spring' });
    await updateCampaign('spring', 'Renamed');
    await receiver.waitFor(1);
    const done = await eventually(async () => {
      const [edge] = (await deliveriesOf(webhookId)).edges;
      expect(edge.node.status).toBe('SUCCEEDED');
      return edge.node;
    });

    await ok(UPDATE, { webhookId, patch: { enabled: false } });
    expect((await fails(REDELIVER, { deliveryId: done.deliveryId })).extensions.code).toBe('CONFLICT');

    await ok(UPDATE, { webhookId, patch: { enabled: true } });
    expect((await ok(REDELIVER, { deliveryId: done.deliveryId })).redeliverWebhookDelivery.status).toBe('PENDING');
    await receiver.waitFor(2);
  });
});

describe('tenant isolation', () => {
  it("another account's webhooks are invisible, and its mutations on them are NOT_FOUND", async () => {
    await start();
    await createCampaign('spring');
    await createCampaign('only-mine');
    const mine = await createWebhook({ description: 'mine' });
    await ok(ATTACH, { webhookId: mine.webhookId, campId: 'spring' });

    const other = await t.account();
    await createCampaign('spring', other.token);
    await createCampaign('theirs', other.token);
    const theirs = await createWebhook({ description: 'theirs' }, other.token);

    // Reads.
    expect((await ok(LIST, {}, other.token)).webhooks.map((w: { webhookId: string }) => w.webhookId)).toEqual([
      theirs.webhookId,
    ]);
    expect((await ok(GET, { webhookId: mine.webhookId }, other.token)).webhook).toBeNull();
    const node = await t.gql(NODE, { id: mine.id }, other.token);
    expect(node.body.data?.node ?? null).toBeNull();
    expect(JSON.stringify(node.body)).not.toContain(mine.secret);
    expect(await webhookIdsOfCampaign('spring', other.token)).toEqual([]);

    // Mutations.
    const attempts: Array<[string, Record<string, unknown>]> = [
      [UPDATE, { webhookId: mine.webhookId, patch: { description: 'hijacked', url: 'https://evil.example.com/' } }],
      [DELETE, { webhookId: mine.webhookId }],
      [ATTACH, { webhookId: mine.webhookId, campId: 'theirs' }],
      [DETACH, { webhookId: mine.webhookId, campId: 'spring' }],
      // Its own webhook on a campaign of the owner's that it has no namesake of.
      [ATTACH, { webhookId: theirs.webhookId, campId: 'only-mine' }],
      [DETACH, { webhookId: theirs.webhookId, campId: 'only-mine' }],
    ];
    for (const [query, variables] of attempts) {
      const error = await fails(query, variables, other.token);
      expect(error.extensions.code, JSON.stringify(variables)).toBe('NOT_FOUND');
    }

    // Untouched for its owner.
    expect((await ok(GET, { webhookId: mine.webhookId })).webhook).toEqual({
      ...mine,
      campaigns: [{ campId: 'spring' }],
    });
    expect(await webhookIdsOfCampaign('spring')).toEqual([mine.webhookId]);
    expect(await webhookIdsOfCampaign('spring', other.token)).toEqual([]);
  });
});

describe('authentication', () => {
  beforeEach(async () => {
    await start();
  });

  it.each([
    ['webhooks', LIST, {}],
    ['webhook', GET, { webhookId: 'wh_x' }],
    ['createWebhook', CREATE, { input: { url: PUBLIC_URL } }],
    ['updateWebhook', UPDATE, { webhookId: 'wh_x', patch: { description: 'x' } }],
    ['deleteWebhook', DELETE, { webhookId: 'wh_x' }],
    ['attachWebhook', ATTACH, { webhookId: 'wh_x', campId: 'spring' }],
    ['detachWebhook', DETACH, { webhookId: 'wh_x', campId: 'spring' }],
    ['redeliverWebhookDelivery', REDELIVER, { deliveryId: 'msg_x' }],
  ])('%s without a token is UNAUTHENTICATED', async (field, query, variables) => {
    const reply = await t.gql(query, variables);
    expect(reply.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(reply.body.data?.[field] ?? null).toBeNull();
  });

  it('nothing was created without a token', async () => {
    await t.gql(CREATE, { input: { url: PUBLIC_URL } });
    expect(await t.app.database.db.selectFrom('webhooks').selectAll().execute()).toEqual([]);
  });
});

describe('Campaign.webhooks query cost', () => {
  const PAGE = /* GraphQL */ `
    query Page($first: Int!) {
      campaigns(first: $first) {
        edges {
          node {
            campId
            webhooks {
              webhookId
              url
              campaigns {
                campId
              }
            }
          }
        }
      }
    }
  `;

  it('is a constant number of SQL queries for a page of 10 campaigns', async () => {
    await start({}, { worker: false });
    const hooks = [await createWebhook(), await createWebhook(), await createWebhook()];
    for (let i = 0; i < 10; i++) {
      await createCampaign(`c${i}`);
      for (const hook of hooks.slice(0, (i % 3) + 1)) await ok(ATTACH, { webhookId: hook.webhookId, campId: `c${i}` });
    }

    // Webhooks come in creation order, ties (the same millisecond) by id: the account's own list says which.
    const listed = (await ok('{ webhooks { webhookId } }', {})).webhooks.map((w: { webhookId: string }) => w.webhookId);

    t.resetQueries();
    const one = await ok(PAGE, { first: 1 });
    expect(one.campaigns.edges).toHaveLength(1);
    const forOne = t.queries.length;

    t.resetQueries();
    const ten = await ok(PAGE, { first: 10 });
    const edges = ten.campaigns.edges as Array<{ node: { campId: string; webhooks: Array<{ webhookId: string }> } }>;
    expect(edges).toHaveLength(10);
    for (const { node } of edges) {
      const i = Number(node.campId.slice(1));
      const attached = new Set(hooks.slice(0, (i % 3) + 1).map((h) => h.webhookId));
      expect(node.webhooks.map((w) => w.webhookId)).toEqual(listed.filter((id: string) => attached.has(id)));
    }
    expect(t.queries.length).toBe(forOne);
    // The viewer, the page of campaigns, one batch of webhooks, their attachments, their campaigns.
    expect(t.queries.length).toBeLessThanOrEqual(6);
  });

  it('Webhook.campaigns is bounded: the first `limit` (1–200, default 200) in attachment order, per alias', async () => {
    await start({}, { worker: false });
    const hooks = [await createWebhook(), await createWebhook()];
    for (const campId of ['a', 'b', 'c']) {
      await createCampaign(campId);
      await ok(ATTACH, { webhookId: hooks[0]!.webhookId, campId });
    }
    await ok(ATTACH, { webhookId: hooks[1]!.webhookId, campId: 'b' });
    const listed = await ok(
      '{ webhooks { webhookId two: campaigns(limit: 2) { campId } all: campaigns { campId } } }',
      {},
    );
    const campIds = (list: Array<{ campId: string }>) => list.map((campaign) => campaign.campId);
    expect(
      Object.fromEntries(listed.webhooks.map((w: any) => [w.webhookId, [campIds(w.two), campIds(w.all)]])),
    ).toEqual({
      [hooks[0]!.webhookId]: [
        ['a', 'b'],
        ['a', 'b', 'c'],
      ],
      [hooks[1]!.webhookId]: [['b'], ['b']],
    });
    for (const limit of [0, 201]) {
      const reply = await t.gql(
        'query ($limit: Int!) { webhooks { campaigns(limit: $limit) { campId } } }',
        { limit },
        token,
      );
      expect(reply.body.errors?.[0].extensions.code, reply.text).toBe('BAD_USER_INPUT');
    }
    // The REST door's complete list is internal only.
    const internal = await t.gql('{ webhooks { campaignIds } }', {}, token);
    expect(internal.body.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
