// Webhook URLs whose IPv6 address embeds a private, loopback or metadata IPv4 address are refused at registration on
// both doors (the same guard judges every resolved address at delivery: test/domain/webhook-targets.test.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  ({ token } = await t.account());
});
afterAll(() => t.close());

const HOSTILE = [
  'http://[::169.254.169.254]/latest/meta-data',
  'http://[::127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[2002:7f00:1::]/',
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
];

it.each(HOSTILE)('REST create_webhook refuses %s with a 422 at body.url', async (url) => {
  const reply = await t.rest('POST', '/create_webhook', { token, body: { url } });
  expect(reply.status).toBe(422);
  expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'url'], type: 'value_error' })]);
  expect(reply.body.detail[0].msg).toMatch(/loopback|link-local/);
});

it.each(HOSTILE)('GraphQL createWebhook refuses %s with BAD_USER_INPUT', async (url) => {
  const reply = await t.gql(
    'mutation ($url: String!) { createWebhook(input: { url: $url }) { webhookId } }',
    { url },
    token,
  );
  expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
});

it('accepts an IPv6 form of a public IPv4 address (NAT64)', async () => {
  const reply = await t.rest('POST', '/create_webhook', { token, body: { url: 'http://[64:ff9b::808:808]/hook' } });
  expect(reply.status, reply.text).toBe(200);
});
