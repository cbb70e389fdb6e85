// Global ids (docs/graphql.md, "Global ids"): unique across accounts, opaque, refetchable with node/nodes by their
// owner only (anyone else gets null, as for a missing object); the campaign ids issued before still work for a release.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

let t: TestApp;
let a: { token: string; id: string; apiKey: string };
let b: { token: string; id: string; apiKey: string };

beforeEach(async () => {
  t = await startApp();
  a = await t.account('a@example.com');
  b = await t.account('b@example.com');
  await createLegacyCampaign(t, a.token, 'spring');
  await createLegacyCampaign(t, b.token, 'spring');
});
afterEach(() => t.close());

const campaignIdOf = async (token: string, campId: string): Promise<string> => {
  const reply = await t.gql<{ campaign: { id: string } }>(`{ campaign(campId: "${campId}") { id } }`, {}, token);
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data!.campaign.id;
};

const NODE = 'query ($id: ID!) { node(id: $id) { __typename id ... on Campaign { campId } } }';
const NODES = 'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Campaign { campId } } }';

describe('campaign ids', () => {
  it('two accounts with the same campId get different ids', async () => {
    expect(await campaignIdOf(a.token, 'spring')).not.toBe(await campaignIdOf(b.token, 'spring'));
  });

  it('node refetches by the id the connection gave; the same id asked by another account is null', async () => {
    const listed = await t.gql('{ campaigns(first: 5) { edges { node { id campId } } } }', {}, a.token);
    const id = listed.body.data.campaigns.edges[0].node.id as string;
    const own = await t.gql(NODE, { id }, a.token);
    expect(own.body.data.node).toEqual({ __typename: 'Campaign', id, campId: 'spring' });
    const other = await t.gql(NODE, { id }, b.token);
    expect(other.body.errors, other.text).toBeUndefined();
    expect(other.body.data.node).toBeNull();
  });

  it('nodes answers each id in order, null for the ones that are not the caller’s', async () => {
    const mine = await campaignIdOf(a.token, 'spring');
    const theirs = await campaignIdOf(b.token, 'spring');
    const reply = await t.gql(NODES, { ids: [theirs, mine, theirs] }, a.token);
    expect(reply.body.errors, reply.text).toBeUndefined();
    expect(reply.body.data.nodes).toEqual([null, { __typename: 'Campaign', id: mine, campId: 'spring' }, null]);
  });

  it('an id made before global ids (Campaign:<campId>) still names the caller’s own campaign', async () => {
    const legacy = Buffer.from('Campaign:spring').toString('base64');
    for (const account of [a, b]) {
      const reply = await t.gql(NODE, { id: legacy }, account.token);
      expect(reply.body.data.node, reply.text).toEqual({
        __typename: 'Campaign',
        id: await campaignIdOf(account.token, 'spring'),
        campId: 'spring',
      });
    }
  });
});

/** Gives account `a` one object of every kind that has an identity, and returns their ids by type. */
async function everyKindOfA(): Promise<Record<string, string>> {
  await connectTelephony(t, a.token);
  const call = await sendCallback(t, a.apiKey, 'spring', { CallSid: 'CA1', CallStatus: 'completed' });
  expect(call.status, call.text).toBe(200);
  const calendar = await t.rest('POST', '/add_calendar_info', {
    token: a.token,
    body: { apiKey: 'cal-key-1234', schedulingUrl: 'https://cal.example.com/me' },
  });
  expect(calendar.status, calendar.text).toBe(200);
  const meeting = await t.gql(
    `mutation { bookMeeting(input: { campId: "spring", title: "Intro", startsAt: "2030-01-01T10:00:00Z",
       endsAt: "2030-01-01T10:30:00Z", participants: [{ name: "Ann", email: "ann@example.com" }] }) { meetingId } }`,
    {},
    a.token,
  );
  expect(meeting.body.errors, meeting.text).toBeUndefined();
  const social = await t.rest('POST', '/add_social_info', {
    token: a.token,
    body: { pageId: 'page-1', accessToken: 'social-access-token', verifyToken: 'verify-token-1' },
  });
  expect(social.status, social.text).toBe(200);
  const inbound = await t.request('POST', `/api/v3/social_webhook/${a.apiKey}/spring`, {
    body: {
      entry: [{ messaging: [{ sender: { id: 'u1' }, timestamp: 1700000000, message: { mid: 'm.1', text: 'Hi' } }] }],
    },
  });
  expect(inbound.status, inbound.text).toBe(200);
  const pipeline = await t.rest('POST', '/text_pipeline_configuration?campId=spring', {
    token: a.token,
    body: { goal: 'Book a follow-up' },
  });
  expect(pipeline.status, pipeline.text).toBe(200);
  const webhook = await t.gql(
    `mutation { createWebhook(input: { url: "https://hooks.example.com/a" }) { webhookId } }`,
    {},
    a.token,
  );
  const webhookId = webhook.body.data?.createWebhook?.webhookId;
  expect(webhookId, webhook.text).toMatch(/^wh_/);
  const attached = await t.gql(
    `mutation { attachWebhook(webhookId: "${webhookId}", campId: "spring") { webhookId } }`,
    {},
    a.token,
  );
  expect(attached.body.errors, attached.text).toBeUndefined();
  await createLegacyCampaign(t, a.token, 'spring');

  const ids = await t.gql(
    `{ viewer { id } voices { id }
       campaign(campId: "spring") {
         id textPipeline { id } meetings { id }
         callLogs(first: 1) { edges { node { id } } }
         socialMessages(first: 1) { edges { node { id } } }
       }
       webhooks { id deliveries(first: 1) { edges { node { id } } } } }`,
    {},
    a.token,
  );
  expect(ids.body.errors, ids.text).toBeUndefined();
  const data = ids.body.data;
  return {
    Account: data.viewer.id,
    Voice: data.voices[0].id,
    Campaign: data.campaign.id,
    TextPipeline: data.campaign.textPipeline.id,
    Meeting: data.campaign.meetings[0].id,
    CallLog: data.campaign.callLogs.edges[0].node.id,
    SocialMessage: data.campaign.socialMessages.edges[0].node.id,
    Webhook: data.webhooks[0].id,
    WebhookDelivery: data.webhooks[0].deliveries.edges[0].node.id,
  };
}

