// docs/frontend-clients.md: the urql and Apollo Client set-ups of test/client/setups/, run against a real
// server: a query by APQ (the hash alone once registered, by GET), a mutation updating the normalised cache, and a
// subscription over WebSocket (and over SSE for urql). The README's code blocks are these files' code. Their
// WebSocket is Node's global one, as a reader's would be (no 'ws' package).
import { createHash } from 'node:crypto';
import { gql as apolloGql } from '@apollo/client';
import { gql } from '@urql/core';
import { introspectionFromSchema } from 'graphql';
import { beforeEach, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/schema.js';
import type { TestApp } from '../helpers/app.js';
import { liveStreamsOpen } from '../helpers/live-streams.js';
import { expectDocsCodeIsSetups, servedClients, until } from './served-clients.js';
import { createApolloClient } from './setups/apollo.js';
import { createUrqlClient } from './setups/urql.js';

const served = servedClients('spring');
let t: TestApp;
let httpUrl: string;
let wsUrl: string;
let token: string;
/** Every request the client sent to /graphql: method, and whether it carried the document or only its hash. */
let sent: Array<{ method: string; document: boolean; hash: boolean }>;

const recordingFetch: typeof fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const body = typeof init?.body === 'string' ? init.body : '';
  sent.push({
    method: init?.method ?? 'GET',
    document: url.searchParams.has('query') || /"query"/.test(body),
    hash: /persistedQuery/.test(url.search + body),
  });
  return fetch(input, init);
};

beforeEach(() => {
  ({ t, httpUrl, wsUrl, token } = served);
  sent = [];
});

const CAMPAIGNS = /* GraphQL */ `
  query Campaigns {
    campaigns(first: 10) {
      edges {
        node {
          id
          campId
          title
        }
      }
    }
  }
`;
const RENAME = /* GraphQL */ `
  mutation Rename($input: CampaignUpdateInput!) {
    campaignUpdate(input: $input) {
      campaign {
        id
        title
      }
    }
  }
`;
const EVENTS = /* GraphQL */ `
  subscription Events {
    campaignEvents(campId: "spring") {
      eventType
    }
  }
`;

const pause = () => t.gql('mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }', {}, token);
/**
 * The subscription is live on the server: an event committed before then is never its (issue 56). Over WebSocket the
 * connection is a live stream too (its token's lifetime): two in all; over SSE, the subscription's alone.
 */
const subscribed = (transport: 'websocket' | 'sse') => liveStreamsOpen(t, transport === 'websocket' ? 2 : 1);

describe('urql', () => {
  const client = (transport: 'websocket' | 'sse') =>
    createUrqlClient({
      httpUrl,
      wsUrl,
      token: () => token,
      transport,
      fetch: recordingFetch,
      introspection: introspectionFromSchema(schema),
    });

  it('queries by APQ hash, updates its normalised cache from a mutation, and subscribes over WebSocket', async () => {
    const urql = client('websocket');
    const first = await urql.query(gql(CAMPAIGNS), {}, { requestPolicy: 'network-only' }).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data.campaigns.edges[0].node.campId).toBe('spring');
    const again = await urql.query(gql(CAMPAIGNS), {}, { requestPolicy: 'network-only' }).toPromise();
    expect(again.error).toBeUndefined();
    // hash only (a miss) → the document with its hash (registers it) → the hash only; all by GET
    expect(sent.map((r) => [r.method, r.document, r.hash])).toEqual([
      ['GET', false, true],
      ['GET', true, true],
      ['GET', false, true],
    ]);

    const renamed = await urql.mutation(gql(RENAME), { input: { campId: 'spring', title: 'Renamed' } }).toPromise();
    expect(renamed.error).toBeUndefined();
    const cached = await urql.query(gql(CAMPAIGNS), {}, { requestPolicy: 'cache-only' }).toPromise();
    expect(cached.data.campaigns.edges[0].node.title).toBe('Renamed');

    const events: string[] = [];
    const subscription = urql.subscription(gql(EVENTS), {}).subscribe((result) => {
      if (result.data) events.push(result.data.campaignEvents.eventType);
    });
    served.dispose(() => subscription.unsubscribe());
    await subscribed('websocket');
    expect((await pause()).body.errors).toBeUndefined();
    await until(() => events.length > 0, 'the event over WebSocket');
    expect(events).toEqual(['CAMPAIGN_STATUS_CHANGED']);
  });

  it('subscribes over SSE with fetchSubscriptions', async () => {
    const urql = client('sse');
    const events: string[] = [];
    const subscription = urql.subscription(gql(EVENTS), {}).subscribe((result) => {
      if (result.data) events.push(result.data.campaignEvents.eventType);
    });
    served.dispose(() => subscription.unsubscribe());
    await subscribed('sse');
    expect((await pause()).body.errors).toBeUndefined();
    await until(() => events.length > 0, 'the event over SSE');
    expect(events).toEqual(['CAMPAIGN_STATUS_CHANGED']);
  });
});

describe('Apollo Client', () => {
  it('queries by APQ hash, updates its normalised cache from a mutation, and subscribes over WebSocket', async () => {
    const apollo = createApolloClient({
      httpUrl,
      wsUrl,
      token: () => token,
      sha256: (text) => createHash('sha256').update(text).digest('hex'),
      fetch: recordingFetch,
    });
    served.dispose(() => apollo.stop());
    const first = await apollo.query({ query: apolloGql(CAMPAIGNS), fetchPolicy: 'network-only' });
    expect((first.data as any).campaigns.edges[0].node.campId).toBe('spring');
    expect(sent[0]).toEqual({ method: 'GET', document: false, hash: true });
    expect(sent.some((r) => r.document && r.hash)).toBe(true);
    sent = [];
    await apollo.query({ query: apolloGql(CAMPAIGNS), fetchPolicy: 'network-only' });
    expect(sent).toEqual([{ method: 'GET', document: false, hash: true }]);

    await apollo.mutate({ mutation: apolloGql(RENAME), variables: { input: { campId: 'spring', title: 'Renamed' } } });
    const cached = await apollo.query({ query: apolloGql(CAMPAIGNS), fetchPolicy: 'cache-only' });
    expect((cached.data as any).campaigns.edges[0].node.title).toBe('Renamed');

    const events: string[] = [];
    const subscription = apollo.subscribe({ query: apolloGql(EVENTS) }).subscribe({
      next: (result) => {
        const data = result.data as { campaignEvents: { eventType: string } } | undefined;
        if (data) events.push(data.campaignEvents.eventType);
      },
    });
    served.dispose(() => subscription.unsubscribe());
    await subscribed('websocket');
    expect((await pause()).body.errors).toBeUndefined();
    await until(() => events.length > 0, 'the event over WebSocket');
    expect(events).toEqual(['CAMPAIGN_STATUS_CHANGED']);
  });
});

it("docs/frontend-clients.md's code is these set-ups' code", () => {
  expectDocsCodeIsSetups('docs/frontend-clients.md', ['urql', 'apollo']);
});
