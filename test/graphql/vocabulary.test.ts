// One name per concept (docs/graphql.md#one-vocabulary): `campId` for a campaign wherever it appears, `createdAt` for
// creation times, `voiceId` for a voice id, enums for closed sets. The old names stay, deprecated, with the same values.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
  const account = await t.account();
  token = account.token;
  await connectTelephony(t, token);
  await createLegacyCampaign(t, token, 'spring');
  for (const [sid, direction] of [
    ['CA1', 'inbound'],
    ['CA2', 'outbound-api'],
    ['CA3', 'Outbound-Dial'],
    ['CA4', 'trunking-originating'],
    ['CA5', undefined],
  ] as const) {
    const params: Record<string, string> = { CallSid: sid, CallStatus: 'completed' };
    if (direction) params.Direction = direction;
    const reply = await sendCallback(t, account.apiKey, 'spring', params);
    expect(reply.status, reply.text).toBe(200);
  }
});
afterAll(() => t.close());

async function ok(query: string) {
  const reply = await t.gql(query, {}, token);
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data;
}

it('Campaign.createdAt is the creation time (creationDate is its deprecated alias)', async () => {
  const { campaign } = await ok('{ campaign(campId: "spring") { createdAt creationDate } }');
  expect(campaign.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  expect(campaign.creationDate).toBe(campaign.createdAt);
});

it('CallLog.campId names the campaign (campaignId is its deprecated alias)', async () => {
  const { callLogs } = await ok('{ callLogs(first: 10) { edges { node { campId campaignId } } } }');
  for (const { node } of callLogs.edges) expect(node).toEqual({ campId: 'spring', campaignId: 'spring' });
});

it("CallLog.callDirection is an enum of the provider's Direction (anything else OTHER, none null)", async () => {
  const { callLogs } = await ok('{ callLogs(first: 10) { edges { node { callId callDirection direction } } } }');
  const byId = Object.fromEntries(callLogs.edges.map(({ node }: { node: { callId: string } }) => [node.callId, node]));
  expect(byId).toEqual({
    CA1: { callId: 'CA1', callDirection: 'INBOUND', direction: 'inbound' },
    CA2: { callId: 'CA2', callDirection: 'OUTBOUND_API', direction: 'outbound-api' },
    CA3: { callId: 'CA3', callDirection: 'OUTBOUND_DIAL', direction: 'Outbound-Dial' },
    CA4: { callId: 'CA4', callDirection: 'OTHER', direction: 'trunking-originating' },
    CA5: { callId: 'CA5', callDirection: null, direction: null },
  });
});

it('the public schema uses campaignId and creationDate only as deprecated fields', async () => {
  const { __schema } = await ok(
    '{ __schema { types { name fields(includeDeprecated: true) { name isDeprecated } } } }',
  );
  const drifting = __schema.types.flatMap(
    (type: { name: string; fields: { name: string; isDeprecated: boolean }[] | null }) =>
      (type.fields ?? [])
        .filter((field) => ['campaignId', 'creationDate'].includes(field.name) && !field.isDeprecated)
        .map((field) => `${type.name}.${field.name}`),
  );
  expect(drifting).toEqual([]);
});
