// The bounds of `@live` queries (docs/live-queries.md): the per-account cap, the throttle window, the document limits
// and operation types, the transport, anonymous callers, and what /metrics counts.
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { liveTestApps } from '../helpers/live-apps.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { type Subscription, subscribe } from '../events/sse.js';

const start = liveTestApps();

const TITLES = 'query @live { campaigns(first: 10) { edges { node { title } } } }';

const live = (t: TestApp, token: string | undefined, query = TITLES) => subscribe(t.app, '', token, 0, query);

async function first(stream: Subscription) {
  return (await stream.next(2000)).payload;
}

const codeOf = (payload: { errors?: Array<{ extensions?: { code?: string } }> }) =>
  payload.errors?.[0]?.extensions?.code;

/** campaigns > edges > node > callLogs > edges > node > campaign > …: `levels` fields deep (test/http/limits.test.ts). */
const nest = (levels: number): string => {
  const chain = ['campaigns(first: 1)', 'edges', 'node'];
  const cycle = ['callLogs(first: 1)', 'edges', 'node', 'campaign'];
  for (let i = 0; chain.length < levels - 1; i++) chain.push(cycle[i % cycle.length]!);
  return `query Deep @live { ${chain.map((f) => `${f} {`).join(' ')} __typename ${'}'.repeat(chain.length)} }`;
};

async function metric(t: TestApp, name: string, labels = ''): Promise<number> {
  const text = (await t.request('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('@live limits', () => {
  it('refuses a live query past the per-account cap, gives the slot back when one ends, and counts in /metrics', async () => {
    const t = await start({ LIVE_QUERIES_PER_ACCOUNT: '2' });
    const a = await t.account();
    const b = await t.account();
    const one = await live(t, a.token);
    const two = await live(t, a.token);
    expect((await first(one)).errors).toBeUndefined();
    expect((await first(two)).errors).toBeUndefined();
    const three = await live(t, a.token);
    const refused = await first(three);
    expect(codeOf(refused)).toBe('RATE_LIMITED');
    expect(refused.errors?.[0].message).toMatch(/At most 2 live queries at once per account/);
    // Another account is not affected.
    const theirs = await live(t, b.token);
    expect((await first(theirs)).errors).toBeUndefined();
    expect(await metric(t, 'gateway_live_queries')).toBe(3);
    expect(await metric(t, 'gateway_live_queries_refused_total', 'reason="limit"')).toBe(1);

    await one.close();
    // The slot comes back once the stream has ended on the server's side.
    const deadline = Date.now() + 2000;
    while ((await metric(t, 'gateway_live_queries')) !== 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const again = await live(t, a.token);
    expect((await first(again)).errors).toBeUndefined();

    await createLegacyCampaign(t, a.token, 'alpha');
    await two.next(1000);
    expect(await metric(t, 'gateway_live_query_executions_total', 'kind="first"')).toBe(4);
    expect(await metric(t, 'gateway_live_query_executions_total', 'kind="reexecution"')).toBeGreaterThanOrEqual(1);
    expect(await metric(t, 'gateway_live_query_execution_seconds_total', 'kind="first"')).toBeGreaterThan(0);
  });

  it('coalesces a burst of changes: at most one re-execution per throttle window, the last one shows them all', async () => {
    const t = await start({ LIVE_QUERY_THROTTLE_MS: '400' });
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'alpha', { title: 'v0' });
    const stream = await live(t, token);
    await first(stream);
    const sent = Date.now();
    for (let i = 1; i <= 6; i++) await createLegacyCampaign(t, token, 'alpha', { title: `v${i}` });
    const results = [];
    for (;;) {
      const { payload, at } = await stream.next(2000);
      results.push({ title: payload.data.campaigns.edges[0].node.title as string, at });
      if (results.at(-1)!.title === 'v6') break;
    }
    // The writes took a few ms each: all within one or two windows, so at most two results, 400 ms or more apart.
    expect(results.length).toBeLessThanOrEqual(2);
    if (results.length === 2) expect(results[1]!.at - results[0]!.at).toBeGreaterThanOrEqual(350);
    expect(results.at(-1)!.at - sent).toBeLessThan(1500);
    await stream.expectNothing(500);
  });

  it('applies the depth and alias limits to the live document, and refuses @live on a mutation or subscription', async () => {
    const t = await start();
    const { token } = await t.account();
    const deep = await first(await live(t, token, nest(13)));
    expect(codeOf(deep)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(deep.errors?.[0].message).toMatch(/depth limit of 12 exceeded/i);
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: viewer { email }`).join(' ');
    const aliased = await first(await live(t, token, `query @live { ${aliases} }`));
    expect(codeOf(aliased)).toBe('GRAPHQL_VALIDATION_FAILED');
    const mutation = await first(await live(t, token, 'mutation @live { accountApiKeyRotate { apiKey } }'));
    expect(mutation.errors?.[0].message).toMatch(/Directive "@live" may not be used on MUTATION/);
    const subscription = await first(
      await live(t, token, 'subscription @live { campaignEvents(campId: "alpha") { id } }'),
    );
    expect(subscription.errors?.[0].message).toMatch(/Directive "@live" may not be used on SUBSCRIPTION/);
    expect(await metric(t, 'gateway_live_queries')).toBe(0);
  });

  it('needs a stream to answer on, and a signed-in caller', async () => {
    const t = await start();
    const { token } = await t.account();
    const plain = await t.request('POST', '/graphql', { body: { query: TITLES }, token });
    expect(plain.status).toBe(406);
    expect(plain.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(plain.body.errors[0].message).toMatch(/Accept: text\/event-stream/);
    // No caller, or a token that does not check out: one UNAUTHENTICATED answer, and the stream ends.
    for (const token of [undefined, 'not-a-valid-token']) {
      const stream = await live(t, token);
      expect(codeOf(await first(stream))).toBe('UNAUTHENTICATED');
      const deadline = Date.now() + 2000;
      while (!stream.ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(stream.ended).toBe(true);
    }
    // `@live(if: $live)` with the operation's default false: an ordinary query, answered as JSON.
    const notLive = await t.request('POST', '/graphql', {
      body: { query: 'query ($live: Boolean = false) @live(if: $live) { viewer { email } }' },
      token,
    });
    expect(notLive.status, notLive.text).toBe(200);
    expect(notLive.body.data.viewer.email).toMatch(/@example\.com$/);
    expect(await metric(t, 'gateway_live_queries')).toBe(0);
    expect(await metric(t, 'gateway_live_queries_refused_total', 'reason="transport"')).toBe(1);
  });
});
