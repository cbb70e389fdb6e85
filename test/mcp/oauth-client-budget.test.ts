// /oauth/token and /oauth/revoke are counted per OAuth client, not per address (issue 53, item 11; docs/limits.md): a
// platform's backend refreshes the tokens of all its users from one address, past that address's anonymous budget;
// requests naming no known client (or none at all) count against their address, so made-up client IDs buy nothing.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientIdOf } from '../../src/oauth/client-budget.js';
import { loopbackGateways } from '../helpers/gateway.js';
import { REDIRECT_URI } from '../helpers/oauth-agent.js';

const gateway = loopbackGateways();
const PLATFORM = '203.0.113.50';

/** A gateway behind one trusted proxy: X-Forwarded-For names the client address. */
async function serve() {
  const { base } = await gateway({
    TRUST_PROXY: '1',
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: '5',
    OAUTH_CLIENT_REQUESTS_PER_MINUTE: '8',
  });
  return base;
}

async function register(base: string, address: string): Promise<string> {
  const answer = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  expect(answer.status, await answer.clone().text()).toBe(201);
  return ((await answer.json()) as { client_id: string }).client_id;
}

/** A refresh with a refresh token the server never issued: the client is known, the grant is not (400). */
async function refresh(base: string, address: string, clientId: string | null, path = '/oauth/token') {
  const form = new URLSearchParams(
    path === '/oauth/token' ? { grant_type: 'refresh_token', refresh_token: 'not-a-token' } : { token: 'not-a-token' },
  );
  if (clientId !== null) form.set('client_id', clientId);
  const answer = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: form,
  });
  // A revocation answers 200 with no body (RFC 7009).
  const text = await answer.text();
  return {
    status: answer.status,
    body: (text ? JSON.parse(text) : {}) as { error?: string },
    retryAfter: answer.headers.get('retry-after'),
  };
}

describe('token requests are counted per client', () => {
  it("a platform's client refreshes past its address's anonymous budget, up to its own; another client from the same address goes on", async () => {
    const base = await serve();
    const platform = await register(base, '198.51.100.1');
    const other = await register(base, '198.51.100.2');
    // 8 a minute for the client, though its address may send only 5 anonymous requests.
    for (let i = 0; i < 8; i++) {
      const answer = await refresh(base, PLATFORM, platform, i % 2 === 0 ? '/oauth/token' : '/oauth/revoke');
      expect(answer.status, JSON.stringify(answer.body)).not.toBe(429);
    }
    const ninth = await refresh(base, PLATFORM, platform);
    expect(ninth.status).toBe(429);
    expect(ninth.body.error).toBe('slow_down');
    expect(Number(ninth.retryAfter)).toBeGreaterThan(0);
    expect((await refresh(base, PLATFORM, other)).status).toBe(400);
    // The address's anonymous budget is its own: untouched by the token requests.
    const metadata = await fetch(`${base}/.well-known/oauth-authorization-server`, {
      headers: { 'x-forwarded-for': PLATFORM },
    });
    expect(metadata.status).toBe(200);
  });

  it('made-up client IDs (401) and requests naming none count against their address: past its budget, refused there only', async () => {
    const base = await serve();
    const real = await register(base, '198.51.100.3');
    const sprayer = '203.0.113.66';
    for (let i = 0; i < 3; i++) expect((await refresh(base, sprayer, `made-up-${i}`)).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await refresh(base, sprayer, null)).status).not.toBe(429);
    // Five failed from this address: refused before its body is read, whatever client it names.
    const refused = await refresh(base, sprayer, `made-up-9`);
    expect(refused.status).toBe(429);
    expect((await refresh(base, sprayer, real)).status).toBe(429);
    // Another address, the same real client: answered.
    expect((await refresh(base, '203.0.113.67', real)).status).toBe(400);
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
