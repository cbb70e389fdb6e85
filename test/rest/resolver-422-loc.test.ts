// A 422 raised by a rule the resolver applies (after the route's own body schema passed) reports its `loc` in the
// legacy body's terms: starting with "body", naming the field as the legacy client sent it — never the GraphQL
// argument the route's body was passed in (`input`, `body`).
import { afterEach, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A fresh app with one account that has campaign `spring`. */
async function start() {
  t = await startApp();
  const user = await t.account();
  await createLegacyCampaign(t, user.token, 'spring');
  return { app: t, user };
}

const locs = (body: { detail: Array<{ loc: unknown }> }) => body.detail.map((d) => d.loc);

it('create_webhook: a private target (the SSRF guard) → loc ["body", "url"]', async () => {
  const { app, user } = await start();
  const reply = await app.rest('POST', '/create_webhook', { token: user.token, body: { url: 'http://10.0.0.7/hook' } });
  expect(reply.status, reply.text).toBe(422);
  expect(locs(reply.body)).toEqual([['body', 'url']]);
  expect(reply.body.detail[0]).toMatchObject({ type: 'value_error', input: 'http://10.0.0.7/hook' });
  expect(reply.body.detail[0].msg).toMatch(/^Value error, webhook targets must be public/);
});

it('text_pipeline_configuration: a private postWebhook → loc ["body", "postWebhook"]', async () => {
  const { app, user } = await start();
  const reply = await app.rest('POST', '/text_pipeline_configuration?campId=spring', {
    token: user.token,
    body: { goal: 'Book a follow-up', postWebhook: 'http://192.168.1.20/in' },
  });
  expect(reply.status, reply.text).toBe(422);
  expect(locs(reply.body)).toEqual([['body', 'postWebhook']]);
  expect(reply.body.detail[0].msg).toMatch(/webhook targets must be public/);
});

it('social_webhook: more than 1000 messages in one delivery → loc ["body", "entry"]', async () => {
  const { app, user } = await start();
  const connected = await app.rest('POST', '/add_social_info', {
    token: user.token,
    body: { pageId: 'p', accessToken: 'access-token-123', verifyToken: 'verify-token-123' },
  });
  expect(connected.status, connected.text).toBe(200);
  const messaging = Array.from({ length: 1001 }, (_, i) => ({ sender: { id: 's' }, message: { mid: `m${i}` } }));
  const reply = await app.rest('POST', `/social_webhook/${user.apiKey}/spring`, {
    body: { object: 'page', entry: [{ messaging }] },
  });
  expect(reply.status, reply.text).toBe(422);
  expect(locs(reply.body)).toEqual([['body', 'entry']]);
  expect(reply.body.detail[0]).toMatchObject({ type: 'too_long' });
});
