// The prepared lane (src/graphql/lane/prepared-lane.ts; docs/graphql-internals.md "Prepared lane"): a query document yoga has
// validated once is answered again without yoga's HTTP pipeline, with the same status, headers and body bytes.
// Every test app of the suite runs in shadow mode (test/helpers/app.ts), where each lane answer is compared with
// yoga's; here a corpus of the requests that could differ is sent, and the lane must have answered each one it can.
import { describe, expect, it } from 'vitest';
import { Response } from '../../src/core/fetch-api.js';
import { compareWithYoga } from '../../src/http/lane-shadow.js';
import type { TestApp } from '../helpers/app.js';
import { appsClosedAfterEach } from '../helpers/started-apps.js';

const start = appsClosedAfterEach();

const LIST = 'query List($first: Int = 5) { campaigns(first: $first) { edges { node { id campId title status } } } }';
const CREATE = `mutation { campaignCreate(input: { campId: "lane-1", title: "Lane", voiceId: "en-US-aria",
  language: "en-US", script: "Hello", purpose: "Test", knowledgeBase: "kb", calendar: "cal-1", firstLine: "Hi",
  tone: "friendly", postCallAnalysisSchema: {} }) { campaign { id } } }`;

const served = (t: TestApp) => t.app.lane?.stats().served ?? 0;

function post(t: TestApp, body: unknown, headers: Record<string, string> = {}, token?: string) {
  return t.request('POST', '/graphql', {
    raw: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
    token,
  });
}

function get(t: TestApp, params: Record<string, string>, headers: Record<string, string> = {}, token?: string) {
  return t.request('GET', `/graphql?${new URLSearchParams(params)}`, { headers, token });
}

