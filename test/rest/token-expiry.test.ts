// An access token that has been used (and so is remembered by the verifier) stops working at its expiry on both doors.
// Each door gets its own app: the token is first used on that door alone, so the refusal past exp comes from the
// verifier's memory of the token, not from a fresh signature check made because another request forgot it. The 401's
// detail ("Could not validate credentials") is the authentication's answer: the rate limiter's look at the token
// only picks a budget and never refuses.
import { afterEach, expect, it, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

const CAMPAIGNS = '{ campaigns(first: 1) { edges { node { campId } } } }';

let t: TestApp | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await t?.close();
  t = undefined;
});

/** Moves Date (only Date: the app's timers keep running) past the token's 60-second lifetime. */
const pastExpiry = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });

it('REST: GET /get_campaigns answers 401 past exp, after the same token got 200 before it', async () => {
  t = await startApp({ TOKEN_TTL_SECONDS: '60' });
  const { token } = await t.account();
  expect((await t.rest('GET', '/get_campaigns', { token })).status).toBe(200);
  expect((await t.rest('GET', '/get_campaigns', { token })).status).toBe(200);

  pastExpiry();
  const reply = await t.rest('GET', '/get_campaigns', { token });
  expect(reply.status, reply.text).toBe(401);
  expect(reply.body).toEqual({ detail: 'Could not validate credentials' });
  expect(reply.headers.get('www-authenticate')).toBe('Bearer');
});

it('GraphQL: campaigns is UNAUTHENTICATED past exp, after the same token read it before', async () => {
  t = await startApp({ TOKEN_TTL_SECONDS: '60' });
  const { token } = await t.account();
  const before = await t.gql(CAMPAIGNS, {}, token);
  expect(before.body.errors).toBeUndefined();
  expect(before.body.data).toEqual({ campaigns: { edges: [] } });

  pastExpiry();
  const after = await t.gql(CAMPAIGNS, {}, token);
  expect(after.body.data?.campaigns ?? null).toBeNull();
  expect(after.body.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
});
