// A 422 raised by a rule the resolver applies (after the route's own body schema passed) reports its `loc` in the
// legacy body's terms: starting with "body", naming the field as the legacy client sent it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';

let t: TestApp;
let user: Awaited<ReturnType<TestApp['account']>>;
beforeAll(async () => {
  t = await startApp();
  user = await t.account();
  await createLegacyCampaign(t, user.token, 'spring');
});
afterAll(() => t.close());

it('create_webhook: a private target (the SSRF guard) → loc ["body", "url"]', async () => {
  const reply = await t.rest('POST', '/create_webhook', { token: user.token, body: { url: 'http://10.0.0.7/hook' } });
  expect(reply.status).toBe(422);
  expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([['body', 'url']]);
});

it('text_pipeline_configuration: a private postWebhook → loc ["body", "postWebhook"]', async () => {
  const reply = await t.rest('POST', '/text_pipeline_configuration?campId=spring', {
    token: user.token,
    body: { goal: 'Book a follow-up', postWebhook: 'http://192.168.1.20/in' },
  });
  expect(reply.status, reply.text).toBe(422);
  expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([['body', 'postWebhook']]);
});

it('social_webhook: more than 1000 messages in one delivery → loc ["body", "entry"]', async () => {
  const connected = await t.rest('POST', '/add_social_info', {
    token: user.token,
    body: { pageId: 'p', accessToken: 'access-token-123', verifyToken: 'verify-token-123' },
  });
  expect(connected.status).toBe(200);
  const messaging = Array.from({ length: 1001 }, (_, i) => ({ sender: { id: 's' }, message: { mid: `m${i}` } }));
  const reply = await t.rest('POST', `/social_webhook/${user.apiKey}/spring`, {
    body: { object: 'page', entry: [{ messaging }] },
  });
  expect(reply.status).toBe(422);
  expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([['body', 'entry']]);
});
