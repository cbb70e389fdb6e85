// Event types as an enum (docs/graphql.md): Webhook.eventTypes, WebhookDelivery.eventType, CampaignEvent.eventType
// and the eventTypes inputs, beside the deprecated string fields they replace, which keep working for a release.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';

let t: TestApp;
let token: string;
beforeEach(async () => {
  t = await startApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
  ({ token } = await t.account());
});
afterEach(() => t.close());

const CREATE = `mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { webhookId eventTypes events } }`;

it('createWebhook takes eventTypes and shows them as the enum and, deprecated, as strings', async () => {
  const reply = await t.gql(CREATE, { input: { url: 'http://127.0.0.1:9/x', eventTypes: ['CALL_ENDED'] } }, token);
  expect(reply.body.errors, reply.text).toBeUndefined();
  expect(reply.body.data.createWebhook).toMatchObject({ eventTypes: ['CALL_ENDED'], events: ['call.ended'] });

  const old = await t.gql(CREATE, { input: { url: 'http://127.0.0.1:9/y', events: ['meeting.booked'] } }, token);
  expect(old.body.data.createWebhook).toMatchObject({ eventTypes: ['MEETING_BOOKED'], events: ['meeting.booked'] });

  const both = await t.gql(
    CREATE,
    { input: { url: 'http://127.0.0.1:9/z', events: ['call.ended'], eventTypes: ['CALL_ENDED'] } },
    token,
  );
  expect(both.body.errors?.[0].extensions.code, both.text).toBe('BAD_USER_INPUT');
  expect(both.body.errors?.[0].extensions.issues[0].path).toContain('eventTypes');
});

it('updateWebhook takes eventTypes; deliveries and their eventType follow', async () => {
  await createLegacyCampaign(t, token, 'spring');
  const created = await t.gql(CREATE, { input: { url: 'http://127.0.0.1:9/x', eventTypes: ['CALL_ENDED'] } }, token);
  const webhookId = created.body.data.createWebhook.webhookId as string;
  const updated = await t.gql(
    `mutation ($id: String!) { updateWebhook(webhookId: $id, patch: { eventTypes: [CAMPAIGN_UPDATED] }) { eventTypes } }`,
    { id: webhookId },
    token,
  );
  expect(updated.body.data.updateWebhook, updated.text).toEqual({ eventTypes: ['CAMPAIGN_UPDATED'] });
  await t.gql(`mutation { attachWebhook(webhookId: "${webhookId}", campId: "spring") { webhookId } }`, {}, token);
  await createLegacyCampaign(t, token, 'spring');

  const deliveries = await t.gql(
    `{ webhooks { deliveries(first: 5) { edges { node { eventType event } } } } }`,
    {},
    token,
  );
  expect(deliveries.body.data.webhooks[0].deliveries.edges.map((e: { node: unknown }) => e.node)).toEqual([
    { eventType: 'CAMPAIGN_UPDATED', event: 'campaign.updated' },
  ]);
});

it('the string fields are deprecated in favour of the enum ones, which carry a description per value', async () => {
  const reply = await t.gql(
    `{ webhook: __type(name: "Webhook") { fields(includeDeprecated: true) { name deprecationReason } }
       event: __type(name: "CampaignEvent") { fields(includeDeprecated: true) { name deprecationReason } }
       eventType: __type(name: "EventType") { enumValues { name description } } }`,
  );
  const reasonOf = (type: { fields: Array<{ name: string; deprecationReason: string | null }> }, name: string) =>
    type.fields.find((f) => f.name === name)?.deprecationReason;
  expect(reasonOf(reply.body.data.webhook, 'events')).toBe('Use eventTypes.');
  expect(reasonOf(reply.body.data.webhook, 'eventTypes')).toBeNull();
  expect(reasonOf(reply.body.data.event, 'type')).toBe('Use eventType.');
  const values = reply.body.data.eventType.enumValues as Array<{ name: string; description: string }>;
  expect(values.map((v) => v.name).sort()).toEqual([
    'CALL_ENDED',
    'CAMPAIGN_STATUS_CHANGED',
    'CAMPAIGN_UPDATED',
    'MEETING_BOOKED',
    'SOCIAL_MESSAGE_RECEIVED',
  ]);
  for (const value of values) expect(value.description).toMatch(/^`[a-z_.]+`: /);
});
