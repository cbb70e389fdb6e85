// Registrations (docs/mcp-oauth.md "Registrations"): a registration no code was issued to is pending; pending ones are
// bounded per address (an IPv6 /64) and in all, the oldest making room, so that no flood of registrations, from one
// address or from many, refuses a registration that then authorises; pending ones expire after an hour; one that
// authorised is no longer pending and is not evicted.
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { REGISTERED_CLIENT_DAYS, settlePendingClient } from '../../src/domain/oauth-artifacts.js';
import { registrantOf } from '../../src/oauth/registrations.js';
import type { TestApp } from '../helpers/app.js';
import { loopbackGateways } from '../helpers/gateway.js';
import { Browser, REDIRECT_URI, TestAgent } from '../helpers/oauth-agent.js';

const PASSWORD = 'correct horse battery';

const gateway = loopbackGateways();

/** A gateway behind one trusted proxy: X-Forwarded-For names the client address (none: the socket's, 127.0.0.1). */
async function serve(env: Record<string, string>) {
  const { t, base, url } = await gateway({ TRUST_PROXY: '1', ...env });
  return { t, base, mcp: url };
}

/** Registers a public client from `address`; its client_id. */
async function registerFrom(base: string, address: string): Promise<string> {
  const answer = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  expect(answer.status, await answer.clone().text()).toBe(201);
  return ((await answer.json()) as { client_id: string }).client_id;
}

const clients = (t: TestApp) =>
  t.app.database.db
    .selectFrom('oauth_artifacts')
    .select(['id', 'pending_address', 'expires_at'])
    .where('model', '=', 'Client')
    .execute();

/** The SDK's auth() as a hosted agent (it registers itself), through the consent page, to a token that works. */
async function connect(t: TestApp, base: string, mcp: URL): Promise<TestAgent> {
  const { email } = await t.account();
  const agent = new TestAgent();
  expect(await auth(agent, { serverUrl: mcp })).toBe('REDIRECT');
  const back = await new Browser().authorize(agent.authorizationUrl!.href, base, { email, password: PASSWORD });
  const code = back.searchParams.get('code');
  expect(code, back.href).toBeTruthy();
  expect(await auth(agent, { serverUrl: mcp, authorizationCode: code!, iss: back.searchParams.get('iss')! })).toBe(
    'AUTHORIZED',
  );
  const client = new Client({ name: 'flood-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(mcp, {
      requestInit: { headers: { authorization: `Bearer ${agent.tokens()!.access_token}` } },
    }),
  );
  try {
    expect((await client.callTool({ name: 'campaign_list', arguments: {} })).isError).toBeFalsy();
  } finally {
    await client.close();
  }
  return agent;
}

/** `count` registrations from each address, `parallel` requests at a time. */
async function flood(base: string, addresses: string[], count: number, parallel = 25): Promise<void> {
  const jobs = addresses.flatMap((address) => Array.from({ length: count }, () => address));
  for (let at = 0; at < jobs.length; at += parallel) {
    await Promise.all(jobs.slice(at, at + parallel).map((address) => registerFrom(base, address)));
  }
}

