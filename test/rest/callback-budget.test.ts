// Provider callbacks have a budget of their own (issue 41; docs/limits.md): a signed callback is verified, then
// counted against its own account, never against the address it came from, so one busy campaign's provider traffic
// never refuses another account's callbacks or anyone's logins from that address. Whatever carries a signature header
// but is not a verified callback counts against its address and the API key it names (issue 52), and unsigned
// requests stay anonymous.
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { AUTH_TOKEN, connectTelephony, sign } from '../helpers/telephony.js';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

const PROVIDER = '198.51.100.7';
const ANONYMOUS = 5;
const CALLBACKS = 12;

async function start() {
  const t = await startApp(
    { ANONYMOUS_RATE_LIMIT_PER_MINUTE: String(ANONYMOUS), CALLBACK_RATE_LIMIT_PER_MINUTE: String(CALLBACKS) },
    [],
    { worker: false },
  );
  apps.push(t);
  return t;
}

/** An account with telephony connected and a campaign "spring"; its API key names it in callback paths. */
async function tenant(t: TestApp) {
  const account = await t.account();
  await connectTelephony(t, account.token);
  await createLegacyCampaign(t, account.token, 'spring');
  return account;
}

let sid = 0;
/** A call-status callback from `address`: signed with the account's token, or with `signature` as given (null: none). */
async function callback(t: TestApp, apiKey: string, address: string, signature?: string | null, form?: string) {
  const path = `/api/v3/telephony_webhook/${apiKey}/spring`;
  const params = { CallSid: `CA${++sid}`, CallStatus: 'completed' };
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const given = signature === undefined ? sign(AUTH_TOKEN, `http://127.0.0.1${path}`, params) : signature;
  if (given !== null) headers['x-telephony-signature'] = given;
  const response = await t.app.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method: 'POST',
      headers,
      body: form ?? new URLSearchParams(params).toString(),
    }),
    { address },
  );
  return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
}

async function login(t: TestApp, email: string, address: string) {
  const response = await t.app.fetch(
    new Request('http://127.0.0.1/api/v3/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: email, password: 'correct horse battery' }),
    }),
    { address },
  );
  return response.status;
}

describe('signed provider callbacks', () => {
  it('count against their own account, not the address they come from', async () => {
    const t = await start();
    const a = await tenant(t);
    const b = await tenant(t);
    // Three times the address's budget of requests without a token, from one provider address, all accepted.
    for (let i = 0; i < 3 * ANONYMOUS; i++) {
      const reply = await callback(t, i % 2 ? a.apiKey : b.apiKey, PROVIDER);
      expect(reply.status, reply.text).toBe(200);
    }
    // Logins from that address are not refused.
    expect(await login(t, a.email, PROVIDER)).toBe(200);
  });

  it("past an account's budget: 429 with Retry-After for that account only", async () => {
    const t = await start();
    const busy = await tenant(t);
    const other = await tenant(t);
    for (let i = 0; i < CALLBACKS; i++) expect((await callback(t, busy.apiKey, PROVIDER)).status).toBe(200);
    const refused = await callback(t, busy.apiKey, PROVIDER);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(refused.text).detail).toMatch(/signed provider callbacks per minute per account/);
    // Another account's callbacks from the same address, and logins from it, go on.
    for (let i = 0; i < 3; i++) expect((await callback(t, other.apiKey, PROVIDER)).status).toBe(200);
    expect(await login(t, other.email, PROVIDER)).toBe(200);
  });
});

describe('what is not a verified callback counts against its address and key', () => {
  it('wrong signatures: that address and key are refused once their budget is spent, signed-looking or not', async () => {
    const t = await start();
    const victim = await tenant(t);
    const attacker = '203.0.113.9';
    for (let i = 0; i < ANONYMOUS; i++) expect((await callback(t, victim.apiKey, attacker, 'forged')).status).toBe(403);
    expect((await callback(t, victim.apiKey, attacker, 'forged')).status).toBe(429);
    expect((await callback(t, victim.apiKey, attacker)).status).toBe(429);
    // Not the address's budget of requests without a token (test/rest/callback-signature-budget.test.ts).
    expect(await login(t, victim.email, attacker)).toBe(200);
    // The provider's own address is untouched.
    expect((await callback(t, victim.apiKey, PROVIDER)).status).toBe(200);
  });

  it('a signed-looking request the door refuses (a bad form) counts too', async () => {
    const t = await start();
    const victim = await tenant(t);
    const attacker = '203.0.113.10';
    const tooMany = new URLSearchParams(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}`, 'x'])));
    for (let i = 0; i < ANONYMOUS; i++) {
      expect((await callback(t, victim.apiKey, attacker, 'forged', tooMany.toString())).status).toBeLessThan(500);
    }
    expect((await callback(t, victim.apiKey, attacker, 'forged', tooMany.toString())).status).toBe(429);
  });

  it('unsigned callbacks stay anonymous: counted at the door', async () => {
    const t = await start();
    const victim = await tenant(t);
    const address = '203.0.113.11';
    for (let i = 0; i < ANONYMOUS; i++) expect((await callback(t, victim.apiKey, address, null)).status).toBe(403);
    expect((await callback(t, victim.apiKey, address, null)).status).toBe(429);
  });
});
