// Campaign metrics are the aggregates of the campaign's call logs after any sequence of call-status callbacks
// (docs/decisions.md §5, §7): a property-style test over seeded pseudo-random callback sequences, checked by both doors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

/** A tiny seeded PRNG (mulberry32): floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'] as const;
type Status = (typeof STATUSES)[number];
const RANK: Record<Status, number> = {
  queued: 0,
  ringing: 1,
  'in-progress': 2,
  completed: 3,
  busy: 3,
  failed: 3,
  'no-answer': 3,
  canceled: 3,
};
const isTerminal = (status: Status) => RANK[status] === 3;

const CAMPAIGNS = ['camp-a', 'camp-b'] as const;
const SIDS = 8;
const SEEDS = [1, 7, 42, 2024, 0xc0ffee];
const CALLBACKS_PER_SEED = 40;
const CHECK_EVERY = 10;

interface Callback {
  campId: string;
  params: Record<string, string>;
}

interface ExpectedCall {
  campId: string;
  status: Status;
  durationSeconds: number | null;
  cost: number | null;
}

interface Metrics {
  totalCallTime: number;
  totalNumCall: number;
  totalSpent: number;
  averageCallCost: number;
}

/** A random callback: a CallSid bound to one campaign, any of the 8 statuses, duration and price sometimes. */
function randomCallback(random: () => number, seed: number): Callback {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const sid = Math.floor(random() * SIDS);
  const status = pick(STATUSES);
  const params: Record<string, string> = { CallSid: `CA${seed}x${sid}`, CallStatus: status };
  if (random() < 0.5) params.From = '+14155550100';
  if (random() < 0.5) params.To = `+1415555${String(1000 + sid)}`;
  // Providers report duration and price on terminal callbacks; now and then on others too, or not at all.
  const likely = isTerminal(status) ? 0.7 : 0.25;
  if (random() < likely) params.CallDuration = String(Math.floor(random() * 900));
  if (random() < likely) {
    const amount = (random() * 0.5).toFixed(4);
    params.Price = random() < 0.8 ? `-${amount}` : amount;
  }
  return { campId: CAMPAIGNS[sid % CAMPAIGNS.length] as string, params };
}

/**
 * The documented rules, as applyCallStatus states them: the first callback creates the log; a later one applies only
 * when its status ranks above the stored one (so the first terminal status wins), keeping the stored duration and
 * cost where it brings none; a callback of equal or lower rank changes nothing.
 */
function applyExpected(calls: Map<string, ExpectedCall>, callback: Callback) {
  const { CallSid, CallStatus, CallDuration, Price } = callback.params as Record<string, string>;
  const status = CallStatus as Status;
  const durationSeconds = CallDuration === undefined ? null : Number(CallDuration);
  const cost = Price === undefined ? null : Math.abs(Number(Price));
  const current = calls.get(CallSid as string);
  if (!current) {
    calls.set(CallSid as string, { campId: callback.campId, status, durationSeconds, cost });
  } else if (RANK[status] > RANK[current.status]) {
    current.status = status;
    current.durationSeconds = durationSeconds ?? current.durationSeconds;
    current.cost = cost ?? current.cost;
  }
}

function expectedMetrics(calls: Map<string, ExpectedCall>, campId: string): Metrics {
  const mine = [...calls.values()].filter((call) => call.campId === campId);
  const costed = mine.filter((call) => call.cost !== null);
  const totalSpent = costed.reduce((sum, call) => sum + (call.cost ?? 0), 0);
  return {
    totalNumCall: mine.length,
    totalCallTime: mine.reduce((sum, call) => sum + (call.durationSeconds ?? 0), 0),
    totalSpent,
    averageCallCost: costed.length > 0 ? totalSpent / costed.length : 0,
  };
}

function expectMetrics(actual: Metrics, expected: Metrics, where: string) {
  expect(actual.totalNumCall, `${where} totalNumCall`).toBe(expected.totalNumCall);
  expect(actual.totalCallTime, `${where} totalCallTime`).toBe(expected.totalCallTime);
  expect(actual.totalSpent, `${where} totalSpent`).toBeCloseTo(expected.totalSpent, 9);
  expect(actual.averageCallCost, `${where} averageCallCost`).toBeCloseTo(expected.averageCallCost, 9);
}

