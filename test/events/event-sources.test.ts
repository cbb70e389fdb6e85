// Every event type of docs/decisions.md §9 is raised by its source and reaches the webhooks attached to its campaign, with
// the body {id, type, createdAt, data}: campaign.updated (REST update_campaign, GraphQL updateCampaign and
// upsertCampaign), campaign.status_changed (pause, resume, complete), call.ended (the telephony callback that makes a
// call terminal, once), social.message.received (once per new message) and meeting.booked. Also: who gets what
// (event filters, detached, other campaign, disabled) and the outbox's atomicity (a failed change raises nothing; a
// committed one has exactly its event row and one delivery row per attached webhook).
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput, campaignModelData } from '../helpers/campaigns.js';
import { type Received, type Receiver, startReceiver } from '../helpers/receiver.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

const ENV = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.05,0.05' };
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** How long to wait before concluding that nothing more arrives (the worker polls every 50 ms). */
const QUIET_MS = 300;

let t: TestApp;
let token: string;
let apiKey: string;
let accountId: string;
let receivers: Receiver[] = [];

beforeEach(async () => {
  t = await startApp(ENV, [], { worker: { pollMs: 50 } });
  ({ token, apiKey, id: accountId } = await t.account());
});

afterEach(async () => {
  await t?.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function receiver(respond: Receiver['respond'] = () => 200): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** Runs a GraphQL operation that must succeed; returns its data. */
async function gql(query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const reply = await t.gql(query, variables, token);
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  return reply.body.data;
}

async function createCampaign(campId: string, title = 'Spring outreach') {
  const reply = await t.rest('POST', '/update_campaign', {
    token,
    body: { campId, campaignModelData: campaignModelData({ title }) },
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function createWebhook(url: string, events?: string[]): Promise<{ webhookId: string; secret: string }> {
  const data = await gql(
    `mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhookId secret } }`,
    { input: { url, ...(events ? { events } : {}) } },
  );
  return data.createWebhook;
}

async function attach(webhookId: string, campId: string) {
  await gql(`mutation ($w: String!, $c: String!) { attachWebhook(webhookId: $w, campId: $c) { webhookId } }`, {
    w: webhookId,
    c: campId,
  });
}

async function detach(webhookId: string, campId: string) {
  await gql(`mutation ($w: String!, $c: String!) { detachWebhook(webhookId: $w, campId: $c) { webhookId } }`, {
    w: webhookId,
    c: campId,
  });
}

/** A receiver with a webhook (all events unless `events`) attached to each of `campIds`. */
async function hookedReceiver(campIds: string[], events?: string[]) {
  const r = await receiver();
  const webhook = await createWebhook(r.url, events);
  for (const campId of campIds) await attach(webhook.webhookId, campId);
  return { receiver: r, ...webhook };
}

const UPDATE_CAMPAIGN = `mutation ($c: String!, $patch: UpdateCampaignInput!) {
  updateCampaign(campId: $c, patch: $patch) { campId title } }`;
const updateCampaign = (campId: string, title: string) => gql(UPDATE_CAMPAIGN, { c: campId, patch: { title } });

const transition = (action: 'pause' | 'resume' | 'complete', campId: string) =>
  gql(`mutation ($c: String!) { ${action}Campaign(campId: $c) { campId status } }`, { c: campId });

/** Checks the Standard Webhooks envelope of one request and returns its parsed body. */
function envelope(request: Received, type: string): any {
  expect(request.headers['content-type']).toContain('application/json');
  const body = request.json;
  expect(Object.keys(body).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
  expect(body.id).toMatch(/^evt_/);
  expect(body.type).toBe(type);
  expect(body.createdAt).toMatch(ISO_UTC);
  expect(String(request.headers['webhook-id'])).toMatch(/^msg_/);
  expect(String(request.headers['webhook-timestamp'])).toMatch(/^\d+$/);
  expect(String(request.headers['webhook-signature'])).toMatch(/^v1,/);
  return body;
}

const eventRows = () =>
  t.app.database.db.selectFrom('events').selectAll().orderBy('created_at').orderBy('event_id').execute();
const deliveryRows = () => t.app.database.db.selectFrom('webhook_deliveries').selectAll().execute();

describe('campaign.updated', () => {
  beforeEach(() => createCampaign('spring'));

  it('is raised by REST POST /update_campaign, with the stored campaign as data', async () => {
    const { receiver: r } = await hookedReceiver(['spring']);
    const reply = await t.rest('POST', '/update_campaign', {
      token,
      body: { campId: 'spring', campaignModelData: campaignModelData({ title: 'Renamed', tone: 'calm' }) },
    });
    expect(reply.status, reply.text).toBe(200);
    const [request] = await r.waitFor(1);
    const body = envelope(request!, 'campaign.updated');
    expect(body.data).toMatchObject({
      campId: 'spring',
      title: 'Renamed',
      tone: 'calm',
      voice: 'en-US-aria',
      language: 'en-US',
      status: 'active',
    });
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);
  });

  it('is raised by GraphQL updateCampaign: data has the patched field and the others unchanged', async () => {
    const { receiver: r } = await hookedReceiver(['spring']);
    await updateCampaign('spring', 'Patched');
    const [request] = await r.waitFor(1);
    const body = envelope(request!, 'campaign.updated');
    expect(body.data).toMatchObject({
      campId: 'spring',
      title: 'Patched',
      tone: 'friendly',
      script: 'Hello, this is Aria calling about your appointment.',
      status: 'active',
    });
  });

  it('is raised by GraphQL upsertCampaign, for an existing and for a new campaign', async () => {
    const { receiver: r } = await hookedReceiver(['spring']);
    await gql(
      `mutation ($c: String!, $data: CampaignDataInput!) { upsertCampaign(campId: $c, data: $data) { campId } }`,
      { c: 'spring', data: campaignInput({ title: 'Upserted', tone: 'warm' }) },
    );
    const [request] = await r.waitFor(1);
    const body = envelope(request!, 'campaign.updated');
    expect(body.data).toMatchObject({ campId: 'spring', title: 'Upserted', tone: 'warm', status: 'active' });

    // A campaign created by upsert raises it too (for its own campaign; nothing is attached to it yet).
    await gql(
      `mutation ($c: String!, $data: CampaignDataInput!) { upsertCampaign(campId: $c, data: $data) { campId } }`,
      {
        c: 'fresh',
        data: campaignInput({ title: 'Fresh' }),
      },
    );
    const fresh = (await eventRows()).filter((row) => row.camp_id === 'fresh');
    expect(fresh.map((row) => row.type)).toEqual(['campaign.updated']);
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);
  });
});

describe('campaign.status_changed', () => {
  it('is raised by pauseCampaign, resumeCampaign and completeCampaign with status and previousStatus', async () => {
    await createCampaign('spring');
    const { receiver: r } = await hookedReceiver(['spring']);
    const steps: Array<['pause' | 'resume' | 'complete', string, string]> = [
      ['pause', 'paused', 'active'],
      ['resume', 'active', 'paused'],
      ['pause', 'paused', 'active'],
      ['complete', 'completed', 'paused'],
    ];
    for (const [index, [action, status, previousStatus]] of steps.entries()) {
      await transition(action, 'spring');
      const received = await r.waitFor(index + 1);
      const body = envelope(received[index]!, 'campaign.status_changed');
      expect(body.data).toMatchObject({ campId: 'spring', title: 'Spring outreach', status, previousStatus });
    }
    // A refused transition (completed is terminal) raises nothing.
    const refused = await t.gql(`mutation { resumeCampaign(campId: "spring") { status } }`, {}, token);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(steps.length);
  });
});

describe('call.ended', () => {
  const SID = 'CA00000000000000000000000000000042';
  const params = (status: string, extra: Record<string, string> = {}) => ({
    CallSid: SID,
    CallStatus: status,
    From: '+14155550100',
    To: '+14155550199',
    Direction: 'outbound-api',
    ...extra,
  });

  it('is raised exactly once, by the callback that makes the call terminal', async () => {
    await connectTelephony(t, token);
    await createCampaign('calls');
    const { receiver: r } = await hookedReceiver(['calls']);

    for (const status of ['queued', 'ringing', 'in-progress']) {
      const reply = await sendCallback(t, apiKey, 'calls', params(status));
      expect(reply.status, reply.text).toBe(200);
    }
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(0);

    const completed = params('completed', { CallDuration: '42', Price: '-0.0125' });
    expect((await sendCallback(t, apiKey, 'calls', completed)).status).toBe(200);
    const [request] = await r.waitFor(1);
    const body = envelope(request!, 'call.ended');
    expect(body.data).toMatchObject({
      callId: SID,
      campaignId: 'calls',
      status: 'completed',
      durationSeconds: 42,
      cost: 0.0125,
      endedAt: expect.stringMatching(ISO_UTC),
    });

    // A repeated terminal callback, another terminal status, and a late non-terminal one raise nothing more.
    for (const late of [completed, params('failed'), params('ringing'), completed]) {
      expect((await sendCallback(t, apiKey, 'calls', late)).status).toBe(200);
    }
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);
    expect((await eventRows()).filter((row) => row.type === 'call.ended')).toHaveLength(1);
  });

  it('a call whose first callback is already terminal raises it once too', async () => {
    await connectTelephony(t, token);
    await createCampaign('calls');
    const { receiver: r } = await hookedReceiver(['calls']);
    expect((await sendCallback(t, apiKey, 'calls', params('busy', { CallSid: 'CA-busy' }))).status).toBe(200);
    const [request] = await r.waitFor(1);
    expect(envelope(request!, 'call.ended').data).toMatchObject({ callId: 'CA-busy', status: 'busy' });
    expect((await sendCallback(t, apiKey, 'calls', params('busy', { CallSid: 'CA-busy' }))).status).toBe(200);
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);
  });
});

describe('social.message.received', () => {
  const envelopeOf = (...mids: string[]) => ({
    object: 'page',
    entry: [
      {
        messaging: mids.map((mid, index) => ({
          sender: { id: `u-${mid}` },
          timestamp: 1700000000000 + index * 1000,
          message: { mid, text: `text of ${mid}` },
        })),
      },
    ],
  });

  const postSocial = (body: unknown) =>
    t.rest('POST', `/social_webhook/${encodeURIComponent(apiKey)}/social`, {
      raw: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });

  it('is raised once per new message; re-sending the envelope raises nothing new', async () => {
    await createCampaign('social');
    const connected = await t.rest('POST', '/add_social_info', {
      token,
      body: { pageId: 'page-1', accessToken: 'EAAB-access-token-0123', verifyToken: 'verify-token-0123' },
    });
    expect(connected.status, connected.text).toBe(200);
    const { receiver: r } = await hookedReceiver(['social']);

    const first = await postSocial(envelopeOf('m.1', 'm.2'));
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ received: 2 });
    const requests = await r.waitFor(2);
    const bodies = requests.map((request) => envelope(request, 'social.message.received'));
    expect(bodies.map((body) => body.data.messageId).sort()).toEqual(['m.1', 'm.2']);
    expect(new Set(bodies.map((body) => body.id)).size).toBe(2);
    const m1 = bodies.find((body) => body.data.messageId === 'm.1');
    expect(m1.data).toMatchObject({
      messageId: 'm.1',
      campaignId: 'social',
      sender: 'u-m.1',
      text: 'text of m.1',
      receivedAt: '2023-11-14T22:13:20.000Z',
    });

    const again = await postSocial(envelopeOf('m.1', 'm.2'));
    expect(again.body).toEqual({ received: 0 });
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(2);

    // One known and one new message: one event, for the new one.
    const mixed = await postSocial(envelopeOf('m.2', 'm.3'));
    expect(mixed.body).toEqual({ received: 1 });
    const [, , third] = await r.waitFor(3);
    expect(envelope(third!, 'social.message.received').data.messageId).toBe('m.3');
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(3);
    expect((await eventRows()).filter((row) => row.type === 'social.message.received')).toHaveLength(3);
  });
});

