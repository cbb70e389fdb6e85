// Failing signatures spend only their own budget (issue 52, item 6; docs/limits.md): a callback whose signature does
// not check out counts against its client address and the API key its path names, never against what other tenants'
// correctly signed callbacks from the same (provider's shared) address are let in on; a made-up key costs one lookup.
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { AUTH_TOKEN, connectTelephony, sendCallbackFrom } from '../helpers/telephony.js';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

/** The provider's egress address, shared by every tenant's callbacks. */
const PROVIDER = '198.51.100.7';
const ANONYMOUS = 5;

async function start() {
  const t = await startApp(
    { ANONYMOUS_RATE_LIMIT_PER_MINUTE: String(ANONYMOUS), CALLBACK_RATE_LIMIT_PER_MINUTE: '1000' },
    [],
    { worker: false },
  );
  apps.push(t);
  return t;
}

/** An account with telephony connected (storing `storedToken`) and a campaign "spring". */
async function tenant(t: TestApp, storedToken = AUTH_TOKEN) {
  const account = await t.account();
  await connectTelephony(t, account.token, storedToken);
  await createLegacyCampaign(t, account.token, 'spring');
  return account;
}

let sid = 0;
/** A call-status callback from the provider's address, signed as the provider signs it (with AUTH_TOKEN). */
function callback(t: TestApp, apiKey: string) {
  return sendCallbackFrom(t, PROVIDER, apiKey, 'spring', { CallSid: `CA${++sid}`, CallStatus: 'completed' });
}

describe('callbacks whose signature fails, from a provider address other tenants share', () => {
  it('a tenant storing a wrong token: its own callbacks get 429 after its budget, the others are never refused', async () => {
    const t = await start();
    const wrong = await tenant(t, 'not-the-provider-token-0123456789');
    const right = await tenant(t);
    for (let i = 0; i < 3 * ANONYMOUS; i++) {
      const failing = await callback(t, wrong.apiKey);
      if (i < ANONYMOUS) {
        expect(failing.status, failing.text).toBe(403);
      } else {
        expect(failing.status, failing.text).toBe(429);
        expect(Number(failing.retryAfter)).toBeGreaterThan(0);
        expect(JSON.parse(failing.text).detail).toMatch(/per client address and API key/);
      }
      // Every correctly signed callback of the other tenant, from the same address, in between: received.
      const fine = await callback(t, right.apiKey);
      expect(fine.status, fine.text).toBe(200);
    }
  });

  it('a made-up key: 403 until its own budget is spent, then 429; nobody else is refused', async () => {
    const t = await start();
    const right = await tenant(t);
    const madeUp = 'ck_made_up_0123456789';
    for (let i = 0; i < ANONYMOUS; i++) {
      const reply = await callback(t, madeUp);
      expect(reply.status, reply.text).toBe(403);
      expect(JSON.parse(reply.text)).toEqual({ detail: 'Invalid API key' });
    }
    expect((await callback(t, madeUp)).status).toBe(429);
    // Another made-up key is a pair of its own (it costs one lookup, below), and the real tenant goes on.
    expect((await callback(t, `${madeUp}x`)).status).toBe(403);
    for (let i = 0; i < 2 * ANONYMOUS; i++) expect((await callback(t, right.apiKey)).status).toBe(200);
  });

  it('a made-up key costs one indexed lookup, whatever its body', async () => {
    const t = await start();
    await tenant(t);
    t.resetQueries();
    const reply = await callback(t, 'ck_made_up_again');
    expect(reply.status).toBe(403);
    expect(t.queries).toHaveLength(1);
    expect(t.queries[0]).toMatch(/from "accounts" where "api_key_hash" = /);
  });
});
