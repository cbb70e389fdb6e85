// Sorted lists (docs/dashboards.md "Sorted lists"): `campaigns` and `callLogs` (the account's and a campaign's) in
// every order, both directions, paged forwards and backwards with cursors that stay valid for their order; a cursor of
// another order is BAD_USER_INPUT; every order is walked by an index, with no sort, on both databases.
import { describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { lastStatement, planOf } from '../helpers/query-plans.js';

interface Seeded {
  t: TestApp;
  token: string;
  campaigns: Array<{ campId: string; title: string; status: string; calls: number; spend: number }>;
  calls: Array<{
    callId: string;
    campId: string;
    status: string;
    duration: number | null;
    cost: number | null;
    at: string;
  }>;
}

async function seed(): Promise<Seeded> {
  const t = await startApp();
  const account = await t.account();
  const titles = ['delta', 'alpha', 'charlie', 'bravo', 'echo'];
  const campaigns: Seeded['campaigns'] = [];
  for (const [i, title] of titles.entries()) {
    const campId = `camp-${i}`;
    const res = await t.rest('POST', '/update_campaign', {
      token: account.token,
      body: { campId, campaignModelData: campaignModelData({ title }) },
    });
    expect(res.status, res.text).toBe(200);
    campaigns.push({ campId, title, status: 'active', calls: 0, spend: 0 });
  }
  // Two paused, one completed: statuses tie, campIds break the ties.
  for (const [campId, action] of [
    ['camp-1', 'campaignPause'],
    ['camp-3', 'campaignPause'],
    ['camp-4', 'campaignComplete'],
  ] as const) {
    const reply = await t.gql(
      `mutation { ${action}(input: { campId: "${campId}" }) { __typename } }`,
      {},
      account.token,
    );
    expect(reply.body.errors, reply.text).toBeUndefined();
    campaigns.find((c) => c.campId === campId)!.status = action === 'campaignPause' ? 'paused' : 'completed';
  }
  // Calls: durations and costs with ties and some not reported; campaign totals follow (camp-2 and camp-4 tie on calls).
  const plan: Array<[string, string, number | null, number | null]> = [
    ['camp-0', 'completed', 120, 0.5],
    ['camp-0', 'completed', 120, 0.25],
    ['camp-0', 'busy', null, null],
    ['camp-2', 'completed', 30, 0.5],
    ['camp-2', 'no-answer', 0, 0],
    ['camp-4', 'failed', null, 1.75],
    ['camp-4', 'completed', 600, null],
    ['camp-1', 'canceled', null, null],
  ];
  const calls: Seeded['calls'] = [];
  for (const [i, [campId, status, duration, cost]] of plan.entries()) {
    const at = new Date(Date.parse('2026-05-01T10:00:00Z') + (i % 3) * 60_000).toISOString();
    const callId = `CA${String(i).padStart(2, '0')}`;
    await t.app.database.db
      .insertInto('call_logs')
      .values({
        account_id: account.id,
        call_id: callId,
        camp_id: campId,
        direction: 'outbound-api',
        from_number: '+14155550100',
        to_number: '+14155550101',
        status,
        status_rank: 3,
        started_at: at,
        ended_at: at,
        duration_seconds: duration,
        cost,
        recording_url: null,
        transcript: null,
        summary: null,
        analysis: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    calls.push({ callId, campId, status, duration, cost, at });
    const campaign = campaigns.find((c) => c.campId === campId)!;
    campaign.calls += 1;
    campaign.spend += cost ?? 0;
  }
  return { t, token: account.token, campaigns, calls };
}

/** Sorted by key then id, both descending or both ascending (what a keyset tie-broken by the id walks). */
function sortedBy<T>(items: T[], key: (item: T) => string | number, id: (item: T) => string, ascending: boolean) {
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...items].sort((a, b) => compare(key(a), key(b)) || compare(id(a), id(b)));
  return ascending ? sorted : sorted.reverse();
}

/** Every id of a connection, page by page of 2, forwards (`first`/`after`) or backwards (`last`/`before`). */
async function walk(t: TestApp, token: string, document: string, variables: Record<string, unknown>, path: string[]) {
  const pages = async (backwards: boolean) => {
    const keys: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const step = backwards ? { last: 2, before: cursor } : { first: 2, after: cursor };
      const reply: { body: { data?: any; errors?: any[] }; text: string } = await t.gql(
        document,
        { ...variables, ...step },
        token,
      );
      expect(reply.body.errors, reply.text).toBeUndefined();
      const connection: any = path.reduce((value: any, key) => value[key], reply.body.data);
      const shown: string[] = connection.edges.map((edge: any) => edge.node.key);
      if (backwards) keys.unshift(...shown);
      else keys.push(...shown);
      const { hasNextPage, hasPreviousPage, startCursor, endCursor } = connection.pageInfo;
      if (!(backwards ? hasPreviousPage : hasNextPage)) break;
      cursor = backwards ? startCursor : endCursor;
    }
    return keys;
  };
  return { forwards: await pages(false), backwards: await pages(true) };
}

const CAMPAIGNS = /* GraphQL */ `
  query ($orderBy: CampaignOrder, $first: Int, $after: String, $last: Int, $before: String) {
    campaigns(orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
      edges {
        node {
          key: campId
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`;

const CALL_LOGS = /* GraphQL */ `
  query ($orderBy: CallLogOrder, $campId: String, $first: Int, $after: String, $last: Int, $before: String) {
    callLogs(orderBy: $orderBy, campId: $campId, first: $first, after: $after, last: $last, before: $before) {
      edges {
        node {
          key: callId
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`;

const CAMPAIGN_CALL_LOGS = /* GraphQL */ `
  query ($orderBy: CallLogOrder, $campId: String!, $first: Int, $after: String, $last: Int, $before: String) {
    campaign(campId: $campId) {
      callLogs(orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
        edges {
          node {
            key: callId
          }
        }
        pageInfo {
          hasNextPage
          hasPreviousPage
          startCursor
          endCursor
        }
      }
    }
  }
`;

describe('sorted lists', () => {
  it('takes orderBy without a direction from variables, a directive in the document or not (DESC)', async () => {
    const { t, token, calls } = await seed();
    try {
      const expected = sortedBy(
        calls,
        (c) => c.cost ?? -1,
        (c) => c.callId,
        false,
      ).map((c) => c.callId);
      for (const document of [
        'query ($o: CallLogOrder) { callLogs(first: 100, orderBy: $o) { edges { node { callId } } } }',
        'query ($o: CallLogOrder, $w: Boolean = true) { callLogs(first: 100, orderBy: $o) { edges { node { callId summary @include(if: $w) } } } }',
      ]) {
        const reply = await t.gql(document, { o: { field: 'COST' } }, token);
        expect(reply.body.errors, reply.text).toBeUndefined();
        expect(reply.body.data.callLogs.edges.map((edge: any) => edge.node.callId)).toEqual(expected);
      }
    } finally {
      await t.close();
    }
  });

  it('pages a cost that is no finite amount (stored before prices were capped) as unreported: every row once', async () => {
    const { t, token, calls } = await seed();
    try {
      const accountId = (await t.gql('{ viewer { accountId } }', {}, token)).body.data.viewer.accountId as string;
      await t.app.database.db
        .updateTable('call_logs')
        .set({ cost: Number.POSITIVE_INFINITY })
        .where('account_id', '=', accountId)
        .where('call_id', '=', 'CA00')
        .execute();
      const changed = calls.map((c) => (c.callId === 'CA00' ? { ...c, cost: null } : c));
      for (const direction of ['ASC', 'DESC'] as const) {
        const expected = sortedBy(
          changed,
          (c) => c.cost ?? -1,
          (c) => c.callId,
          direction === 'ASC',
        ).map((c) => c.callId);
        const { forwards, backwards } = await walk(t, token, CALL_LOGS, { orderBy: { field: 'COST', direction } }, [
          'callLogs',
        ]);
        expect(forwards, direction).toEqual(expected);
        expect(backwards, direction).toEqual(expected);
      }
    } finally {
      await t.close();
    }
  });

  it('pages campaigns in every order, both ways, each walked by an index', async () => {
    const { t, token, campaigns } = await seed();
    try {
      const keys: Record<string, (c: Seeded['campaigns'][number]) => string | number> = {
        TITLE: (c) => c.title,
        STATUS: (c) => c.status,
        CALLS: (c) => c.calls,
        SPEND: (c) => Math.round(c.spend * 1e6),
        // Created one after the other: creation order is campId order.
        CREATED_AT: (c) => c.campId,
      };
      for (const [field, key] of Object.entries(keys)) {
        for (const direction of ['ASC', 'DESC'] as const) {
          const expected = sortedBy(campaigns, key, (c) => c.campId, direction === 'ASC').map((c) => c.campId);
          const at = `${field} ${direction}`;
          t.resetQueries();
          const { forwards, backwards } = await walk(t, token, CAMPAIGNS, { orderBy: { field, direction } }, [
            'campaigns',
          ]);
          expect(forwards, at).toEqual(expected);
          expect(backwards, at).toEqual(expected);
          const plan = await planOf(t, lastStatement(t, 'campaigns'));
          expect(plan.sorts, `${at}\n${plan.text}`).toBe(false);
          expect(plan.scans, `${at}\n${plan.text}`).toEqual([]);
        }
      }
      // UPDATED_AT follows the last change: pausing camp-1 and camp-3, then completing camp-4, moved them last.
      const updated = await walk(t, token, CAMPAIGNS, { orderBy: { field: 'UPDATED_AT', direction: 'DESC' } }, [
        'campaigns',
      ]);
      expect(updated.forwards.slice(0, 3)).toEqual(['camp-4', 'camp-3', 'camp-1']);
    } finally {
      await t.close();
    }
  });

  it('pages call logs in every order, the account’s and a campaign’s, each walked by an index', async () => {
    const { t, token, calls } = await seed();
    try {
      const keys: Record<string, (c: Seeded['calls'][number]) => string | number> = {
        STARTED_AT: (c) => c.at,
        DURATION: (c) => c.duration ?? -1,
        COST: (c) => c.cost ?? -1,
        STATUS: (c) => c.status,
      };
      for (const [field, key] of Object.entries(keys)) {
        for (const direction of ['ASC', 'DESC'] as const) {
          const at = `${field} ${direction}`;
          const orderBy = { field, direction };
          const all = sortedBy(calls, key, (c) => c.callId, direction === 'ASC').map((c) => c.callId);
          t.resetQueries();
          const account = await walk(t, token, CALL_LOGS, { orderBy }, ['callLogs']);
          expect(account.forwards, at).toEqual(all);
          expect(account.backwards, at).toEqual(all);
          const accountPlan = await planOf(t, lastStatement(t, 'call_logs'));
          expect(accountPlan.sorts, `${at}\n${accountPlan.text}`).toBe(false);
          expect(accountPlan.scans, `${at}\n${accountPlan.text}`).toEqual([]);

          const mine = sortedBy(
            calls.filter((c) => c.campId === 'camp-0'),
            key,
            (c) => c.callId,
            direction === 'ASC',
          ).map((c) => c.callId);
          t.resetQueries();
          const nested = await walk(t, token, CAMPAIGN_CALL_LOGS, { orderBy, campId: 'camp-0' }, [
            'campaign',
            'callLogs',
          ]);
          expect(nested.forwards, at).toEqual(mine);
          expect(nested.backwards, at).toEqual(mine);
          const byCampId = await walk(t, token, CALL_LOGS, { orderBy, campId: 'camp-0' }, ['callLogs']);
          expect(byCampId.forwards, at).toEqual(mine);
          const campaignPlan = await planOf(t, lastStatement(t, 'call_logs'));
          expect(campaignPlan.sorts, `${at}\n${campaignPlan.text}`).toBe(false);
          expect(campaignPlan.scans, `${at}\n${campaignPlan.text}`).toEqual([]);
        }
      }
    } finally {
      await t.close();
    }
  });

  it('refuses a cursor of another order or list as BAD_USER_INPUT, and keeps the default order’s cursors', async () => {
    const { t, token } = await seed();
    try {
      const page = async (orderBy: unknown, after?: string) =>
        t.gql(CAMPAIGNS, { orderBy, first: 2, ...(after ? { after } : {}) }, token);
      const byTitle = await page({ field: 'TITLE', direction: 'ASC' });
      const titleCursor = byTitle.body.data.campaigns.pageInfo.endCursor as string;
      for (const other of [{ field: 'TITLE', direction: 'DESC' }, { field: 'CALLS', direction: 'ASC' }, null]) {
        const reply = await page(other, titleCursor);
        expect(reply.body.errors?.[0]?.extensions?.code, JSON.stringify(other)).toBe('BAD_USER_INPUT');
        expect(reply.body.errors?.[0].message).toMatch(/another list or order/);
      }
      // The default order, asked for by name or not, makes and takes the same cursors.
      const plain = await page(null);
      const named = await page(
        { field: 'CREATED_AT', direction: 'DESC' },
        plain.body.data.campaigns.pageInfo.endCursor,
      );
      expect(named.body.errors).toBeUndefined();
      // A call log cursor is refused by campaigns, and the reverse.
      const logs = await t.gql(CALL_LOGS, { orderBy: { field: 'COST', direction: 'DESC' }, first: 1 }, token);
      const logCursor = logs.body.data.callLogs.pageInfo.endCursor as string;
      expect((await page({ field: 'SPEND', direction: 'DESC' }, logCursor)).body.errors?.[0].extensions.code).toBe(
        'BAD_USER_INPUT',
      );
      // A cursor of the right order whose sort value has the wrong type (text where a number sorts) is refused, not run.
      const forged = Buffer.from(JSON.stringify(['campaign:calls:desc', 'not a number', 'camp-0'])).toString(
        'base64url',
      );
      const reply = await page({ field: 'CALLS', direction: 'DESC' }, forged);
      expect(reply.status).toBe(200);
      expect(reply.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      // Numbers the column cannot hold (a fraction where it counts, past bigint or integer) are refused, not bound.
      for (const [order, value] of [
        [{ field: 'CALLS', direction: 'DESC' }, 1.5],
        [{ field: 'CALLS', direction: 'DESC' }, 1e20],
        [{ field: 'SPEND', direction: 'DESC' }, 9223372036854775808],
        [{ field: 'SPEND', direction: 'ASC' }, -5],
      ] as const) {
        const name = `campaign:${order.field.toLowerCase()}:${order.direction.toLowerCase()}`;
        const cursor = Buffer.from(JSON.stringify([name, value, 'camp-0'])).toString('base64url');
        const answer = await page(order, cursor);
        expect(answer.body.errors?.[0]?.extensions?.code, `${name} ${value}`).toBe('BAD_USER_INPUT');
      }
      for (const value of [2.5, 2147483648, 1e300, -2]) {
        const cursor = Buffer.from(JSON.stringify(['call-log:duration:desc', value, 'CA01'])).toString('base64url');
        const answer = await t.gql(CALL_LOGS, { orderBy: { field: 'DURATION' }, first: 1, after: cursor }, token);
        expect(answer.body.errors?.[0]?.extensions?.code, `duration ${value}`).toBe('BAD_USER_INPUT');
      }
      const forgedLog = Buffer.from(JSON.stringify(['call-log:cost:desc', 'x', 'CA01'])).toString('base64url');
      const logReply = await t.gql(CALL_LOGS, { orderBy: { field: 'COST' }, first: 1, after: forgedLog }, token);
      expect(logReply.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    } finally {
      await t.close();
    }
  });
});