describe('meeting.booked', () => {
  it('is raised by bookMeeting once the calendar is connected', async () => {
    await createCampaign('meet');
    const { receiver: r } = await hookedReceiver(['meet']);
    const BOOK = `mutation ($input: BookMeetingInput!) { bookMeeting(input: $input) { meetingId } }`;
    const input = {
      campId: 'meet',
      title: 'Intro call',
      startsAt: '2030-01-01T10:00:00Z',
      endsAt: '2030-01-01T10:30:00Z',
      participants: [{ name: 'Ann Lee', email: 'ann@example.com' }],
    };

    // Without the calendar: CONFLICT, and no event.
    const refused = await t.gql(BOOK, { input }, token);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    const connected = await t.rest('POST', '/add_calendar_info', {
      token,
      body: { apiKey: 'cal-key-1234', schedulingUrl: 'https://cal.example.com/me' },
    });
    expect(connected.status, connected.text).toBe(200);
    const { meetingId } = (await gql(BOOK, { input })).bookMeeting;

    const [request] = await r.waitFor(1);
    const body = envelope(request!, 'meeting.booked');
    expect(body.data).toMatchObject({
      meetingId,
      campaignId: 'meet',
      title: 'Intro call',
      startsAt: '2030-01-01T10:00:00.000Z',
      endsAt: '2030-01-01T10:30:00.000Z',
      participants: [{ name: 'Ann Lee', email: 'ann@example.com', phone: null }],
    });
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);
  });
});

