// `@live` queries (docs/live-queries.md): the first result at once, then a new one whenever something the query read
// changes — through any door, a signed call-status callback, on any instance — and nothing for changes it did not
// read or another account's; patches when asked; the limits; the end of a stream when its credential goes.
import { applyLiveQueryJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { liveTestApps } from '../helpers/live-apps.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
import { type Payload, type Subscription, subscribe } from '../events/sse.js';
import { closeMcpDoorsAfterEach, mcpDoor, toolAnswer } from '../helpers/mcp-client.js';

const start = liveTestApps();
closeMcpDoorsAfterEach();

export const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    campaigns(first: 50) {
      edges {
        node {
          campId
          title
          status
          metrics {
            totalNumCall
            totalSpent
          }
        }
      }
    }
  }
`;

/** A live query over SSE (the variables, if any, are `{ c }`). */
const live = (t: TestApp, token: string, query = DASHBOARD, campId = '') => subscribe(t.app, campId, token, 0, query);

const titles = (payload: Payload) =>
  (payload.data?.campaigns.edges as Array<{ node: { title: string } }>).map((edge) => edge.node.title);

async function firstResult(subscription: Subscription): Promise<Payload> {
  const { payload } = await subscription.next(2000);
  expect(payload.errors, JSON.stringify(payload)).toBeUndefined();
  return payload;
}

describe('@live queries', () => {
  it('answers at once, then again after a change through REST, GraphQL and a signed call-status callback', async () => {
    const t = await start();
    const { token, apiKey } = await t.account();
    await createLegacyCampaign(t, token, 'alpha', { title: 'Alpha' });
    const stream = await live(t, token);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    expect(titles(await firstResult(stream))).toEqual(['Alpha']);

    // REST: a new campaign joins the list.
    await createLegacyCampaign(t, token, 'beta', { title: 'Beta' });
    expect(titles((await stream.next(1000)).payload).sort()).toEqual(['Alpha', 'Beta']);

    // GraphQL: a campaign's title changes.
    const renamed = await t.gql(
      `mutation ($id: String!) { updateCampaign(campId: $id, patch: { title: "Alpha 2" }) { title } }`,
      { id: 'alpha' },
      token,
    );
    expect(renamed.body.errors, renamed.text).toBeUndefined();
    expect(titles((await stream.next(1000)).payload).sort()).toEqual(['Alpha 2', 'Beta']);

    // A signed call-status callback: the campaign's metrics change.
    await connectTelephony(t, token);
    const callback = await sendCallback(t, apiKey, 'beta', {
      CallSid: 'CA1',
      CallStatus: 'completed',
      CallDuration: '30',
      Price: '-0.25',
    });
    expect(callback.status, callback.text).toBe(200);
    let metrics: { totalNumCall: number } | undefined;
    for (let i = 0; i < 3 && metrics?.totalNumCall !== 1; i++) {
      const { payload } = await stream.next(1000);
      const beta = (payload.data?.campaigns.edges as Array<{ node: { campId: string; metrics: typeof metrics } }>).find(
        (edge) => edge.node.campId === 'beta',
      );
      metrics = beta?.node.metrics;
    }
    expect(metrics?.totalNumCall).toBe(1);
  });

  it('answers again after a change through the MCP door', async () => {
    const { t, token, client } = await mcpDoor();
    await createLegacyCampaign(t, token, 'spring', { title: 'Spring' });
    const stream = await live(t, token);
    expect(titles(await firstResult(stream))).toEqual(['Spring']);
    const updated = await toolAnswer(client, 'campaign_update', {
      input: { campId: 'spring', title: 'Spring, by agent' },
    });
    expect(updated).toHaveProperty('data');
    expect(titles((await stream.next(1000)).payload)).toEqual(['Spring, by agent']);
  });

  it('answers again when a delete takes rows with it (cascades), and after an upsert of a row stored elsewhere', async () => {
    const t = await start();
    const { token, apiKey } = await t.account();
    await createLegacyCampaign(t, token, 'alpha');
    await createLegacyCampaign(t, token, 'beta');
    await connectTelephony(t, token);
    expect((await sendCallback(t, apiKey, 'alpha', { CallSid: 'CA1', CallStatus: 'ringing' })).status).toBe(200);
    const metrics = await live(
      t,
      token,
      'query ($c: String!) @live { campaign(campId: $c) { metrics { totalCallTime } } }',
      'alpha',
    );
    expect((await firstResult(metrics)).data).toEqual({ campaign: { metrics: { totalCallTime: 0 } } });
    // The same call reported under another campaign's URL: the row stays alpha's, and alpha's metrics change.
    const callback = await sendCallback(t, apiKey, 'beta', {
      CallSid: 'CA1',
      CallStatus: 'completed',
      CallDuration: '42',
    });
    expect(callback.status, callback.text).toBe(200);
    expect((await metrics.next(1000)).payload.data).toEqual({ campaign: { metrics: { totalCallTime: 42 } } });

    const logs = await live(t, token, 'query @live { callLogs(first: 10) { edges { node { callId } } } }');
    expect((await firstResult(logs)).data.callLogs.edges).toHaveLength(1);
    const deleted = await t.gql('mutation { campaignDelete(input: { campId: "alpha" }) { __typename } }', {}, token);
    expect(deleted.body.errors, deleted.text).toBeUndefined();
    expect((await logs.next(1000)).payload.data.callLogs.edges).toEqual([]);
  });

  it('answers nothing for a change it did not read, nor for another account', async () => {
    const t = await start();
    const a = await t.account();
    const b = await t.account();
    await createLegacyCampaign(t, a.token, 'alpha', { title: 'Alpha' });
    await createLegacyCampaign(t, a.token, 'beta', { title: 'Beta' });
    await createLegacyCampaign(t, b.token, 'alpha', { title: 'Theirs' });
    const one = await live(t, a.token, 'query ($c: String!) @live { campaign(campId: $c) { title } }', 'alpha');
    expect((await firstResult(one)).data).toEqual({ campaign: { title: 'Alpha' } });
    const list = await live(t, a.token);
    expect(titles(await firstResult(list)).sort()).toEqual(['Alpha', 'Beta']);

    // Another account's campaign of the same campId, and its list: nothing for account A.
    await createLegacyCampaign(t, b.token, 'alpha', { title: 'Theirs 2' });
    await createLegacyCampaign(t, b.token, 'gamma', { title: 'Theirs 3' });
    // A's other campaign: the list hears of it, the single campaign does not.
    await createLegacyCampaign(t, a.token, 'beta', { title: 'Beta 2' });
    expect(titles((await list.next(1000)).payload).sort()).toEqual(['Alpha', 'Beta 2']);
    await one.expectNothing(400);
    await list.expectNothing(0);

    // Naming another account's node (or any key) by `node` gives nothing of that account's writes.
    const theirs = await t.gql('{ campaign(campId: "alpha") { id } }', {}, b.token);
    const spy = await live(t, a.token, 'query ($c: ID!) @live { node(id: $c) { id } }', theirs.body.data.campaign.id);
    expect((await firstResult(spy)).data).toEqual({ node: null });
    await createLegacyCampaign(t, b.token, 'alpha', { title: 'Theirs 4' });
    await spy.expectNothing(400);

    // A campaign asked for before it exists is there once it is created.
    const later = await live(t, a.token, 'query ($c: String!) @live { campaign(campId: $c) { title } }', 'delta');
    expect((await firstResult(later)).data).toEqual({ campaign: null });
    await createLegacyCampaign(t, a.token, 'delta', { title: 'Delta' });
    expect((await later.next(1000)).payload.data).toEqual({ campaign: { title: 'Delta' } });
  });

  it('runs as GraphiQL sends it: GET with Accept: text/event-stream', async () => {
    const t = await start();
    const { token } = await t.account();
    const query = encodeURIComponent('query Mine @live { campaigns(first: 5) { edges { node { title } } } }');
    const response = await t.app.fetch(
      new Request(`http://127.0.0.1/graphql?query=${query}&operationName=Mine`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      }),
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const results = sseResults(response)[Symbol.asyncIterator]();
    expect(titles((await results.next()).value as Payload)).toEqual([]);
    await createLegacyCampaign(t, token, 'alpha', { title: 'Alpha' });
    expect(titles((await results.next()).value as Payload)).toEqual(['Alpha']);
    await results.return?.(undefined);
  });

  it('sends JSON patches (RFC 6902) after the first result when the request asks for them', async () => {
    const t = await start();
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'alpha', { title: 'Alpha' });
    const response = await t.app.fetch(
      new Request('http://127.0.0.1/graphql', {
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: DASHBOARD, extensions: { livePatch: 'json-patch' } }),
      }),
    );
    const results = applyLiveQueryJSONPatch(sseResults(response));
    const raw: WirePayload[] = [];
    const iterator = results[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(titles(first.value as Payload)).toEqual(['Alpha']);
    await createLegacyCampaign(t, token, 'alpha', { title: 'Alpha 2' });
    const second = await iterator.next();
    expect(titles(second.value as Payload)).toEqual(['Alpha 2']);
    await iterator.return?.();
    // What went over the wire: revision 1 with data, then revision 2 with a patch only.
    raw.push(...wire);
    expect(raw[0]).toMatchObject({ revision: 1, data: { campaigns: expect.anything() } });
    expect(raw[1]).toMatchObject({ revision: 2 });
    expect(raw[1]!.data).toBeUndefined();
    expect(raw[1]!.patch).toContainEqual({ op: 'replace', path: '/campaigns/edges/0/node/title', value: 'Alpha 2' });
  });
});

/** What an SSE response's `next` events carried, as they came (also kept in `wire`). */
type WirePayload = Payload & { patch?: unknown[]; revision?: number };
const wire: WirePayload[] = [];
async function* sseResults(response: Response): AsyncGenerator<WirePayload> {
  wire.length = 0;
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!frame.startsWith('event: next')) continue;
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('\n');
        const payload = JSON.parse(data) as WirePayload;
        wire.push(payload);
        yield payload;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
