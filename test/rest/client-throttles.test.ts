// Per-client-address throttles (docs/limits.md): unauthenticated requests per address, the login lockout keyed by
// e-mail and address, login timing that does not tell whether an e-mail exists, and how the address is found
// (TRUST_PROXY).
import { afterEach, describe, expect, test } from 'vitest';
import { clientAddressOf, rememberedAddresses } from '../../src/http/client-address.js';
import { hashPassword } from '../../src/security/passwords.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
afterEach(() => t?.close());

const from = (address: string) => ({ 'x-forwarded-for': `203.0.113.99, ${address}` });

describe('the client address', () => {
  const request = (xff?: string) => new Request('http://x/', { headers: xff ? { 'x-forwarded-for': xff } : {} });
  test('is the socket peer unless TRUST_PROXY says how many proxies append to X-Forwarded-For', () => {
    expect(clientAddressOf(request('1.2.3.4'), '10.0.0.1', 0)).toBe('10.0.0.1');
    expect(clientAddressOf(request('6.6.6.6, 1.2.3.4'), '10.0.0.1', 1)).toBe('1.2.3.4');
    expect(clientAddressOf(request('6.6.6.6, 1.2.3.4, 10.0.0.2'), '10.0.0.1', 2)).toBe('1.2.3.4');
    // Fewer entries than proxies, or garbage: the peer.
    expect(clientAddressOf(request('garbage'), '10.0.0.1', 1)).toBe('10.0.0.1');
    expect(clientAddressOf(request(), '::ffff:10.0.0.1', 1)).toBe('10.0.0.1');
    expect(clientAddressOf(request(), undefined, 0)).toBe('unknown');
  });

  test('is worked out once per distinct text, remembering a bounded number of them', () => {
    // X-Forwarded-For entries are the client's to choose: thousands of distinct ones, valid or not, keep the memory
    // of canonical forms bounded and each answer right.
    for (let i = 0; i < 3000; i++) {
      const address = `10.${(i >> 8) & 255}.${i & 255}.7`;
      expect(clientAddressOf(request(`::ffff:${address}`), '10.0.0.1', 1)).toBe(address);
      expect(clientAddressOf(request(`not-an-address-${i}`), '10.0.0.1', 1)).toBe('10.0.0.1');
      expect(rememberedAddresses()).toBeLessThanOrEqual(1024);
    }
    const long = `${'1'.repeat(100)}`;
    expect(clientAddressOf(request(long), '10.0.0.1', 1)).toBe('10.0.0.1');
    expect(clientAddressOf(request('::ffff:192.0.2.1'), '10.0.0.1', 1)).toBe('192.0.2.1');
  });
});

