// An access token that has been used (and so is remembered by the verifier) stops working at its expiry on both doors
// — the verifier refuses it, not only the rate limiter's look at the token.
import { afterEach, expect, it, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await t?.close();
  t = undefined;
});

it('REST answers 401 and GraphQL UNAUTHENTICATED past exp, after the token worked before it', async () => {
  t = await startApp({ TOKEN_TTL_SECONDS: '60' });
  const { token } = await t.account();
  expect((await t.rest('GET', '/get_campaigns', { token })).status).toBe(200);
  const ok = await t.gql('{ viewer { email } }', {}, token);
  expect(ok.body.errors).toBeUndefined();

  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
  const rest = await t.rest('GET', '/get_campaigns', { token });
  expect(rest.status).toBe(401);
  expect(rest.body).toEqual({ detail: 'Could not validate credentials' });
  const graphql = await t.gql('{ viewer { email } }', {}, token);
  expect(graphql.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
});
