// The GraphQL-over-HTTP audit (graphql-http's serverAudits, the spec's own test suite) against the listener, with
// the prepared lane in shadow mode (each lane answer compared with yoga's) and with the lane off: the same verdicts,
// and every audit (MUST and SHOULD) passed. Each audit runs twice, so that its documents are answered by the lane the second
// time.
import { serverAudits } from 'graphql-http';
import { describe, expect, it } from 'vitest';
import { startApp } from '../helpers/app.js';
import { loopbackGateways } from '../helpers/gateway.js';

const gateway = loopbackGateways();

/** Each audit's id and verdict ('ok', 'warn' or 'error'), run in turn. */
async function audit(url: string): Promise<Array<{ id: string; name: string; status: string }>> {
  const verdicts: Array<{ id: string; name: string; status: string }> = [];
  for (const { id, name, fn } of serverAudits({ url, fetchFn: fetch })) {
    const result = await fn();
    verdicts.push({ id, name, status: result.status });
  }
  return verdicts;
}

describe('the GraphQL-over-HTTP audit', () => {
  it('passes every audit, and gives the same verdicts on the lane as through yoga alone', async () => {
    const laned = await gateway({ GRAPHQL_PREPARED_LANE: 'shadow' });
    const first = await audit(`${laned.base}/graphql`);
    const second = await audit(`${laned.base}/graphql`);
    expect(laned.t.app.lane?.stats().served).toBeGreaterThan(0);
    const yogaOnly = await gateway({ GRAPHQL_PREPARED_LANE: 'off' });
    const reference = await audit(`${yogaOnly.base}/graphql`);
    expect(second).toEqual(first);
    expect(first).toEqual(reference);
    // Fully green: every MUST and every SHOULD (61 audits with graphql-http 1.23).
    expect(first.length).toBeGreaterThan(50);
    expect(first.filter((v) => v.status !== 'ok')).toEqual([]);
  });
});

describe('request errors', () => {
  it('share one status, 400, whatever the client accepts (a missing query included)', async () => {
    const t = await startApp({}, [], { worker: false });
    try {
      const requests: Array<[string, RequestInit, string]> = [
        ['no query', { method: 'POST', body: '{}' }, ''],
        ['a query that is not a string', { method: 'POST', body: '{"query":1}' }, ''],
        ['bad JSON', { method: 'POST', body: '{' }, ''],
        ['GET without a query', { method: 'GET' }, ''],
        ['GET with an empty query', { method: 'GET' }, '?query='],
      ];
      for (const [name, init, search] of requests) {
        for (const accept of ['application/json', 'application/graphql-response+json']) {
          const headers = { accept, ...(init.method === 'POST' ? { 'content-type': 'application/json' } : {}) };
          const response = await t.app.fetch(new Request(`http://127.0.0.1/graphql${search}`, { ...init, headers }));
          expect(response.status, `${name}, ${accept}`).toBe(400);
          const body = (await response.json()) as { errors: Array<{ extensions: { code: string } }> };
          expect(body.errors[0]?.extensions.code).toBe('BAD_REQUEST');
        }
      }
    } finally {
      await t.close();
    }
  });
});