describe('unauthenticated requests are throttled per client address', () => {
  test('sign-up, login, GraphQL and provider webhooks share the address budget: 429 with Retry-After beyond', async () => {
    t = await startApp({ TRUST_PROXY: '1', ANONYMOUS_RATE_LIMIT_PER_MINUTE: '5' });
    const headers = from('198.51.100.7');
    const user = await t.account(); // from the unknown address: its own budget
    const replies = [
      await t.rest('POST', '/signup', { body: { email: 'x1@example.com', password: 'a long password' }, headers }),
      await t.rest('POST', '/login', { body: { username: 'x1@example.com', password: 'a long password' }, headers }),
      await t.request('POST', '/graphql', { body: { query: '{ __typename }' }, headers }),
      await t.rest('POST', `/telephony_webhook/${user.apiKey}/spring`, { raw: 'a=b', headers }),
      await t.rest('GET', '/get_supported_voices', { headers }),
    ];
    expect(replies.map((reply) => reply.status)).not.toContain(429);
    const rest = await t.rest('POST', '/signup', {
      body: { email: 'x2@example.com', password: 'a long password' },
      headers,
    });
    expect(rest.status, rest.text).toBe(429);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(rest.body.detail).toMatch(/per client address/);
    const graphql = await t.request('POST', '/graphql', { body: { query: '{ __typename }' }, headers });
    expect(graphql.status, graphql.text).toBe(429);
    expect(graphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    // Another address, and requests with a valid token, are not held back.
    const other = await t.rest('POST', '/signup', {
      body: { email: 'x3@example.com', password: 'a long password' },
      headers: from('198.51.100.8'),
    });
    expect(other.status, other.text).toBe(200);
    expect((await t.rest('GET', '/get_campaigns', { token: user.token, headers })).status).toBe(200);
  });
});

describe('login', () => {
  test('the lockout is per e-mail and client address: a guesser cannot lock the owner out', async () => {
    t = await startApp({ TRUST_PROXY: '1', LOGIN_MAX_FAILURES: '3' });
    const user = await t.account();
    const guess = (address: string, password = 'wrong password') =>
      t!.rest('POST', '/login', { body: { username: user.email, password }, headers: from(address) });
    for (let i = 0; i < 3; i++) expect((await guess('198.51.100.66')).status).toBe(401);
    const locked = await guess('198.51.100.66', 'correct horse battery');
    expect(locked.status, locked.text).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    const graphql = await t.request('POST', '/graphql', {
      body: { query: `mutation { login(email: "${user.email}", password: "x") { accessToken } }` },
      headers: from('198.51.100.66'),
    });
    expect(graphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    // The owner, elsewhere, logs in.
    expect((await guess('198.51.100.1', 'correct horse battery')).status).toBe(200);
  });

  test('takes as long for an unknown e-mail as for a real one, also after PASSWORD_HASH_COST changed', async () => {
    t = await startApp({ PASSWORD_HASH_COST: '10', LOGIN_MAX_FAILURES: '100' });
    const user = await t.account();
    // This password was hashed when the cost was 12 (4× the work of 10); most accounts are like it.
    const older = await hashPassword('correct horse battery', 12);
    await t.app.database.db.updateTable('accounts').set({ password_hash: older }).execute();
    const timed = async (email: string) => {
      const started = performance.now();
      const reply = await t!.rest('POST', '/login', { body: { username: email, password: 'wrong password' } });
      expect(reply.status, reply.text).toBe(401);
      return performance.now() - started;
    };
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await timed(user.email));
      unknown.push(await timed(`nobody-${i}@example.com`));
    }
    const ratio = median(unknown) / median(known);
    expect(ratio, `unknown ${median(unknown)} ms, known ${median(known)} ms`).toBeGreaterThan(0.6);
    expect(ratio).toBeLessThan(1.6);
    // A successful login re-hashes with the configured cost.
    expect(
      (await t.rest('POST', '/login', { body: { username: user.email, password: 'correct horse battery' } })).status,
    ).toBe(200);
    const row = await t.app.database.db.selectFrom('accounts').select('password_hash').executeTakeFirstOrThrow();
    expect(row.password_hash.split('$')[1]).toBe(String(2 ** 10));
  });
});

describe('large request bodies are budgeted per tenant', () => {
  test('bodies over 64 KiB count against LARGE_BODY_MIB_PER_MINUTE: 429 with Retry-After on both doors, per tenant', async () => {
    t = await startApp({ LARGE_BODY_MIB_PER_MINUTE: '1', TRUST_PROXY: '1' });
    const user = await t.account();
    const other = await t.account();
    // 300 KB of padding in an otherwise valid GraphQL request.
    const big = { query: '{ __typename }', variables: { pad: 'x'.repeat(300_000) } };
    const send = (token?: string, headers: Record<string, string> = {}) =>
      t!.request('POST', '/graphql', { body: big, ...(token ? { token } : {}), headers });
    for (let i = 0; i < 3; i++) expect((await send(user.token)).status).toBe(200);
    const refused = await send(user.token);
    expect(refused.status, refused.text).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
    expect(refused.body.errors[0].message).toMatch(/1 MiB of large request bodies per minute/);
    const rest = await t.rest('POST', '/update_campaign', {
      token: user.token,
      raw: JSON.stringify({ campId: 'x', pad: 'y'.repeat(100_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(rest.status, rest.text).toBe(429);
    expect(rest.body.detail).toMatch(/large request bodies/);
    // Small bodies are not counted; another account, and another address, have budgets of their own.
    expect((await t.gql('{ __typename }', {}, user.token)).status).toBe(200);
    expect((await send(other.token)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await send(undefined, from('198.51.100.9'))).status).toBe(200);
    expect((await send(undefined, from('198.51.100.9'))).status).toBe(429);
    expect((await send(undefined, from('198.51.100.10'))).status).toBe(200);
  });
});