describe('the prepared lane', () => {
  it('answers a document the second time it is seen, and yoga the first time (GRAPHQL_PREPARED_LANE=on)', async () => {
    const t = await start({ GRAPHQL_PREPARED_LANE: 'on' });
    const { token } = await t.account();
    await t.gql(CREATE, undefined, token);
    const first = await post(t, { query: LIST }, {}, token);
    expect(served(t)).toBe(0);
    const second = await post(t, { query: LIST }, {}, token);
    expect(served(t)).toBe(1);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.body.data.campaigns.edges).toHaveLength(1);
    // GET of the same document and operation: the lane too.
    const byGet = await get(t, { query: LIST }, {}, token);
    expect(served(t)).toBe(2);
    expect(byGet.text).toBe(first.text);
  });

  it('keeps documents within GRAPHQL_DOCUMENT_CACHE_MB, by estimate, whatever their number', async () => {
    // A 4 KB document is charged ~670 KB (src/core/byte-bounded-caches.ts): 1 MiB holds one of them.
    const t = await start({ GRAPHQL_PREPARED_LANE: 'on', GRAPHQL_DOCUMENT_CACHE_MB: '1' });
    const { token } = await t.account();
    for (let i = 0; i < 10; i++) {
      const query = `query Q${i} { viewer { email } } # ${'x'.repeat(4000)}`;
      expect((await post(t, { query }, {}, token)).body.data.viewer.email).toMatch(/@/);
      expect(t.app.lane?.stats().documents).toBeLessThanOrEqual(1);
    }
    expect(t.app.lane?.stats().documents).toBe(1);
  });

  it('is not there when off, nor under PERSISTED_OPERATIONS=only', async () => {
    expect((await start({ GRAPHQL_PREPARED_LANE: 'off' })).app.lane).toBeNull();
    expect((await start({ PERSISTED_OPERATIONS: 'only' })).app.lane).toBeNull();
  });

  it('answers like yoga: each request of the corpus compared byte for byte (shadow mode)', async () => {
    const t = await start();
    const { token } = await t.account();
    const other = await t.account();
    await t.gql(CREATE, undefined, token);
    const before = served(t);
    const corpus: Array<() => Promise<{ status: number }>> = [
      // Plain POST and GET, default and explicit variables, every Accept yoga answers a single result in.
      () => post(t, { query: LIST }, {}, token),
      () => post(t, { query: LIST, variables: { first: 1 }, operationName: 'List' }, {}, token),
      () => post(t, { query: LIST, variables: null, operationName: null }, {}, token),
      () => post(t, { query: LIST }, { accept: 'application/graphql-response+json' }, token),
      () => post(t, { query: LIST }, { accept: 'application/json' }, token),
      () => post(t, { query: LIST }, { accept: 'application/graphql-response+json, application/json;q=0.9' }, token),
      () => post(t, { query: LIST }, { accept: 'text/html, */*' }, token),
      () => post(t, { query: LIST }, { 'content-type': 'application/json; charset=utf-8' }, token),
      () => get(t, { query: LIST, variables: JSON.stringify({ first: 2 }) }, {}, token),
      () => get(t, { query: LIST, operationName: 'List' }, { accept: 'application/graphql-response+json' }, token),
      // CORS: the origin echoed, as yoga's CORS plugin does.
      () => post(t, { query: LIST }, { origin: 'https://app.example' }, token),
      // Bad variables: coercion errors (400 under graphql-response+json, 200 under application/json).
      () => post(t, { query: LIST, variables: { first: 'many' } }, {}, token),
      () =>
        post(t, { query: LIST, variables: { first: 'many' } }, { accept: 'application/graphql-response+json' }, token),
      () => post(t, { query: LIST, variables: { first: -1 } }, {}, token),
      () =>
        post(t, { query: LIST, variables: { first: 100000 } }, { accept: 'application/graphql-response+json' }, token),
      // Missing, malformed and another account's credentials.
      () => post(t, { query: LIST }),
      () => post(t, { query: LIST }, { accept: 'application/graphql-response+json' }),
      () => post(t, { query: LIST }, {}, 'not-a-token'),
      () => post(t, { query: LIST }, {}, other.token),
      // A query with several operations, each chosen by name.
      () => post(t, { query: `${LIST} query Me { viewer { email } }`, operationName: 'Me' }, {}, token),
      () => post(t, { query: `${LIST} query Me { viewer { email } }`, operationName: 'List' }, {}, token),
    ];
    for (const send of corpus) {
      for (let i = 0; i < 2; i++) expect((await send()).status).toBeLessThan(500);
    }
    // Every request above is one the lane takes: each was answered by it and compared with yoga's answer.
    expect(served(t) - before).toBe(corpus.length * 2);
  });

  it('leaves to yoga what it does not take, with the same answers as before', async () => {
    const t = await start();
    const { token } = await t.account();
    const deep = `query { ${'viewer { campaigns(first: 1) { edges { node { '.repeat(4)} id ${'} } } }'.repeat(4)} }`;
    const aliases = `query { ${Array.from({ length: 40 }, (_, i) => `a${i}: viewer { email }`).join(' ')} }`;
    const costly = `query { campaigns(first: 100) { edges { node { callLogs(first: 100) { edges { node { callId } } } } } } }`;
    const before = served(t);
    const answers = [
      // Documents refused by validation and the limits (depth, aliases), and a syntax error; the costly one is valid,
      // and refused as it executes (COST_LIMIT_EXCEEDED, src/graphql/server/document-cost.ts): the lane's (below).
      await post(t, { query: deep }, {}, token),
      await post(t, { query: aliases }, {}, token),
      await post(t, { query: costly }, {}, token),
      await post(t, { query: 'query {' }, {}, token),
      await post(t, { query: 'query { nope }' }, { accept: 'application/graphql-response+json' }, token),
      // Mutations, batches, persisted queries, other content types, unknown parameters, bad JSON.
      await post(t, { query: CREATE }, {}, token),
      await post(t, [{ query: LIST }], {}, token),
      await post(
        t,
        { query: LIST, extensions: { persistedQuery: { version: 1, sha256Hash: 'ab'.repeat(32) } } },
        {},
        token,
      ),
      await post(t, { query: LIST, extra: 1 }, {}, token),
      await t.request('POST', '/graphql', {
        raw: '{"query": ',
        headers: { 'content-type': 'application/json' },
        token,
      }),
      await t.request('POST', '/graphql', { raw: 'null', headers: { 'content-type': 'application/json' }, token }),
      await t.request('POST', '/graphql', { raw: LIST, headers: { 'content-type': 'application/graphql' }, token }),
      await post(t, { query: LIST }, { accept: 'text/event-stream' }, token),
      await post(t, { query: LIST, variables: [1] }, {}, token),
      await get(t, { query: LIST, variables: '{bad' }, {}, token),
      await get(t, { query: CREATE }, {}, token),
    ];
    expect(served(t) - before).toBe(1);
    expect(answers[2]?.body.errors[0].extensions.code).toBe('COST_LIMIT_EXCEEDED');
    expect(answers.map((a) => a.status)).toEqual([
      200, 200, 200, 200, 400, 200, 400, 400, 400, 400, 400, 200, 200, 400, 400, 405,
    ]);
    expect(answers[7]?.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_MISMATCH');
  });

  it('answers read-only tokens, revoked tokens and a 304 as yoga does', async () => {
    const t = await start();
    const { token } = await t.account();
    await t.gql(CREATE, undefined, token);
    const created = await t.gql(
      'mutation { accessTokenCreate(input: { name: "reader", readOnly: true }) { token accessToken { tokenId } } }',
      undefined,
      token,
    );
    const reader = created.body.data.accessTokenCreate.token as string;
    const before = served(t);
    expect((await post(t, { query: LIST }, {}, reader)).body.data.campaigns.edges).toHaveLength(1);
    const first = await get(t, { query: LIST }, {}, reader);
    const etag = first.headers.get('etag') ?? '';
    expect((await get(t, { query: LIST }, { 'if-none-match': etag }, reader)).status).toBe(304);
    await t.gql(
      'mutation ($id: String!) { accessTokenRevoke(input: { tokenId: $id }) { deletedId } }',
      { id: created.body.data.accessTokenCreate.accessToken.tokenId },
      token,
    );
    const revoked = await post(t, { query: LIST }, { accept: 'application/graphql-response+json' }, reader);
    expect(revoked.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(served(t) - before).toBe(4);
  });

  it('refuses before the lane as before: 413 past the body limit, 429 past the rate limit', async () => {
    const t = await start({ RATE_LIMIT_PER_MINUTE: '3' });
    const { token } = await t.account();
    const big = await post(t, { query: LIST, variables: { pad: 'x'.repeat(1024 * 1024) } }, {}, token);
    expect(big.status).toBe(413);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(t, { query: LIST }, {}, token)).status);
    expect(statuses).toContain(429);
  });

  it('keeps at most GRAPHQL_PREPARED_DOCUMENTS documents, the least recently used going first', async () => {
    const t = await start({ GRAPHQL_PREPARED_LANE: 'on', GRAPHQL_PREPARED_DOCUMENTS: '3' });
    const { token } = await t.account();
    const doc = (n: number) => `query Doc${n} { viewer { email } }`;
    for (const n of [1, 2, 3]) await post(t, { query: doc(n) }, {}, token);
    expect(t.app.lane?.stats().documents).toBe(3);
    await post(t, { query: doc(1) }, {}, token); // used again: now the most recent
    await post(t, { query: doc(4) }, {}, token); // learnt: Doc2, the least recent, goes
    expect(t.app.lane?.stats().documents).toBe(3);
    const before = served(t);
    await post(t, { query: doc(1) }, {}, token);
    expect(served(t)).toBe(before + 1);
    await post(t, { query: doc(2) }, {}, token);
    expect(served(t)).toBe(before + 1);
    // A document longer than MAX_LANE_DOCUMENT_LENGTH is never kept.
    const long = `query Long { viewer { email } } ${'#'.repeat(17 * 1024)}`;
    await post(t, { query: long }, {}, token);
    await post(t, { query: long }, {}, token);
    expect(served(t)).toBe(before + 1);
  });
});

describe('the shadow comparison', () => {
  const answer = (body: string, headers: Record<string, string> = {}, status = 200) =>
    new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });

  it('passes equal answers on, and throws on any difference of status, header or body', async () => {
    const same = await compareWithYoga(answer('{"data":1}'), async () => answer('{"data":1}'));
    expect(await same.text()).toBe('{"data":1}');
    await expect(compareWithYoga(answer('{"data":1}'), async () => answer('{"data":2}'))).rejects.toThrow(/body/);
    await expect(compareWithYoga(answer('1', {}, 400), async () => answer('1'))).rejects.toThrow(/status 400/);
    await expect(compareWithYoga(answer('1', { vary: 'Origin' }), async () => answer('1'))).rejects.toThrow(/vary/);
  });
});
