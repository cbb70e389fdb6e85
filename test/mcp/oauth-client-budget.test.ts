// /oauth/token counted per OAuth client for what succeeds and per address for what does not (issue 53, item 11;
// docs/mcp-oauth.md "State and limits"): a platform's backend refreshes the tokens of all its users from one address
// past that address's anonymous budget, up to its client's budget; requests that merely name a client (a made-up
// grant, a made-up client) spend their own address's budget, never the client's.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientIdOf } from '../../src/oauth/client-budget.js';
import type { TestApp } from '../helpers/app.js';
import { loopbackGateways } from '../helpers/gateway.js';
import { authorizeUrl, Browser, pkce, REDIRECT_URI } from '../helpers/oauth-agent.js';

const gateway = loopbackGateways();
const PASSWORD = 'correct horse battery';
const PLATFORM = '203.0.113.50';

/**
 * Anonymous requests a minute per address (the consent pages of a test's connections, from 127.0.0.1, fit in them);
 * tokens granted a minute per client: 4.
 */
const ANONYMOUS = 20;

/** A gateway behind one trusted proxy (X-Forwarded-For names the client address). */
const serve = () =>
  gateway({
    TRUST_PROXY: '1',
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: String(ANONYMOUS),
    OAUTH_CLIENT_REQUESTS_PER_MINUTE: '4',
  });

/** A public client asking for refresh tokens (as ChatGPT's connectors register), registered from `address`. */
async function register(base: string, address: string): Promise<string> {
  const answer = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(answer.status, await answer.clone().text()).toBe(201);
  return ((await answer.json()) as { client_id: string }).client_id;
}

async function token(base: string, address: string, form: Record<string, string>) {
  const answer = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams(form),
  });
  const body = (await answer.json()) as { error?: string; refresh_token?: string };
  return { status: answer.status, body, retryAfter: answer.headers.get('retry-after') };
}

/** A user's consent through the page (from another address), and the code redeemed from `address`: a refresh token. */
async function connect(t: TestApp, base: string, clientId: string, address: string): Promise<string> {
  const { email } = await t.account();
  const { verifier, challenge } = pkce();
  const url = authorizeUrl(base, clientId, { code_challenge: challenge, code_challenge_method: 'S256' });
  const back = await new Browser().authorize(url, base, { email, password: PASSWORD });
  const code = back.searchParams.get('code');
  expect(code, back.href).toBeTruthy();
  const redeemed = await token(base, address, {
    grant_type: 'authorization_code',
    code: code!,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
  });
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
  return redeemed.body.refresh_token!;
}

const junk = (clientId: string) => ({ grant_type: 'refresh_token', refresh_token: 'not-a-token', client_id: clientId });

describe('token requests', () => {
  it("a platform's successes pass its address's budget, up to its client's; then its client waits, from any address", async () => {
    const { t, base } = await serve();
    const platform = await register(base, '198.51.100.1');
    // Four tokens granted from one address (whose successes its anonymous budget does not count): two codes, two
    // refreshes.
    const first = await connect(t, base, platform, PLATFORM);
    const second = await connect(t, base, platform, PLATFORM);
    const refreshed = await token(base, PLATFORM, {
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: platform,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const again = await token(base, PLATFORM, {
      grant_type: 'refresh_token',
      refresh_token: second,
      client_id: platform,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    // The client's 4 a minute are spent: refused before the provider, from this address or another.
    const spent = await token(base, '203.0.113.51', {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token!,
      client_id: platform,
    });
    expect(spent.status).toBe(429);
    expect(spent.body.error).toBe('slow_down');
    expect(Number(spent.retryAfter)).toBeGreaterThan(0);
    // The address spent nothing on its successes: its anonymous budget is whole for another client's requests.
    const other = await register(base, '198.51.100.2');
    for (let i = 0; i < ANONYMOUS; i++) expect((await token(base, PLATFORM, junk(other))).status).toBe(400);
    expect((await token(base, PLATFORM, junk(other))).status).toBe(429);
  });

  it("requests that merely name a client spend their address's budget, never the client's; made-up clients buy nothing", async () => {
    const { t, base } = await serve();
    const popular = await register(base, '198.51.100.3');
    // Made-up grants for a popular client, from many addresses, then made-up clients: each address has its budget.
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      for (let i = 0; i < ANONYMOUS; i++) expect((await token(base, address, junk(popular))).status).toBe(400);
      expect((await token(base, address, junk(popular))).status).toBe(429);
    }
    const sprayer = '203.0.113.9';
    for (let i = 0; i < ANONYMOUS; i++) expect((await token(base, sprayer, junk(`made-up-${i}`))).status).toBe(401);
    expect((await token(base, sprayer, junk('made-up-9'))).status).toBe(429);
    // The popular client's budget is whole: its user connects from elsewhere.
    await connect(t, base, popular, '203.0.113.20');
  });
});

describe('the client a token request names', () => {
  const request = (authorization?: string) => ({ headers: authorization ? { authorization } : {} }) as IncomingMessage;
  const basic = (user: string) => `Basic ${Buffer.from(`${user}:secret`).toString('base64')}`;

  it('is HTTP Basic’s user name (form-encoded), else the body’s client_id; null when it names none', () => {
    expect(clientIdOf(request(basic('my%20client')), undefined, undefined)).toBe('my client');
    expect(clientIdOf(request(basic('a+b')), 'form', Buffer.from('client_id=other'))).toBe('a b');
    expect(clientIdOf(request(basic('%E0%A4%A')), 'form', Buffer.from('client_id=x'))).toBeNull();
    expect(clientIdOf(request(), 'form', Buffer.from('grant_type=x&client_id=abc'))).toBe('abc');
    expect(clientIdOf(request(), 'json', Buffer.from('{"client_id":"abc"}'))).toBe('abc');
    expect(clientIdOf(request(), 'json', Buffer.from('{"client_id":7}'))).toBeNull();
    expect(clientIdOf(request(), 'json', Buffer.from('{not json'))).toBeNull();
    expect(clientIdOf(request(), 'form', Buffer.from('client_id='))).toBeNull();
    expect(clientIdOf(request('Bearer x'), undefined, undefined)).toBeNull();
    expect(clientIdOf(request(), 'form', Buffer.from(`client_id=${'x'.repeat(1000)}`))).toHaveLength(256);
  });
});