describe('dynamic client registrations under a flood', () => {
  it('one address past its bound keeps only its newest pending ones; another address registers and authorises', async () => {
    const { t, base, mcp } = await serve({ OAUTH_MAX_PENDING_CLIENTS_PER_ADDRESS: '5' });
    const first = await registerFrom(base, '203.0.113.9');
    await flood(base, ['203.0.113.9'], 11, 4);
    const mine = (await clients(t)).filter((row) => row.pending_address === '203.0.113.9');
    expect(mine).toHaveLength(5);
    expect(mine.map((row) => row.id)).not.toContain(first);
    // An IPv6 address counts as its /64: a host cannot step around its bound by changing the low bits.
    await Promise.all(Array.from({ length: 9 }, (_, i) => registerFrom(base, `2001:db8:1:2::${i + 1}`)));
    const v6 = (await clients(t)).filter((row) => row.pending_address === registrantOf('2001:db8:1:2::1'));
    expect(registrantOf('2001:db8:1:2:ffff::7')).toBe('2001:db8:1:2::/64');
    expect(v6).toHaveLength(5);

    // The agent registers from 127.0.0.1, then authorises; its registration is then no longer pending.
    const agent = await connect(t, base, mcp);
    const row = (await clients(t)).find((client) => client.id === agent.clientInformation()!.client_id);
    expect(row?.pending_address).toBeNull();
    expect(Date.parse(row!.expires_at!) - Date.now()).toBeGreaterThan((REGISTERED_CLIENT_DAYS - 1) * 86_400_000);
  }, 60_000);

  it('a flood from many addresses refuses no registration that then authorises, and evicts no client that did', async () => {
    const { t, base, mcp } = await serve({
      OAUTH_MAX_REGISTERED_CLIENTS: '20',
      OAUTH_MAX_PENDING_CLIENTS_PER_ADDRESS: '3',
    });
    const addresses = Array.from({ length: 100 }, (_, i) => `198.51.100.${i + 1}`);
    // 200 registrations from 100 addresses, every one accepted (201: registerFrom checks), 20 pending kept.
    await flood(base, addresses, 2);
    const pending = (await clients(t)).filter((row) => row.pending_address !== null);
    expect(pending).toHaveLength(20);

    const agent = await connect(t, base, mcp);
    const clientId = agent.clientInformation()!.client_id;
    // Another flood after it authorised: the client stays (it is not pending), and the cap still holds.
    await flood(base, addresses.slice(0, 20), 2);
    const after = await clients(t);
    expect(after.find((row) => row.id === clientId)?.pending_address).toBeNull();
    expect(after.filter((row) => row.pending_address !== null)).toHaveLength(20);
  }, 60_000);

  it('settlements at once (registrations finishing together) keep exactly the cap between them', async () => {
    const { t } = await serve({});
    const db = t.app.database.db;
    const now = Date.now() + 3_000_000;
    // 60 registrations a millisecond apart, the newest 10 from one address (3 kept), settling at once against a cap of
    // 20: a settlement evicting the older ones past the newest 20 it counts, while another evicts one of those newest
    // 20 for its address's bound, would leave fewer than 20 between them.
    const rows = Array.from({ length: 60 }, (_, i) => ({
      id: `settle-${String(i).padStart(3, '0')}`,
      address: i < 50 ? `203.0.113.${i + 1}` : '198.51.100.7',
      expiresAt: new Date(now + i).toISOString(),
    }));
    await db
      .insertInto('oauth_artifacts')
      .values(rows.map((row) => ({ model: 'Client', id: row.id, payload: '{}', expires_at: row.expiresAt })))
      .execute();
    const evicted = await Promise.all(
      rows.map((row) => settlePendingClient(db, row.id, row.address, { perAddress: 3, total: 20 })),
    );
    const pending = (await clients(t)).filter((row) => row.pending_address !== null);
    expect(pending).toHaveLength(20);
    expect(evicted.reduce((sum, n) => sum + n, 0)).toBe(40);
  });

  it('forgets a pending registration after an hour: it authorises nothing and is deleted', async () => {
    const { t, base } = await serve({});
    const stale = await registerFrom(base, '192.0.2.44');
    const row = (await clients(t)).find((client) => client.id === stale);
    const left = Date.parse(row!.expires_at!) - Date.now();
    expect(left).toBeGreaterThan(3_500_000);
    expect(left).toBeLessThanOrEqual(3_600_000);
    // An hour later (moved back rather than waited for).
    await t.app.database.db
      .updateTable('oauth_artifacts')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('model', '=', 'Client')
      .where('id', '=', stale)
      .execute();
    const url = new URL(`${base}/oauth/authorize`);
    for (const [key, value] of Object.entries({
      response_type: 'code',
      client_id: stale,
      redirect_uri: REDIRECT_URI,
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      resource: `${base}/mcp`,
    })) {
      url.searchParams.set(key, value);
    }
    const refused = await fetch(url, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    // The next registration from that address deletes it (the periodic sweep deletes any other).
    const fresh = await registerFrom(base, '192.0.2.44');
    expect((await clients(t)).map((client) => client.id)).toEqual([fresh]);
  });
});