describe('who receives an event', () => {
  it("a webhook with events ['call.ended'] gets only call.ended", async () => {
    await connectTelephony(t, token);
    await createCampaign('spring');
    const only = await hookedReceiver(['spring'], ['call.ended']);
    const all = await hookedReceiver(['spring']);

    await updateCampaign('spring', 'One');
    await all.receiver.waitFor(1);
    await transition('pause', 'spring');
    await all.receiver.waitFor(2);
    const callback = await sendCallback(t, apiKey, 'spring', { CallSid: 'CA-1', CallStatus: 'completed' });
    expect(callback.status, callback.text).toBe(200);
    const everything = await all.receiver.waitFor(3);
    expect(everything.map((request) => request.json.type)).toEqual([
      'campaign.updated',
      'campaign.status_changed',
      'call.ended',
    ]);

    const [request] = await only.receiver.waitFor(1);
    expect(envelope(request!, 'call.ended').data).toMatchObject({ callId: 'CA-1', status: 'completed' });
    await sleep(QUIET_MS);
    expect(only.receiver.received).toHaveLength(1);
    // Both got the same event.
    expect(request!.json.id).toBe(everything[2]!.json.id);
  });

  it('a detached webhook gets nothing more', async () => {
    await createCampaign('spring');
    const leaving = await hookedReceiver(['spring']);
    const staying = await hookedReceiver(['spring']);

    await updateCampaign('spring', 'Before');
    await leaving.receiver.waitFor(1);
    await staying.receiver.waitFor(1);

    await detach(leaving.webhookId, 'spring');
    await updateCampaign('spring', 'After');
    await transition('pause', 'spring');
    const later = await staying.receiver.waitFor(3);
    expect(later.map((request) => request.json.data.title)).toEqual(['Before', 'After', 'After']);
    await sleep(QUIET_MS);
    expect(leaving.receiver.received).toHaveLength(1);
    expect(leaving.receiver.received[0]!.json.data.title).toBe('Before');
  });

  it('a webhook attached to campaign X gets nothing of campaign Y', async () => {
    await createCampaign('x');
    await createCampaign('y');
    const onX = await hookedReceiver(['x']);
    const onY = await hookedReceiver(['y']);

    await updateCampaign('y', 'Y changed');
    await transition('pause', 'y');
    await onY.receiver.waitFor(2);
    await sleep(QUIET_MS);
    expect(onX.receiver.received).toHaveLength(0);

    await updateCampaign('x', 'X changed');
    const [request] = await onX.receiver.waitFor(1);
    expect(envelope(request!, 'campaign.updated').data).toMatchObject({ campId: 'x', title: 'X changed' });
    await sleep(QUIET_MS);
    expect(onX.receiver.received).toHaveLength(1);
    expect(onY.receiver.received).toHaveLength(2);
    expect(onY.receiver.received.every((req) => req.json.data.campId === 'y')).toBe(true);
  });

  it('a disabled webhook gets nothing; enabled again, it gets what follows', async () => {
    await createCampaign('spring');
    const off = await hookedReceiver(['spring']);
    const control = await hookedReceiver(['spring']);

    const disabled = await gql(
      `mutation ($w: String!, $patch: UpdateWebhookInput!) { updateWebhook(webhookId: $w, patch: $patch) { enabled } }`,
      { w: off.webhookId, patch: { enabled: false } },
    );
    expect(disabled.updateWebhook.enabled).toBe(false);

    await updateCampaign('spring', 'While disabled');
    await transition('pause', 'spring');
    await control.receiver.waitFor(2);
    await sleep(QUIET_MS);
    expect(off.receiver.received).toHaveLength(0);

    await gql(
      `mutation ($w: String!, $patch: UpdateWebhookInput!) { updateWebhook(webhookId: $w, patch: $patch) { enabled } }`,
      { w: off.webhookId, patch: { enabled: true } },
    );
    await transition('resume', 'spring');
    const [request] = await off.receiver.waitFor(1);
    expect(envelope(request!, 'campaign.status_changed').data).toMatchObject({
      status: 'active',
      previousStatus: 'paused',
    });
    await sleep(QUIET_MS);
    expect(off.receiver.received).toHaveLength(1);
  });

  it('two webhooks on one campaign each get the event: different webhook-id, same body and event id', async () => {
    await createCampaign('spring');
    const a = await hookedReceiver(['spring']);
    const b = await hookedReceiver(['spring']);
    await updateCampaign('spring', 'Both');
    const [fromA] = await a.receiver.waitFor(1);
    const [fromB] = await b.receiver.waitFor(1);

    expect(fromA!.headers['webhook-id']).not.toBe(fromB!.headers['webhook-id']);
    expect(fromA!.json.id).toBe(fromB!.json.id);
    expect(fromA!.body).toBe(fromB!.body);
    // Each is signed with its own webhook's secret (checked with the reference library).
    const verify = (secret: string, request: Received) =>
      new StandardWebhook(secret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      });
    expect(verify(a.secret, fromA!)).toMatchObject({ type: 'campaign.updated', data: { title: 'Both' } });
    expect(verify(b.secret, fromB!)).toMatchObject({ type: 'campaign.updated', data: { title: 'Both' } });
    expect(() => verify(b.secret, fromA!)).toThrow();
  });
});