const METRICS = 'totalCallTime totalNumCall totalSpent averageCallCost';

const CAMPAIGN_QUERY = /* GraphQL */ `
  query CampaignMetrics($campId: String!) {
    campaign(campId: $campId) {
      campId
      metrics { ${METRICS} }
    }
    callLogs(campId: $campId, first: 100) {
      edges {
        node {
          callId
          campaignId
          status
          endedAt
          durationSeconds
          cost
        }
      }
      pageInfo {
        hasNextPage
      }
    }
  }
`;

const ALL_CAMPAIGNS_QUERY = /* GraphQL */ `
  query AllCampaignMetrics {
    campaigns(first: 10) {
      edges {
        node {
          campId
          metrics { ${METRICS} }
        }
      }
    }
  }
`;

/** GraphQL's enum names (IN_PROGRESS) back to the provider's words (in-progress). */
const fromEnum = (status: string) => status.toLowerCase().replace('_', '-');

let t: TestApp;

beforeAll(async () => {
  t = await startApp();
});

afterAll(async () => {
  await t.close();
});

async function checkAgainstModel(token: string, calls: Map<string, ExpectedCall>, where: string) {
  for (const campId of CAMPAIGNS) {
    const expected = expectedMetrics(calls, campId);

    const gql = await t.gql(CAMPAIGN_QUERY, { campId }, token);
    expect(gql.body.errors, `${where} ${JSON.stringify(gql.body.errors)}`).toBeUndefined();
    const data = gql.body.data as any;
    expect(data.campaign.campId).toBe(campId);
    expectMetrics(data.campaign.metrics, expected, `${where} GraphQL ${campId}`);

    const rest = await t.rest('GET', `/get_campaign?campId=${campId}`, { token });
    expect(rest.status, rest.text).toBe(200);
    expectMetrics(rest.body, expected, `${where} REST ${campId}`);

    expect(data.callLogs.pageInfo.hasNextPage).toBe(false);
    const logs = new Map<string, any>(data.callLogs.edges.map((edge: any) => [edge.node.callId, edge.node]));
    const mine = [...calls.entries()].filter(([, call]) => call.campId === campId);
    expect([...logs.keys()].sort(), `${where} ${campId} CallSids`).toEqual(mine.map(([sid]) => sid).sort());
    for (const [sid, call] of mine) {
      const log = logs.get(sid);
      const at = `${where} ${campId} ${sid}`;
      expect(log.campaignId, at).toBe(campId);
      expect(fromEnum(log.status), at).toBe(call.status);
      expect(log.durationSeconds, at).toBe(call.durationSeconds);
      if (call.cost === null) expect(log.cost, at).toBeNull();
      else expect(log.cost, at).toBeCloseTo(call.cost, 9);
      if (isTerminal(call.status)) expect(log.endedAt, at).toEqual(expect.any(String));
      else expect(log.endedAt, at).toBeNull();
    }
  }

  // Several campaigns in one request: the batched metrics load must give each its own aggregates.
  const all = await t.gql(ALL_CAMPAIGNS_QUERY, {}, token);
  expect(all.body.errors).toBeUndefined();
  const nodes = (all.body.data as any).campaigns.edges.map((edge: any) => edge.node);
  expect(nodes.map((node: any) => node.campId).sort()).toEqual([...CAMPAIGNS].sort());
  for (const node of nodes)
    expectMetrics(node.metrics, expectedMetrics(calls, node.campId), `${where} list ${node.campId}`);

  // callStats agrees with the metrics: each campaign's totals, and the account's (both campaigns), by status too.
  for (const campIds of [[CAMPAIGNS[0]], [CAMPAIGNS[1]], [...CAMPAIGNS], null] as Array<string[] | null>) {
    const stats = await t.gql(
      STATS_QUERY,
      { campIds, from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000) },
      token,
    );
    expect(stats.body.errors, JSON.stringify(stats.body.errors)).toBeUndefined();
    const totals = (stats.body.data as any).callStats.totals;
    const mine = [...calls.values()].filter((call) => campIds === null || campIds.includes(call.campId));
    const metrics = (campIds ?? CAMPAIGNS).map((campId) => expectedMetrics(calls, campId));
    const at = `${where} callStats ${JSON.stringify(campIds)}`;
    expect(totals.calls, at).toBe(metrics.reduce((sum, m) => sum + m.totalNumCall, 0));
    expect(totals.totalDurationSeconds, at).toBe(metrics.reduce((sum, m) => sum + m.totalCallTime, 0));
    expect(totals.spend, at).toBeCloseTo(
      metrics.reduce((sum, m) => sum + m.totalSpent, 0),
      9,
    );
    if (campIds?.length === 1) {
      const metric = nodes.find((node: any) => node.campId === campIds[0]).metrics;
      expect(totals.spend, at).toBe(metric.totalSpent);
      expect(totals.averageCost, at).toBe(metric.averageCallCost);
    }
    const count = (...statuses: Status[]) => mine.filter((call) => statuses.includes(call.status)).length;
    expect(totals.completed, at).toBe(count('completed'));
    expect(totals.answered, at).toBe(count('completed', 'in-progress'));
    expect(totals.failed, at).toBe(count('failed'));
    expect(totals.noAnswer, at).toBe(count('no-answer'));
    expect(totals.busy, at).toBe(count('busy'));
    expect(totals.canceled, at).toBe(count('canceled'));
    expect(totals.ongoing, at).toBe(count('queued', 'ringing', 'in-progress'));
  }
}

