// What a request leaves behind dies young (docs/decisions.md §18): once its answer is out, nothing of a request may
// survive V8's young-generation collections. Each answer's page (rows, campaigns, edges, cursors) was promoted to
// the old generation, and collected there by the mark-compacts that were most of the GraphQL door's GC time, because
// an object literal with getters (a page's pageInfo) recorded its closures in an old-generation map; on PostgreSQL the
// driver's rows too (node-postgres assigned each query's promise callback after constructing it). V8's GC profiler
// tells how much the old generation grew across each scavenge: that is what the scavenge promoted.
import { GCProfiler } from 'node:v8';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';

const FIELDS = `id campId title voiceId language script purpose knowledgeBase calendar firstLine flowName systemPrompt
  tone maxCallTimeout inactiveCallTimeout postCallAnalysis postCallAnalysisSchema timeZone isFreeflow public sampleSid
  description status creationDate updatedAt`;
const PAGE = `query Page { campaigns(first: 50) { edges { cursor node { ${FIELDS} } } pageInfo { endCursor hasNextPage } } }`;
const CREATE = `mutation ($input: CreateCampaignInput!) { createCampaign(input: $input) { campId } }`;

/** Bytes the old generation grew by across the scavenges of `work`, and how many scavenges ran. */
async function promotedBy(work: () => Promise<void>): Promise<{ bytes: number; scavenges: number }> {
  const profiler = new GCProfiler();
  profiler.start();
  await work();
  const { statistics } = profiler.stop() ?? { statistics: [] };
  const oldSpace = (stats: (typeof statistics)[number]['beforeGC']) =>
    stats.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;
  const scavenges = statistics.filter((gc) => gc.gcType === 'Scavenge');
  return {
    bytes: scavenges.reduce((sum, gc) => sum + Math.max(0, oldSpace(gc.afterGC) - oldSpace(gc.beforeGC)), 0),
    scavenges: scavenges.length,
  };
}

describe('what a request leaves behind', () => {
  let t: TestApp;
  let token: string;

  beforeEach(async () => {
    // The lane alone: the suite's shadow mode would answer each request twice, and keep both answers to compare.
    t = await startApp({ GRAPHQL_PREPARED_LANE: 'on' }, [], { worker: false });
    ({ token } = await t.account());
    for (let i = 0; i < 50; i++) {
      const reply = await t.gql(
        CREATE,
        { input: campaignInput({ campId: `young-${i}`, title: `Campaign ${i}` }) },
        token,
      );
      expect(reply.body.errors).toBeUndefined();
    }
  });
  afterEach(() => t.close());

  it('dies young: a page of 50 campaigns promotes a small part of what it allocated', async () => {
    const first = await t.gql(PAGE, {}, token);
    expect(first.body.data.campaigns.edges).toHaveLength(50);
    for (let i = 0; i < 200; i++) await t.gql(PAGE, {}, token);
    const requests = 1500;
    const { bytes, scavenges } = await promotedBy(async () => {
      for (let i = 0; i < requests; i++) {
        await t.gql(PAGE, {}, token);
        // The helper records each SQL statement (kept, so promoted): not the request's own doing.
        t.resetQueries();
      }
    });
    // Each request allocates ~0.5 MB: the young generation is collected several times over 1 500 of them.
    expect(scavenges).toBeGreaterThanOrEqual(3);
    // With pageInfo's getters in an object literal each request promoted its page: ~20 KB per request here (the
    // server under load: ~35 KB); on PostgreSQL with pg's late callback as well, ~23 KB. Now ~3.5 KB on either
    // database: what survives is the few long-lived things a request touches.
    expect(bytes / requests).toBeLessThan(10 * 1024);
  });
});
