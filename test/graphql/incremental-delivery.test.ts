// @defer and @stream (docs/graphql-api.md "Incremental delivery"): a query defers a campaign's metrics or streams its call logs,
// and the answer comes in parts over multipart/mixed or SSE; a JSON-only client gets 406, and a document is bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INCREMENTAL_DIRECTIVES } from '../../src/graphql/server/incremental-delivery.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp({}, [], { worker: false });
  const account = await t.account();
  token = account.token;
  await connectTelephony(t, token);
  await createLegacyCampaign(t, token, 'spring');
  for (const sid of ['CA1', 'CA2', 'CA3']) {
    const reply = await sendCallback(t, account.apiKey, 'spring', { CallSid: sid, CallStatus: 'completed' });
    expect(reply.status, reply.text).toBe(200);
  }
});
afterAll(() => t.close());

async function send(query: string, accept: string) {
  const response = await t.app.fetch(
    new Request('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    }),
  );
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** The JSON parts of a multipart/mixed answer, in order. */
function multipartParts(text: string): any[] {
  return text
    .split('\r\n---')
    .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4).trim())
    .filter((body) => body.startsWith('{'))
    .map((body) => JSON.parse(body));
}

/** The `next` events of an SSE answer, parsed, and whether it ended with `complete`. */
function sseEvents(text: string) {
  const events = text.split('\n\n').filter((event) => event.startsWith('event:'));
  return {
    next: events.filter((e) => e.startsWith('event: next')).map((e) => JSON.parse(e.split('\ndata: ')[1]!)),
    complete: events.at(-1)?.startsWith('event: complete') ?? false,
  };
}

const DEFERRED_METRICS = /* GraphQL */ `
  {
    campaign(campId: "spring") {
      campId
      ... @defer(label: "metrics") {
        metrics {
          totalNumCall
        }
      }
    }
  }
`;

describe('@defer', () => {
  it('sends the campaign first and its metrics after, over multipart/mixed', async () => {
    const reply = await send(DEFERRED_METRICS, 'multipart/mixed');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.type).toMatch(/^multipart\/mixed/);
    const [first, ...rest] = multipartParts(reply.text);
    expect(first).toEqual({ data: { campaign: { campId: 'spring' } }, hasNext: true });
    expect(rest.at(-1)?.hasNext).toBe(false);
    expect(rest.flatMap((part) => part.incremental ?? [])).toEqual([
      { data: { metrics: { totalNumCall: 3 } }, path: ['campaign'], label: 'metrics' },
    ]);
  });

  it('and over SSE, ending with complete', async () => {
    const reply = await send(DEFERRED_METRICS, 'text/event-stream');
    expect(reply.status, reply.text).toBe(200);
    const { next, complete } = sseEvents(reply.text);
    expect(next[0]).toEqual({ data: { campaign: { campId: 'spring' } }, hasNext: true });
    expect(next.flatMap((part) => part.incremental ?? [])[0].data).toEqual({ metrics: { totalNumCall: 3 } });
    expect(complete).toBe(true);
  });

  it('a client that accepts only JSON is told 406, not sent a partial answer', async () => {
    const reply = await send(DEFERRED_METRICS, 'application/json');
    expect(reply.status).toBe(406);
  });
});

describe('@stream', () => {
  it('streams a call-log list item by item after the first', async () => {
    const reply = await send(
      '{ callLogs(first: 10) { edges @stream(initialCount: 1) { node { callId } } } }',
      'multipart/mixed',
    );
    expect(reply.status, reply.text).toBe(200);
    const [first, ...rest] = multipartParts(reply.text);
    expect(first.data.callLogs.edges).toHaveLength(1);
    expect(first.hasNext).toBe(true);
    const streamed = rest.flatMap((part) => part.incremental ?? []).flatMap((item) => item.items);
    const all = [...first.data.callLogs.edges, ...streamed].map((edge) => edge.node.callId);
    expect(all).toEqual(['CA3', 'CA2', 'CA1']);
    expect(rest.at(-1)?.hasNext).toBe(false);
  });
});

describe('limits', () => {
  it(`refuses more than ${MAX_INCREMENTAL_DIRECTIVES} @defer/@stream in one document, before it runs`, async () => {
    const fragments = Array.from(
      { length: MAX_INCREMENTAL_DIRECTIVES + 1 },
      // Fields of different names: no one is repeated past the merging limit (src/graphql/server/document-work.ts).
      (_, i) => `... @defer(label: "d${i}") { ${['title', 'status', 'language', 'voiceId', 'tone'][i % 5]} }`,
    );
    const reply = await send(`{ campaign(campId: "spring") { campId ${fragments.join(' ')} } }`, 'multipart/mixed');
    expect(reply.text).toMatch(/At most 20 @defer and @stream/);
    expect(reply.text).not.toMatch(/"campId":"spring"/);
  });

  it('a query without them still runs compiled and answers plain JSON', async () => {
    const reply = await send('{ campaign(campId: "spring") { campId metrics { totalNumCall } } }', 'application/json');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({ data: { campaign: { campId: 'spring', metrics: { totalNumCall: 3 } } } });
  });
});

describe('INCREMENTAL_DELIVERY=false', () => {
  it('turns the directives off: @defer is then an unknown directive', async () => {
    const off = await startApp({ INCREMENTAL_DELIVERY: 'false' }, [], { worker: false });
    try {
      const { token: offToken } = await off.account();
      const reply = await off.gql(DEFERRED_METRICS, {}, offToken);
      expect(reply.body.errors?.[0].message).toMatch(/Unknown directive "@defer"/);
    } finally {
      await off.close();
    }
  });
});
