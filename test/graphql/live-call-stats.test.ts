// A dashboard's statistics live (docs/dashboards.md): a `@live` query of callStats and of filtered, sorted lists on one
// instance answers again when a signed call-status callback reaches another instance (Redis carries the change), and
// not for another account's call.
import { describe, expect, it } from 'vitest';
import { liveTestApps, twoInstances } from '../helpers/live-apps.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
import { subscribe } from '../events/sse.js';

const start = liveTestApps();
const REDIS_URL = 'redis://127.0.0.1:6379';

const STATS = /* GraphQL */ `
  query Today($from: DateTime!, $to: DateTime!) @live {
    callStats(from: $from, to: $to, bucket: HOUR, timeZone: "Europe/Paris") {
      totals {
        calls
        completed
        spend
      }
    }
    answered: callLogs(first: 5, orderBy: { field: DURATION }, filter: { campIds: ["spring"], outcomes: [ANSWERED] }) {
      edges {
        node {
          callId
          durationSeconds
        }
      }
    }
    running: campaigns(first: 5, orderBy: { field: CALLS }, filter: { statuses: [ACTIVE, PAUSED] }) {
      edges {
        node {
          campId
          metrics {
            totalNumCall
          }
        }
      }
    }
  }
`;

describe('@live callStats', () => {
  it("answers again when a callback reaches another instance, not for another account's calls", async () => {
    const [a, b] = await twoInstances(start, { REDIS_URL });
    const { token, apiKey } = await a.account();
    const other = await b.account();
    await createLegacyCampaign(a, token, 'spring', { title: 'Spring' });
    await createLegacyCampaign(b, other.token, 'spring', { title: 'Theirs' });
    await connectTelephony(b, token);
    await connectTelephony(b, other.token);
    const now = Date.now();
    const variables = { from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 3_600_000).toISOString() };
    const stream = await subscribe(a.app, '', token, 0, STATS, variables);
    const first = (await stream.next(2000)).payload;
    expect(first.errors, JSON.stringify(first)).toBeUndefined();
    expect(first.data?.callStats.totals).toEqual({ calls: 0, completed: 0, spend: 0 });
    expect(first.data?.answered.edges).toEqual([]);
    expect(first.data?.running.edges).toEqual([{ node: { campId: 'spring', metrics: { totalNumCall: 0 } } }]);

    // Another account's call on the other instance: no new result.
    const theirs = await sendCallback(b, other.apiKey, 'spring', { CallSid: 'CA9', CallStatus: 'completed' });
    expect(theirs.status, theirs.text).toBe(200);
    // This account's call on the other instance: a new result, counted.
    const callback = await sendCallback(b, apiKey, 'spring', {
      CallSid: 'CA1',
      CallStatus: 'completed',
      CallDuration: '42',
      Price: '-0.25',
    });
    expect(callback.status, callback.text).toBe(200);
    const next = (await stream.next(2000)).payload;
    expect(next.data?.callStats.totals).toEqual({ calls: 1, completed: 1, spend: 0.25 });
    expect(next.data?.answered.edges).toEqual([{ node: { callId: 'CA1', durationSeconds: 42 } }]);
    expect(next.data?.running.edges).toEqual([{ node: { campId: 'spring', metrics: { totalNumCall: 1 } } }]);
  });
});
