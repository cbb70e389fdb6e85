// The login lockout cannot be used to lock someone else out (docs/limits.md, docs/supergraph.md "The client's
// address"): failures lock only the address they came from for that e-mail; failures from many addresses slow the
// e-mail down by seconds, never lock it for the window; behind a federation gateway that forwards X-Forwarded-For
// (TRUST_PROXY=1) every caller keeps an address of their own.
import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { afterEach, describe, expect, test } from 'vitest';
import { printSubgraphSdl } from '../../src/graphql/schema/schema.js';
import { LOGIN_SLOWDOWN_AFTER_ATTEMPTS, LOGIN_SLOWDOWN_INTERVAL_SECONDS } from '../../src/security/rate-limits.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { loopbackGateways } from '../helpers/gateway.js';

const PASSWORD = 'correct horse battery';
let t: TestApp | undefined;
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  await t?.close();
  t = undefined;
});

/** As a load balancer in front would append it: the client wrote the first entry, the balancer the last. */
const from = (address: string) => ({ 'x-forwarded-for': `203.0.113.99, ${address}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the login lockout, directly', () => {
  test('5 failures from address A lock A for that e-mail; the owner from address B logs in at once', async () => {
    t = await startApp({ TRUST_PROXY: '1' });
    const user = await t.account();
    const login = (address: string, password = 'wrong password') =>
      t!.rest('POST', '/login', { body: { username: user.email, password }, headers: from(address) });
    for (let i = 0; i < 5; i++) expect((await login('198.51.100.66')).status).toBe(401);
    const locked = await login('198.51.100.66', PASSWORD);
    expect(locked.status, locked.text).toBe(429);
    // Locked for the window (15 minutes by default), for this address only.
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    const owner = await login('198.51.100.1', PASSWORD);
    expect(owner.status, owner.text).toBe(200);
    expect(owner.body.access_token).toEqual(expect.any(String));
  });

  test('failures from 50 addresses slow the e-mail down by seconds (429 + a small Retry-After), never lock it', async () => {
    t = await startApp({ TRUST_PROXY: '1' });
    const user = await t.account();
    const login = (address: string, password = 'wrong password') =>
      t!.rest('POST', '/login', { body: { username: user.email, password }, headers: from(address) });
    const statuses: number[] = [];
    const waits: number[] = [];
    const began = performance.now();
    for (let i = 0; i < 50; i++) {
      const reply = await login(`198.51.100.${i + 10}`);
      statuses.push(reply.status);
      if (reply.status === 429) {
        expect(reply.body.detail).toMatch(/try again in \d seconds/);
        waits.push(Number(reply.headers.get('retry-after')));
      }
    }
    // The first attempts are checked (401); past the threshold, at most one per interval is: the rest wait seconds.
    expect(statuses.slice(0, LOGIN_SLOWDOWN_AFTER_ATTEMPTS)).toEqual(Array(LOGIN_SLOWDOWN_AFTER_ATTEMPTS).fill(401));
    const slots = Math.ceil((performance.now() - began) / 1000 / LOGIN_SLOWDOWN_INTERVAL_SECONDS) + 1;
    const checked = statuses.filter((status) => status === 401).length;
    expect(checked).toBeLessThanOrEqual(LOGIN_SLOWDOWN_AFTER_ATTEMPTS + slots);
    expect(statuses.filter((status) => status === 429).length).toBe(50 - checked);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    expect(Math.max(...waits)).toBeLessThanOrEqual(LOGIN_SLOWDOWN_INTERVAL_SECONDS);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(1);

    // The owner, from an address of their own, is in within seconds: at once, or after the Retry-After they are told.
    const started = performance.now();
    let owner = await login('192.0.2.1', PASSWORD);
    if (owner.status === 429) {
      await sleep(Number(owner.headers.get('retry-after')) * 1000);
      owner = await login('192.0.2.1', PASSWORD);
    }
    expect(owner.status, owner.text).toBe(200);
    expect(performance.now() - started).toBeLessThan((LOGIN_SLOWDOWN_INTERVAL_SECONDS + 1) * 1000);
    // The owner's retries while slowed did not lock their address: a later attempt goes ahead after the interval.
    await sleep(LOGIN_SLOWDOWN_INTERVAL_SECONDS * 1000);
    const again = await login('192.0.2.1', PASSWORD);
    expect(again.status, again.text).toBe(200);
  });

  test("the address the owner signed up or logged in from is never slowed down by the e-mail's slow-down", async () => {
    t = await startApp({ TRUST_PROXY: '1' });
    const email = `known-${Date.now()}@example.com`;
    const signup = await t.rest('POST', '/signup', { body: { email, password: PASSWORD }, headers: from('192.0.2.7') });
    expect(signup.status, signup.text).toBe(200);
    const login = (address: string, password = 'wrong password') =>
      t!.rest('POST', '/login', { body: { username: email, password }, headers: from(address) });
    for (let i = 0; i < LOGIN_SLOWDOWN_AFTER_ATTEMPTS + 1; i++) await login(`198.51.100.${i + 10}`);
    // Slowed down for every address but the one it signed up from: the owner there logs in each time, at once.
    for (let i = 0; i < 3; i++) expect((await login('192.0.2.7', PASSWORD)).status).toBe(200);
    expect((await login('192.0.2.8', PASSWORD)).status).toBe(429);
    // An address it logged in from once is known from then on too.
    await sleep(LOGIN_SLOWDOWN_INTERVAL_SECONDS * 1000);
    expect((await login('192.0.2.8', PASSWORD)).status).toBe(200);
    await login('198.51.100.99');
    for (let i = 0; i < 3; i++) expect((await login('192.0.2.8', PASSWORD)).status).toBe(200);
    // A known address still locks for itself after its own failures.
    for (let i = 0; i < 5; i++) await login('192.0.2.8');
    expect((await login('192.0.2.8', PASSWORD)).status).toBe(429);
  });

  test('attempts refused by the slow-down do not count towards the lock of their address', async () => {
    t = await startApp({ TRUST_PROXY: '1' });
    const user = await t.account();
    const login = (address: string, password = 'wrong password') =>
      t!.rest('POST', '/login', { body: { username: user.email, password }, headers: from(address) });
    for (let i = 0; i < LOGIN_SLOWDOWN_AFTER_ATTEMPTS + 1; i++) await login(`198.51.100.${i + 10}`);
    // Slowed down now: the owner's impatient retries are answered 429 with seconds, and cost their address nothing.
    for (let i = 0; i < 8; i++) {
      const reply = await login('192.0.2.1', PASSWORD);
      expect(reply.status, reply.text).toBe(429);
      expect(Number(reply.headers.get('retry-after'))).toBeLessThanOrEqual(LOGIN_SLOWDOWN_INTERVAL_SECONDS);
    }
    await sleep(LOGIN_SLOWDOWN_INTERVAL_SECONDS * 1000);
    expect((await login('192.0.2.1', PASSWORD)).status).toBe(200);
  });
});

describe('a refused login is answered after REFUSAL_DELAY_MS', () => {
  test("locked or slowed down, the 429 waits the delay; the owner's own login does not", async () => {
    t = await startApp({ TRUST_PROXY: '1', REFUSAL_DELAY_MS: '400' });
    const user = await t.account();
    const timedLogin = async (address: string, password = 'wrong password') => {
      const began = performance.now();
      const reply = await t!.rest('POST', '/login', {
        body: { username: user.email, password },
        headers: from(address),
      });
      return { status: reply.status, ms: performance.now() - began };
    };
    // Failures that are checked (401) are not held; the lock's refusal (429) is.
    for (let i = 0; i < 5; i++) expect((await timedLogin('198.51.100.66')).status).toBe(401);
    const locked = await timedLogin('198.51.100.66', PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.ms).toBeGreaterThanOrEqual(390);
    // Past the slow-down, a new address's attempt is refused after the delay too.
    for (let i = 0; i < LOGIN_SLOWDOWN_AFTER_ATTEMPTS; i++) await timedLogin(`198.51.100.${i + 10}`);
    const replies = await Promise.all([1, 2, 3].map((i) => timedLogin(`198.51.100.${i + 100}`)));
    const slowed = replies.filter(({ status }) => status === 429);
    expect(slowed.length).toBeGreaterThanOrEqual(2);
    for (const { ms } of slowed) expect(ms).toBeGreaterThanOrEqual(390);
    // On GraphQL too (the same resolver), from the locked address.
    const began = performance.now();
    const graphql = await t.request('POST', '/graphql', {
      body: {
        query: 'mutation($input: AccountLoginInput!) { accountLogin(input: $input) { accessToken } }',
        variables: { input: { email: user.email, password: 'wrong password' } },
      },
      headers: from('198.51.100.66'), // locked for the window
    });
    expect(graphql.body.errors?.[0]?.extensions?.code, graphql.text).toBe('RATE_LIMITED');
    expect(performance.now() - began).toBeGreaterThanOrEqual(390);
  });
});

describe('behind a federation gateway', () => {
  const open = loopbackGateways();

  /** Hive Gateway in front of the subgraph, forwarding Authorization and (when `forward`) X-Forwarded-For. */
  async function hiveGateway(subgraph: string, forward: boolean): Promise<string> {
    const composed = composeServices([{ name: 'campaigns', typeDefs: parse(printSubgraphSdl()), url: subgraph }]);
    expect(composed.errors ?? []).toEqual([]);
    const hive = createGatewayRuntime({
      supergraph: composed.supergraphSdl ?? '',
      logging: false,
      // As docs/supergraph.md "The client's address" says.
      propagateHeaders: {
        fromClientToSubgraphs: ({ request }) => ({
          authorization: request.headers.get('authorization'),
          ...(forward ? { 'x-forwarded-for': request.headers.get('x-forwarded-for') } : {}),
        }),
      },
    });
    const server = createServer(hive);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closing.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await hive.dispose();
    });
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/graphql`;
  }

  const loginThrough = async (gatewayUrl: string, email: string, password: string, address: string) => {
    const response = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...from(address) },
      body: JSON.stringify({
        query: 'mutation ($input: AccountLoginInput!) { accountLogin(input: $input) { accessToken } }',
        variables: { input: { email, password } },
      }),
    });
    return (await response.json()) as { data?: { accountLogin: { accessToken: string } } | null; errors?: any[] };
  };

  test('with X-Forwarded-For forwarded (TRUST_PROXY=1), a guesser locks out only their own address', async () => {
    const { t: app, base } = await open({ TRUST_PROXY: '1' });
    const user = await app.account();
    const gatewayUrl = await hiveGateway(`${base}/subgraph`, true);
    for (let i = 0; i < 5; i++) {
      const guess = await loginThrough(gatewayUrl, user.email, 'wrong password', '198.51.100.66');
      expect(guess.errors?.[0]?.extensions?.code, JSON.stringify(guess)).toBe('UNAUTHENTICATED');
    }
    const locked = await loginThrough(gatewayUrl, user.email, PASSWORD, '198.51.100.66');
    expect(locked.errors?.[0]?.extensions?.code, JSON.stringify(locked)).toBe('RATE_LIMITED');
    // Another caller of the same gateway is another address: the owner logs in.
    const owner = await loginThrough(gatewayUrl, user.email, PASSWORD, '198.51.100.1');
    expect(owner.errors, JSON.stringify(owner)).toBeUndefined();
    expect(owner.data?.accountLogin.accessToken).toEqual(expect.any(String));
  });

  test('without it, every caller of the gateway is the gateway: what the forwarding settings are for', async () => {
    const { t: app, base } = await open({ TRUST_PROXY: '1' });
    const user = await app.account();
    const gatewayUrl = await hiveGateway(`${base}/subgraph`, false);
    for (let i = 0; i < 5; i++) await loginThrough(gatewayUrl, user.email, 'wrong password', '198.51.100.66');
    const owner = await loginThrough(gatewayUrl, user.email, PASSWORD, '198.51.100.1');
    expect(owner.errors?.[0]?.extensions?.code, JSON.stringify(owner)).toBe('RATE_LIMITED');
  });
});
