// Webhook URLs whose IPv6 address embeds a private, loopback or metadata IPv4 address are refused at registration on
// both doors, and a host name that resolves to such an address is refused at delivery (DNS rebinding): the guarded
// lookup of src/events/http-post.ts judges every answer with the same rules (test/domain/webhook-targets.test.ts).
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/eventually.js';

const HOSTILE = [
  ['http://[::169.254.169.254]/latest/meta-data', '::a9fe:a9fe embeds 169.254.169.254, a link-local address'],
  ['http://[::127.0.0.1]/', '::7f00:1 embeds 127.0.0.1, a loopback address'],
  ['http://[::ffff:7f00:1]/', '::ffff:7f00:1 embeds 127.0.0.1, a loopback address'],
  ['http://[::FFFF:127.0.0.1]/', '::ffff:7f00:1 embeds 127.0.0.1, a loopback address'],
  ['http://[::ffff:0:a00:1]/', '::ffff:0:a00:1 embeds 10.0.0.1, a private address'],
  ['http://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe embeds 169.254.169.254, a link-local address'],
  ['http://[64:ff9b:1::7f00:1]/', '64:ff9b:1::7f00:1 embeds 127.0.0.1, a loopback address'],
  ['http://[2002:7f00:1::]/', '2002:7f00:1:: embeds 127.0.0.1, a loopback address'],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'embeds 127.0.0.1, a loopback address'],
];

describe('registration', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp();
    ({ token } = await t.account());
  });
  afterAll(() => t.close());

  it.each(HOSTILE)('REST create_webhook refuses %s with a 422 at body.url', async (url, reason) => {
    const reply = await t.rest('POST', '/create_webhook', { token, body: { url } });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'url'], type: 'value_error', input: url }),
    ]);
    expect(reply.body.detail[0].msg).toContain(reason);
  });

  it.each(HOSTILE)('GraphQL createWebhook refuses %s with BAD_USER_INPUT', async (url, reason) => {
    const reply = await t.gql(
      'mutation ($url: String!) { createWebhook(input: { url: $url }) { webhookId } }',
      { url },
      token,
    );
    expect(reply.body.data).toBeNull();
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(reply.body.errors?.[0]?.message).toContain(reason);
  });

  it.each(['http://[64:ff9b::808:808]/hook', 'http://[2001:4860:4860::8888]/hook', 'http://[2002:808:808::1]/hook'])(
    'accepts %s (an IPv6 form of a public IPv4 address, or none) on both doors',
    async (url) => {
      const rest = await t.rest('POST', '/create_webhook', { token, body: { url } });
      expect(rest.status, rest.text).toBe(200);
      const gql = await t.gql(
        'mutation ($url: String!) { createWebhook(input: { url: $url }) { webhookId } }',
        { url },
        token,
      );
      expect(gql.body.errors).toBeUndefined();
    },
  );
});

describe('delivery to a name that resolves to an IPv6 form of a loopback address', () => {
  // Names under .rebind.test resolve (for this file only) to the address in their first label; the worker's guarded
  // lookup calls node:dns's lookup, which is replaced here and given back afterwards.
  const ANSWERS: Record<string, string> = {
    'mapped.rebind.test': '::ffff:127.0.0.1',
    'nat64.rebind.test': '64:ff9b::7f00:1',
    'compatible.rebind.test': '::7f00:1',
  };
  const realLookup = dns.lookup;
  const fakeLookup = ((hostname: string, options: any, callback: any) => {
    const answer = ANSWERS[hostname];
    if (!answer) return (realLookup as any)(hostname, options, callback);
    const cb = typeof options === 'function' ? options : callback;
    const all = typeof options === 'object' && options?.all;
    process.nextTick(() => (all ? cb(null, [{ address: answer, family: 6 }]) : cb(null, answer, 6)));
  }) as typeof dns.lookup;

  let t: TestApp;
  let receiver: Receiver;
  beforeAll(() => {
    dns.lookup = fakeLookup;
    syncBuiltinESMExports();
  });
  afterAll(() => {
    dns.lookup = realLookup;
    syncBuiltinESMExports();
  });
  afterEach(async () => {
    await t?.close();
    await receiver?.close();
  });

  it.each(Object.entries(ANSWERS))('%s (→ %s) passes registration but is never delivered to', async (name, address) => {
    t = await startApp({ WEBHOOK_RETRY_SCHEDULE: '0.05' }, [], { worker: { pollMs: 50 } });
    const { token } = await t.account();
    receiver = await startReceiver(() => 200);
    const url = receiver.url.replace('127.0.0.1', name);

    const campaign = { campId: 'spring', campaignModelData: campaignModelData() };
    expect((await t.rest('POST', '/update_campaign', { token, body: campaign })).status).toBe(200);
    const created = await t.rest('POST', '/create_webhook', { token, body: { url } });
    expect(created.status, created.text).toBe(200);
    const { webhookId } = created.body as { webhookId: string };
    const attach = `/add_webhook_campaingn?webhookId=${webhookId}&campaignId=spring`;
    expect((await t.rest('POST', attach, { token })).status).toBe(200);
    campaign.campaignModelData = campaignModelData({ title: 'Rebound' });
    expect((await t.rest('POST', '/update_campaign', { token, body: campaign })).status).toBe(200);

    const delivery = await eventually(async () => {
      const reply = await t.gql(
        `query ($id: String!) { webhook(webhookId: $id) { deliveries(first: 5) { edges { node {
           status attempts lastResponseCode lastError } } } } }`,
        { id: webhookId },
        token,
      );
      const [first] = reply.body.data.webhook.deliveries.edges.map((e: any) => e.node);
      expect(first?.status).toBe('FAILED');
      return first;
    });
    expect(delivery).toMatchObject({ attempts: 2, lastResponseCode: null });
    expect(delivery.lastError).toBe(
      `Target refused: ${name} resolves to ${address}, which embeds 127.0.0.1, a loopback address`,
    );
    expect(receiver.received).toHaveLength(0);
  });
});