const STATS_QUERY = /* GraphQL */ `
  query Stats($campIds: [String!], $from: DateTime!, $to: DateTime!) {
    callStats(campIds: $campIds, from: $from, to: $to, bucket: DAY) {
      totals {
        calls
        answered
        completed
        failed
        noAnswer
        busy
        canceled
        ongoing
        totalDurationSeconds
        spend
        averageCost
      }
    }
  }
`;

describe('campaign metrics are the aggregates of its call logs', () => {
  it('are all 0 before any callback', async () => {
    const account = await t.account();
    for (const campId of CAMPAIGNS) {
      const res = await t.rest('POST', '/update_campaign', {
        token: account.token,
        body: { campId, campaignModelData: campaignModelData({ totalNumCall: 99, totalSpent: 12.5 }) },
      });
      expect(res.status, res.text).toBe(200);
    }
    await checkAgainstModel(account.token, new Map(), 'empty');
  });

  it.each(SEEDS)('after any sequence of callbacks (seed %i)', async (seed) => {
    const random = mulberry32(seed);
    const account = await t.account();
    await connectTelephony(t, account.token);
    for (const campId of CAMPAIGNS) {
      // The legacy body requires metrics; they are ignored, never stored.
      const res = await t.rest('POST', '/update_campaign', {
        token: account.token,
        body: {
          campId,
          campaignModelData: campaignModelData({ totalCallTime: 1000, totalNumCall: 50, totalSpent: 9 }),
        },
      });
      expect(res.status, res.text).toBe(200);
    }

    const calls = new Map<string, ExpectedCall>();
    const count = CALLBACKS_PER_SEED / 2 + Math.floor(random() * (CALLBACKS_PER_SEED / 2 + 1));
    const sent: Callback[] = [];
    for (let i = 1; i <= count; i++) {
      const callback = randomCallback(random, seed);
      sent.push(callback);
      const reply = await sendCallback(t, account.apiKey, callback.campId, callback.params);
      expect(reply.status, `${JSON.stringify(callback)} → ${reply.text}`).toBe(200);
      expect(reply.body).toEqual({ received: true });
      applyExpected(calls, callback);
      if (i % CHECK_EVERY === 0 && i !== count) await checkAgainstModel(account.token, calls, `seed ${seed} #${i}`);
    }
    await checkAgainstModel(account.token, calls, `seed ${seed} final (${JSON.stringify(sent)})`.slice(0, 4000));
  });
});
