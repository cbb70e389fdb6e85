// The GraphQL-over-HTTP audit (graphql-http's serverAudits, the spec's own test suite) against the listener, with
// the prepared lane in shadow mode (each lane answer compared with yoga's) and with the lane off: the same verdicts,
// and every audit (MUST and SHOULD) passed. Each audit runs twice, so that its documents are answered by the lane the second
// time.
import { serverAudits } from 'graphql-http';
import { describe, expect, it } from 'vitest';
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