describe('the outbox is written with the change', () => {
  it('a change that fails raises nothing: updates of a completed campaign are CONFLICT', async () => {
    await createCampaign('done');
    const { receiver: r } = await hookedReceiver(['done']);
    await transition('complete', 'done');
    await r.waitFor(1);
    const eventsBefore = await eventRows();
    const deliveriesBefore = await deliveryRows();

    const patch = await t.gql(UPDATE_CAMPAIGN, { c: 'done', patch: { title: 'Too late' } }, token);
    expect(patch.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const upsert = await t.gql(
      `mutation ($c: String!, $data: CampaignDataInput!) { upsertCampaign(campId: $c, data: $data) { campId } }`,
      { c: 'done', data: campaignInput({ title: 'Too late' }) },
      token,
    );
    expect(upsert.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const rest = await t.rest('POST', '/update_campaign', {
      token,
      body: { campId: 'done', campaignModelData: campaignModelData({ title: 'Too late' }) },
    });
    expect(rest.status, rest.text).toBe(409);
    const pause = await t.gql(`mutation { pauseCampaign(campId: "done") { status } }`, {}, token);
    expect(pause.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    expect(await eventRows()).toEqual(eventsBefore);
    expect(await deliveryRows()).toHaveLength(deliveriesBefore.length);
    await sleep(QUIET_MS);
    expect(r.received).toHaveLength(1);
    const campaign = await gql(`query { campaign(campId: "done") { title status } }`);
    expect(campaign.campaign).toEqual({ title: 'Spring outreach', status: 'COMPLETED' });
  });

  it('a committed change has one event row and one delivery row per attached webhook', async () => {
    await createCampaign('spring');
    await createCampaign('other');
    const a = await hookedReceiver(['spring']);
    const b = await hookedReceiver(['spring', 'other']);
    await hookedReceiver(['other']);
    const c = await hookedReceiver([]);
    const before = new Set((await eventRows()).map((row) => row.event_id));

    await updateCampaign('spring', 'Committed');
    const added = (await eventRows()).filter((row) => !before.has(row.event_id));
    expect(added).toHaveLength(1);
    const [event] = added;
    expect(event).toMatchObject({ account_id: accountId, camp_id: 'spring', type: 'campaign.updated' });
    const payload = JSON.parse(event!.payload);
    expect(payload).toEqual({
      id: event!.event_id,
      type: 'campaign.updated',
      createdAt: event!.created_at,
      data: expect.objectContaining({ campId: 'spring', title: 'Committed' }),
    });

    const deliveries = (await deliveryRows()).filter((row) => row.event_id === event!.event_id);
    expect(deliveries.map((row) => row.webhook_id).sort()).toEqual([a.webhookId, b.webhookId].sort());
    expect(deliveries.every((row) => row.camp_id === 'spring' && row.account_id === accountId)).toBe(true);

    // And what the receivers get is that row's payload, byte for byte.
    const [fromA] = await a.receiver.waitFor(1);
    const [fromB] = await b.receiver.waitFor(1);
    expect(fromA!.body).toBe(event!.payload);
    expect(fromB!.body).toBe(event!.payload);
    expect([String(fromA!.headers['webhook-id']), String(fromB!.headers['webhook-id'])].sort()).toEqual(
      deliveries.map((row) => row.delivery_id).sort(),
    );
    await sleep(QUIET_MS);
    expect(c.receiver.received).toHaveLength(0);
  });
});