describe('every object with an identity is a Node', () => {
  it('its owner refetches each by id; another account gets null for all but the shared catalogue', async () => {
    const ids = await everyKindOfA();
    const typenames = Object.keys(ids);
    const own = await t.gql(
      'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
      { ids: Object.values(ids) },
      a.token,
    );
    expect(own.body.errors, own.text).toBeUndefined();
    expect(own.body.data.nodes).toEqual(typenames.map((typename) => ({ __typename: typename, id: ids[typename] })));

    const other = await t.gql(
      'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
      { ids: Object.values(ids) },
      b.token,
    );
    expect(other.body.errors, other.text).toBeUndefined();
    expect(other.body.data.nodes).toEqual(
      typenames.map((typename) => (typename === 'Voice' ? { __typename: 'Voice', id: ids.Voice } : null)),
    );
  });

  it('ids are unique across accounts for objects whose own keys are chosen per account', async () => {
    await connectTelephony(t, a.token);
    await connectTelephony(t, b.token);
    for (const account of [a, b]) {
      const reply = await sendCallback(t, account.apiKey, 'spring', { CallSid: 'CA-same', CallStatus: 'completed' });
      expect(reply.status, reply.text).toBe(200);
    }
    const idOf = async (token: string) =>
      (await t.gql('{ callLogs(first: 1) { edges { node { id } } } }', {}, token)).body.data.callLogs.edges[0].node.id;
    expect(await idOf(a.token)).not.toBe(await idOf(b.token));
  });
});

describe('connection types', () => {
  it('are named after their node and shared by every field that lists that node', async () => {
    const typeOf = async (type: string, field: string) => {
      const reply = await t.gql(
        `{ __type(name: "${type}") { fields { name type { ofType { name } } } } }`,
        {},
        a.token,
      );
      return reply.body.data.__type.fields.find((f: { name: string }) => f.name === field).type.ofType.name;
    };
    expect(await typeOf('Query', 'campaigns')).toBe('CampaignConnection');
    expect(await typeOf('Query', 'callLogs')).toBe('CallLogConnection');
    expect(await typeOf('Campaign', 'callLogs')).toBe('CallLogConnection');
    expect(await typeOf('Campaign', 'socialMessages')).toBe('SocialMessageConnection');
    expect(await typeOf('Webhook', 'deliveries')).toBe('WebhookDeliveryConnection');
    expect(await typeOf('TextPipeline', 'deliveries')).toBe('WebhookDeliveryConnection');
  });
});

describe('the account', () => {
  it('REST sign-up still answers the acc_ id; GraphQL has it as accountId, and id is the global id', async () => {
    const signup = await t.rest('POST', '/signup', { body: { email: 'c@example.com', password: 'a long password' } });
    expect(signup.status, signup.text).toBe(200);
    expect(signup.body.id).toMatch(/^acc_/);
    const login = await t.rest('POST', '/login', { body: { username: 'c@example.com', password: 'a long password' } });
    const viewer = await t.gql('{ viewer { id accountId } }', {}, login.body.access_token);
    expect(viewer.body.data.viewer.accountId).toBe(signup.body.id);
    expect(Buffer.from(viewer.body.data.viewer.id, 'base64').toString()).toBe(`Account:${signup.body.id}`);
  });
});
