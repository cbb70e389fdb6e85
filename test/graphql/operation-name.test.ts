// A document with several operations runs the one `operationName` names, on every path a document takes: the
// prepared lane, yoga alone, GET, automatic persisted queries, @live, WebSocket (issue 41). graphql-jit's compiled
// queries are cached per document and operation (src/graphql/server/compiled-queries.ts), never per document alone.
import { afterEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/graphql/server/persisted-operations.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { wsDoor, type WsDoor } from '../helpers/ws-client.js';

const DOCUMENT = 'query A { __typename } query B { voices(language: "en") { voiceId } }';
const A = { __typename: 'Query' };

let apps: TestApp[] = [];
const doors: WsDoor[] = [];
afterEach(async () => {
  for (const door of doors.splice(0)) await door.close();
  await Promise.all(apps.map((t) => t.close()));
  apps = [];
});

async function start(env: Record<string, string> = {}) {
  const t = await startApp(env, [], { worker: false });
  apps.push(t);
  return t;
}

const post = (t: TestApp, body: unknown, token: string, headers: Record<string, string> = {}) =>
  t.request('POST', '/graphql', {
    raw: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
    token,
  });
const get = (t: TestApp, params: Record<string, string>, token: string) =>
  t.request('GET', `/graphql?${new URLSearchParams(params)}`, { token });

/** Runs A, then B, then A again, then B again through `run`, and checks that each answer is its own. */
async function bothWaysRound(run: (operationName: 'A' | 'B') => Promise<unknown>) {
  for (const order of [
    ['A', 'B', 'A', 'B'],
    ['B', 'A', 'B', 'A'],
  ] as const) {
    for (const name of order) {
      const data = (await run(name)) as Record<string, unknown>;
      if (name === 'A') expect(data).toEqual(A);
      else expect(Array.isArray(data.voices) && data.voices.length > 0).toBe(true);
    }
  }
}

describe('the operation named is the one that runs', () => {
  for (const lane of ['on', 'off', 'shadow']) {
    it(`over POST and GET, GRAPHQL_PREPARED_LANE=${lane}`, async () => {
      const t = await start({ GRAPHQL_PREPARED_LANE: lane });
      const { token } = await t.account();
      // Each round-trip on a fresh document text (a trailing space), so that each order starts with nothing cached.
      let round = 0;
      for (const via of ['POST', 'GET', 'mixed'] as const) {
        round += 1;
        const query = DOCUMENT + ' '.repeat(round);
        let flip = false;
        await bothWaysRound(async (operationName) => {
          flip = !flip;
          const usePost = via === 'POST' || (via === 'mixed' && flip);
          const reply = usePost
            ? await post(t, { query, operationName }, token)
            : await get(t, { query, operationName }, token);
          expect(reply.status).toBe(200);
          return reply.body.data;
        });
      }
    });
  }

  it('through an automatic persisted query (the hash alone, then the same hash with the other name)', async () => {
    const t = await start();
    const { token } = await t.account();
    const hash = sha256(DOCUMENT);
    const extensions = { persistedQuery: { version: 1, sha256Hash: hash } };
    expect((await post(t, { query: DOCUMENT, extensions, operationName: 'A' }, token)).body.data).toEqual(A);
    await bothWaysRound(async (operationName) => (await post(t, { extensions, operationName }, token)).body.data);
  });

  it('as a @live query over SSE, after the same document ran as the other operation', async () => {
    const t = await start();
    const { token } = await t.account();
    const live = 'query A @live { __typename } query B @live { voices(language: "en") { voiceId } }';
    for (const operationName of ['A', 'B', 'A'] as const) {
      const controller = new AbortController();
      const response = await t.app.fetch(
        new Request('http://127.0.0.1/graphql', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream',
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify({ query: live, operationName }),
          signal: controller.signal,
        }),
      );
      const reader = response.body!.getReader();
      let text = '';
      // Keep-alive comments first, then the first result.
      while (!/^data: .*\n/m.test(text)) text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      await reader.cancel().catch(() => undefined);
      const data = JSON.parse(/^data: (.*)$/m.exec(text)![1]!).data;
      if (operationName === 'A') expect(data).toEqual(A);
      else expect(data.voices.length).toBeGreaterThan(0);
    }
  });

  it('over WebSocket (graphql-transport-ws)', async () => {
    const t = await start();
    const { token } = await t.account();
    const door = await wsDoor(t);
    doors.push(door);
    const client = door.client(token);
    await bothWaysRound(async (operationName) => {
      for await (const result of client.iterate({ query: DOCUMENT, operationName })) return result.data;
      throw new Error('no result');
    });
  });

  it('in the same document sent with no name: refused, whatever ran before', async () => {
    const t = await start();
    const { token } = await t.account();
    await post(t, { query: DOCUMENT, operationName: 'A' }, token);
    const unnamed = await post(t, { query: DOCUMENT }, token);
    expect(unnamed.body.errors?.[0]?.message).toMatch(/operation/i);
  });
});
