// docs/live-queries.md: the urql and Apollo Client set-ups of test/client/setups/live-*.ts, run against a real server.
// Each keeps a `@live` query's result current: a campaign changed through REST reaches the client without a refetch.
// The README's code blocks of that section are these files' code.
import { gql as apolloGql } from '@apollo/client';
import { gql } from '@urql/core';
import { beforeEach, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { expectDocsCodeIsSetups, servedClients, until } from './served-clients.js';
import { createLiveApolloClient } from './setups/live-apollo.js';
import { createLiveUrqlClient } from './setups/live-urql.js';

const served = servedClients('spring', 'Spring');
let t: TestApp;
let httpUrl: string;
let wsUrl: string;
let token: string;
beforeEach(() => ({ t, httpUrl, wsUrl, token } = served));

const LIVE = /* GraphQL */ `
  query Dashboard @live {
    campaigns(first: 20) {
      edges {
        node {
          id
          title
          status
        }
      }
    }
  }
`;

type Data = { campaigns: { edges: Array<{ node: { title: string; status: string } }> } };
const titlesOf = (data: Data | undefined) => data?.campaigns.edges.map((edge) => edge.node.title) ?? [];

it('urql: a @live query over SSE follows a change made through REST', async () => {
  const client = createLiveUrqlClient({ url: httpUrl, token: () => token });
  const seen: string[][] = [];
  const { unsubscribe } = client.query<Data>(gql(LIVE), {}).subscribe((result) => {
    expect(result.error).toBeUndefined();
    seen.push(titlesOf(result.data));
  });
  served.dispose(unsubscribe);
  await until(() => seen.length === 1, 'the first result');
  expect(seen[0]).toEqual(['Spring']);
  await createLegacyCampaign(t, token, 'spring', { title: 'Spring, renamed' });
  await until(() => seen.at(-1)?.[0] === 'Spring, renamed', 'the result after the change', 1000);
});

it('Apollo Client: a @live query over WebSocket follows a change made through REST', async () => {
  const client = createLiveApolloClient({ httpUrl, wsUrl, token: () => token });
  served.dispose(() => client.stop());
  const seen: string[][] = [];
  const subscription = client.watchQuery<Data>({ query: apolloGql(LIVE) }).subscribe({
    next: (result) => {
      if (result.data) seen.push(titlesOf(result.data as Data));
    },
  });
  served.dispose(() => subscription.unsubscribe());
  await until(() => seen.length >= 1, 'the first result');
  expect(seen[0]).toEqual(['Spring']);
  await createLegacyCampaign(t, token, 'spring', { title: 'Spring, renamed' });
  await until(() => seen.at(-1)?.[0] === 'Spring, renamed', 'the result after the change', 1000);
  // The normalised cache holds the new title too.
  expect(JSON.stringify(client.cache.extract())).toContain('Spring, renamed');
});

it("docs/live-queries.md's code is these set-ups' code", () => {
  expectDocsCodeIsSetups('docs/live-queries.md', ['live-urql', 'live-apollo']);
});
