// docs/live-queries.md: the urql and Apollo Client set-ups of test/client/setups/live-*.ts, run against a real server.
// Each keeps a `@live` query's result current: a campaign changed through REST reaches the client without a refetch.
// The README's code blocks of that section are these files' code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gql as apolloGql } from '@apollo/client';
import { gql } from '@urql/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { createLiveApolloClient } from './setups/live-apollo.js';
import { createLiveUrqlClient } from './setups/live-urql.js';

const ROOT = join(import.meta.dirname, '../..');

let t: TestApp;
let http: HttpServer;
let httpUrl: string;
let wsUrl: string;
let token: string;
const disposers: Array<() => unknown> = [];

beforeEach(async () => {
  t = await startApp({}, [], { worker: false });
  http = createHttpServer(t.app);
  const { port } = await listen(http.server, 0, '127.0.0.1');
  httpUrl = `http://127.0.0.1:${port}/graphql`;
  wsUrl = `ws://127.0.0.1:${port}/graphql`;
  ({ token } = await t.account());
  await createLegacyCampaign(t, token, 'spring', { title: 'Spring' });
});
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose();
  http.server.closeAllConnections();
  await new Promise<void>((resolve) => http.server.close(() => resolve()));
  await t.close();
});

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

async function until(check: () => boolean, what: string, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('urql: a @live query over SSE follows a change made through REST', async () => {
  const client = createLiveUrqlClient({ url: httpUrl, token: () => token });
  const seen: string[][] = [];
  const { unsubscribe } = client.query<Data>(gql(LIVE), {}).subscribe((result) => {
    expect(result.error).toBeUndefined();
    seen.push(titlesOf(result.data));
  });
  disposers.push(unsubscribe);
  await until(() => seen.length === 1, 'the first result');
  expect(seen[0]).toEqual(['Spring']);
  await createLegacyCampaign(t, token, 'spring', { title: 'Spring, renamed' });
  await until(() => seen.at(-1)?.[0] === 'Spring, renamed', 'the result after the change', 1000);
});

it('Apollo Client: a @live query over WebSocket follows a change made through REST', async () => {
  const client = createLiveApolloClient({ httpUrl, wsUrl, token: () => token });
  disposers.push(() => client.stop());
  const seen: string[][] = [];
  const subscription = client.watchQuery<Data>({ query: apolloGql(LIVE) }).subscribe({
    next: (result) => {
      if (result.data) seen.push(titlesOf(result.data as Data));
    },
  });
  disposers.push(() => subscription.unsubscribe());
  await until(() => seen.length >= 1, 'the first result');
  expect(seen[0]).toEqual(['Spring']);
  await createLegacyCampaign(t, token, 'spring', { title: 'Spring, renamed' });
  await until(() => seen.at(-1)?.[0] === 'Spring, renamed', 'the result after the change', 1000);
  // The normalised cache holds the new title too.
  expect(JSON.stringify(client.cache.extract())).toContain('Spring, renamed');
});

it("docs/live-queries.md's code is these set-ups' code", () => {
  const section = readFileSync(join(ROOT, 'docs/live-queries.md'), 'utf8');
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  expect(blocks.length).toBe(2);
  const files = ['live-urql', 'live-apollo'].map((name) =>
    readFileSync(join(import.meta.dirname, `setups/${name}.ts`), 'utf8'),
  );
  for (const [index, block] of blocks.entries()) expect(files[index]).toContain(block);
});
