// Paging the campaigns connection (docs/decisions.md §5; docs/graphql.md): keyset cursors forwards and backwards, a total order even
// when campaigns share a millisecond, status and search filters, page-size and cursor validation, campaignList.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';
import { internalGql } from '../helpers/internal-graph.js';

interface Node {
  campId: string;
  title: string;
  status: string;
  creationDate: string;
}
interface Page {
  edges: Array<{ cursor: string; node: Node }>;
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

const CONNECTION = /* GraphQL */ `
  query Page($first: Int, $after: String, $last: Int, $before: String, $status: CampaignStatus, $search: String) {
    campaigns(first: $first, after: $after, last: $last, before: $before, status: $status, search: $search) {
      edges {
        cursor
        node {
          campId
          title
          status
          creationDate
        }
      }
      pageInfo {
        startCursor
        endCursor
        hasNextPage
        hasPreviousPage
      }
    }
  }
`;

const CREATE = /* GraphQL */ `
  mutation Create($input: CreateCampaignInput!) {
    createCampaign(input: $input) {
      campId
      creationDate
    }
  }
`;
const UPSERT = /* GraphQL */ `
  mutation Upsert($campId: String!, $data: CampaignDataInput!) {
    upsertCampaign(campId: $campId, data: $data) {
      campId
      creationDate
    }
  }
`;
const PAUSE = /* GraphQL */ `
  mutation Pause($campId: String!) {
    pauseCampaign(campId: $campId) {
      campId
      status
    }
  }
`;
const COMPLETE = /* GraphQL */ `
  mutation Complete($campId: String!) {
    completeCampaign(campId: $campId) {
      campId
      status
    }
  }
`;
const LIST = /* GraphQL */ `
  query List($limit: Int!, $offset: Int!, $status: CampaignStatus) {
    campaignList(limit: $limit, offset: $offset, status: $status) {
      campId
      creationDate
    }
  }
`;

/** Newest first; ties by campId, descending. The campIds used here are plain ASCII, so any collation agrees. */
function newestFirst(a: { creationDate: string; campId: string }, b: { creationDate: string; campId: string }) {
  if (a.creationDate !== b.creationDate) return a.creationDate < b.creationDate ? 1 : -1;
  if (a.campId === b.campId) return 0;
  return a.campId < b.campId ? 1 : -1;
}

describe('paging campaigns', () => {
  let t: TestApp;
  /** campaignList is the REST door's, on the internal graph (docs/graphql.md#two-graphs); shaped like t.gql's. */
  const internal = async (query: string, variables: Record<string, unknown>, token: string) => ({
    body: await internalGql(t, query, variables, token),
  });
  let token: string;

  beforeEach(async () => {
    t = await startApp();
    ({ token } = await t.account());
  });
  afterEach(async () => {
    vi.useRealTimers();
    await t.close();
  });

  async function page(variables: Record<string, unknown>): Promise<Page> {
    const reply = await t.gql(CONNECTION, variables, token);
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.campaigns;
  }

  async function createMany(count: number, title = (i: number) => `Campaign ${i}`) {
    const created: Array<{ campId: string; creationDate: string }> = [];
    for (let i = 0; i < count; i++) {
      const campId = `p${String(i).padStart(3, '0')}`;
      const reply = await t.gql(UPSERT, { campId, data: campaignInput({ title: title(i) }) }, token);
      expect(reply.body.errors).toBeUndefined();
      created.push(reply.body.data.upsertCampaign);
    }
    return created;
  }

  /** Follows `first/after` until hasNextPage is false; checks each page's shape on the way. */
  async function walkForward(size: number, filter: Record<string, unknown> = {}) {
    const nodes: Node[] = [];
    const pages: Page[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 200; guard++) {
      const current = await page({ first: size, after, ...filter });
      pages.push(current);
      expect(current.edges.length).toBeLessThanOrEqual(size);
      if (current.edges.length > 0) {
        expect(current.pageInfo.startCursor).toBe(current.edges[0]?.cursor);
        expect(current.pageInfo.endCursor).toBe(current.edges.at(-1)?.cursor);
      }
      nodes.push(...current.edges.map((e) => e.node));
      if (!current.pageInfo.hasNextPage) return { nodes, pages };
      expect(current.edges).toHaveLength(size);
      after = current.pageInfo.endCursor;
    }
    throw new Error('forward walk did not end');
  }

  /** Follows `last/before` from the end until hasPreviousPage is false; returns the nodes in list order. */
  async function walkBackward(size: number, filter: Record<string, unknown> = {}) {
    const pages: Page[] = [];
    let before: string | null = null;
    for (let guard = 0; guard < 200; guard++) {
      const current = await page({ last: size, before, ...filter });
      pages.unshift(current);
      expect(current.edges.length).toBeLessThanOrEqual(size);
      if (current.edges.length > 0) {
        expect(current.pageInfo.startCursor).toBe(current.edges[0]?.cursor);
        expect(current.pageInfo.endCursor).toBe(current.edges.at(-1)?.cursor);
      }
      if (!current.pageInfo.hasPreviousPage) return { nodes: pages.flatMap((p) => p.edges.map((e) => e.node)), pages };
      expect(current.edges).toHaveLength(size);
      before = current.pageInfo.startCursor;
    }
    throw new Error('backward walk did not end');
  }

  function expectNewestFirst(nodes: Node[]) {
    for (let i = 1; i < nodes.length; i++) {
      const previous = nodes[i - 1] as Node;
      const current = nodes[i] as Node;
      expect(Date.parse(previous.creationDate)).toBeGreaterThanOrEqual(Date.parse(current.creationDate));
      expect(newestFirst(previous, current)).toBe(-1);
    }
  }

  test('57 campaigns: forwards by 10 sees each exactly once, newest first; backwards sees the same', async () => {
    const created = await createMany(57);
    const expected = [...created].sort(newestFirst).map((c) => c.campId);

    const forward = await walkForward(10);
    expect(forward.pages).toHaveLength(6);
    expect(forward.pages.map((p) => p.edges.length)).toEqual([10, 10, 10, 10, 10, 7]);
    const forwardIds = forward.nodes.map((n) => n.campId);
    expect(forwardIds).toHaveLength(57);
    expect(new Set(forwardIds).size).toBe(57);
    expect(new Set(forwardIds)).toEqual(new Set(created.map((c) => c.campId)));
    expectNewestFirst(forward.nodes);
    expect(forwardIds).toEqual(expected);
    expect(forward.pages[0]?.pageInfo.hasPreviousPage).toBe(false);

    const backward = await walkBackward(10);
    const backwardIds = backward.nodes.map((n) => n.campId);
    expect(backwardIds).toHaveLength(57);
    expect(new Set(backwardIds).size).toBe(57);
    expect(backwardIds).toEqual(forwardIds);
    expect(backward.pages.map((p) => p.edges.length)).toEqual([7, 10, 10, 10, 10, 10]);
    expect(backward.pages.at(-1)?.pageInfo.hasNextPage).toBe(false);

    // A cursor from one page continues from that exact edge: after the 25th edge comes the 26th.
    const middle = forward.pages[2]?.edges[4] as Page['edges'][number];
    const next = await page({ first: 3, after: middle.cursor });
    expect(next.edges.map((e) => e.node.campId)).toEqual(forwardIds.slice(25, 28));
    const previous = await page({ last: 3, before: middle.cursor });
    expect(previous.edges.map((e) => e.node.campId)).toEqual(forwardIds.slice(21, 24));
    expect(previous.pageInfo.hasPreviousPage).toBe(true);

    // With neither first nor last, a page holds 20.
    expect((await page({})).edges.map((e) => e.node.campId)).toEqual(forwardIds.slice(0, 20));
    // At most 100 at once.
    expect((await page({ first: 100 })).edges.map((e) => e.node.campId)).toEqual(forwardIds);
  });

  test('campaigns created in the same millisecond still page in a total order', async () => {
    // Freeze the clock so that campaigns share timestamps: three per millisecond, and nine in one.
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const created: Array<{ campId: string; creationDate: string }> = [];
    const ids = Array.from({ length: 30 }, (_, i) => `t${String((i * 7) % 30).padStart(2, '0')}`);
    for (const [i, campId] of ids.entries()) {
      vi.setSystemTime(start + (i < 9 ? 0 : Math.floor(i / 3)));
      const reply = await t.gql(CREATE, { input: campaignInput({ campId }) }, token);
      expect(reply.body.errors).toBeUndefined();
      created.push(reply.body.data.createCampaign);
    }
    vi.useRealTimers();
    expect(new Set(created.map((c) => c.creationDate)).size).toBeLessThan(created.length);
    const expected = [...created].sort(newestFirst).map((c) => c.campId);

    for (const size of [1, 2, 4, 7]) {
      const forward = await walkForward(size);
      expect(forward.nodes.map((n) => n.campId)).toEqual(expected);
      const backward = await walkBackward(size);
      expect(backward.nodes.map((n) => n.campId)).toEqual(expected);
    }
    const list = await internal(LIST, { limit: 100, offset: 0 }, token);
    expect(list.body.data.campaignList.map((c: { campId: string }) => c.campId)).toEqual(expected);
  });

  test('campaignList(limit, offset) returns the same order as the connection', async () => {
    await createMany(23);
    const forward = (await walkForward(5)).nodes.map((n) => n.campId);
    expect(forward).toHaveLength(23);

    const all = await internal(LIST, { limit: 100, offset: 0 }, token);
    expect(all.body.errors).toBeUndefined();
    expect(all.body.data.campaignList.map((c: { campId: string }) => c.campId)).toEqual(forward);

    for (const [limit, offset] of [
      [5, 0],
      [5, 5],
      [7, 10],
      [10, 20],
      [10, 23],
    ] as const) {
      const reply = await internal(LIST, { limit, offset }, token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.campaignList.map((c: { campId: string }) => c.campId)).toEqual(
        forward.slice(offset, offset + limit),
      );
    }

    const defaults = await internal('{ campaignList { campId } }', {}, token);
    expect(defaults.body.data.campaignList.map((c: { campId: string }) => c.campId)).toEqual(forward);

    for (const [limit, offset] of [
      [0, 0],
      [1001, 0],
      [10, -1],
    ]) {
      const bad = await internal(LIST, { limit, offset }, token);
      expect(bad.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  describe('filters', () => {
    test('status: PAUSED returns exactly the paused ones; ACTIVE and COMPLETED the others', async () => {
      const created = await createMany(20);
      const ids = created.map((c) => c.campId);
      const paused = ids.filter((_, i) => i % 3 === 0);
      const completed = ids.filter((_, i) => i % 5 === 1 && i % 3 !== 0);
      for (const campId of paused) {
        expect((await t.gql(PAUSE, { campId }, token)).body.errors).toBeUndefined();
      }
      for (const campId of completed) {
        expect((await t.gql(COMPLETE, { campId }, token)).body.errors).toBeUndefined();
      }
      const active = ids.filter((id) => !paused.includes(id) && !completed.includes(id));
      const order = (await walkForward(100)).nodes.map((n) => n.campId);
      const inOrder = (subset: string[]) => order.filter((id) => subset.includes(id));

      const pausedPage = await page({ first: 100, status: 'PAUSED' });
      expect(pausedPage.edges.map((e) => e.node.campId)).toEqual(inOrder(paused));
      for (const edge of pausedPage.edges) expect(edge.node.status).toBe('PAUSED');
      expect(pausedPage.pageInfo.hasNextPage).toBe(false);

      // Paging through a filtered connection keeps the filter.
      const pausedWalk = await walkForward(2, { status: 'PAUSED' });
      expect(pausedWalk.nodes.map((n) => n.campId)).toEqual(inOrder(paused));
      const pausedBack = await walkBackward(3, { status: 'PAUSED' });
      expect(pausedBack.nodes.map((n) => n.campId)).toEqual(inOrder(paused));

      const activePage = await page({ first: 100, status: 'ACTIVE' });
      expect(activePage.edges.map((e) => e.node.campId)).toEqual(inOrder(active));
      const completedPage = await page({ first: 100, status: 'COMPLETED' });
      expect(completedPage.edges.map((e) => e.node.campId)).toEqual(inOrder(completed));

      const pausedList = await internal(LIST, { limit: 100, offset: 0, status: 'PAUSED' }, token);
      expect(pausedList.body.data.campaignList.map((c: { campId: string }) => c.campId)).toEqual(inOrder(paused));
    });

    test('search: case-insensitive substring of the title; % and _ are literal', async () => {
      const titles: Record<string, string> = {
        s1: 'Spring SALE outreach',
        s2: 'spring sale follow-up',
        s3: 'Autumn sale',
        s4: 'Wholesale partners',
        s5: '100% sure',
        s6: '100 percent',
        s7: 'a_b test',
        s8: 'axb test',
        s9: 'Winter',
      };
      for (const [campId, title] of Object.entries(titles)) {
        const reply = await t.gql(CREATE, { input: campaignInput({ campId, title }) }, token);
        expect(reply.body.errors).toBeUndefined();
      }
      const search = async (text: string) =>
        (await page({ first: 100, search: text })).edges.map((e) => e.node.campId).sort();

      expect(await search('spring sale')).toEqual(['s1', 's2']);
      expect(await search('SPRING SALE')).toEqual(['s1', 's2']);
      expect(await search('sale')).toEqual(['s1', 's2', 's3', 's4']);
      expect(await search('ALE')).toEqual(['s1', 's2', 's3', 's4']);
      expect(await search('100%')).toEqual(['s5']);
      expect(await search('%')).toEqual(['s5']);
      expect(await search('a_b')).toEqual(['s7']);
      expect(await search('_')).toEqual(['s7']);
      expect(await search('nothing like this')).toEqual([]);

      // Search and status combine, and paging keeps the search.
      await t.gql(PAUSE, { campId: 's2' }, token);
      expect((await page({ first: 100, search: 'sale', status: 'PAUSED' })).edges.map((e) => e.node.campId)).toEqual([
        's2',
      ]);
      const walked = await walkForward(1, { search: 'sale' });
      expect(walked.nodes.map((n) => n.campId).sort()).toEqual(['s1', 's2', 's3', 's4']);
      const back = await walkBackward(3, { search: 'sale' });
      expect(back.nodes.map((n) => n.campId)).toEqual(walked.nodes.map((n) => n.campId));
    });

    test('search: a backslash is literal', async () => {
      await t.gql(CREATE, { input: campaignInput({ campId: 'b1', title: 'back\\slash' }) }, token);
      await t.gql(CREATE, { input: campaignInput({ campId: 'b2', title: 'backslash' }) }, token);
      const search = async (text: string) =>
        (await page({ first: 100, search: text })).edges.map((e) => e.node.campId).sort();
      expect(await search('\\')).toEqual(['b1']);
      expect(await search('k\\s')).toEqual(['b1']);
      expect(await search('ks')).toEqual(['b2']);
    });

    test('search: case-insensitive beyond ASCII (accented titles)', async () => {
      await t.gql(CREATE, { input: campaignInput({ campId: 'fr1', title: 'Été à Paris' }) }, token);
      await t.gql(CREATE, { input: campaignInput({ campId: 'de1', title: 'ÜBERWEISUNG Kunden' }) }, token);
      await t.gql(CREATE, { input: campaignInput({ campId: 'en1', title: 'Summer in Paris' }) }, token);
      const search = async (text: string) =>
        (await page({ first: 100, search: text })).edges.map((e) => e.node.campId).sort();
      // The exact text of the title finds it, whatever the case.
      expect(await search('Été')).toEqual(['fr1']);
      expect(await search('été')).toEqual(['fr1']);
      expect(await search('ÉTÉ')).toEqual(['fr1']);
      expect(await search('überweisung')).toEqual(['de1']);
      expect(await search('ÜBERWEISUNG')).toEqual(['de1']);
      expect(await search('paris')).toEqual(['en1', 'fr1']);
    });

    test('search also matches the description and the campId', async () => {
      await t.gql(
        CREATE,
        { input: campaignInput({ campId: 'd1', title: 'One', description: 'About Widgets' }) },
        token,
      );
      await t.gql(CREATE, { input: campaignInput({ campId: 'gadget-run', title: 'Two' }) }, token);
      await t.gql(CREATE, { input: campaignInput({ campId: 'd3', title: 'Three' }) }, token);
      const search = async (text: string) =>
        (await page({ first: 100, search: text })).edges.map((e) => e.node.campId).sort();
      expect(await search('widget')).toEqual(['d1']);
      expect(await search('GADGET')).toEqual(['gadget-run']);
    });
  });

  describe('argument validation', () => {
    const codeOf = async (variables: Record<string, unknown>) => {
      const reply = await t.gql(CONNECTION, variables, token);
      expect(reply.body.errors).toHaveLength(1);
      expect(reply.body.data ?? null).toBeNull();
      return reply.body.errors?.[0].extensions.code;
    };

    test('a page larger than 100 or negative is BAD_USER_INPUT', async () => {
      await createMany(3);
      expect(await codeOf({ first: 101 })).toBe('BAD_USER_INPUT');
      expect(await codeOf({ first: -1 })).toBe('BAD_USER_INPUT');
      expect(await codeOf({ last: 101 })).toBe('BAD_USER_INPUT');
      expect(await codeOf({ last: -1 })).toBe('BAD_USER_INPUT');

      const reply = await t.gql(CONNECTION, { first: 101 }, token);
      expect(reply.body.errors?.[0].extensions.issues).toEqual([
        expect.objectContaining({ path: ['first'], type: 'less_than_equal' }),
      ]);

      // The bounds themselves are fine.
      expect((await page({ first: 100 })).edges).toHaveLength(3);
      expect((await page({ first: 0 })).edges).toHaveLength(0);
    });

    test('a cursor this connection did not make is BAD_USER_INPUT', async () => {
      await createMany(3);
      expect(await codeOf({ first: 10, after: 'garbage!!' })).toBe('BAD_USER_INPUT');
      expect(await codeOf({ first: 10, after: 'bm90LWpzb24' })).toBe('BAD_USER_INPUT');
      expect(await codeOf({ last: 10, before: 'garbage' })).toBe('BAD_USER_INPUT');
      // Valid JSON of the wrong shape.
      const oneElement = Buffer.from(JSON.stringify(['x'])).toString('base64url');
      expect(await codeOf({ first: 10, after: oneElement })).toBe('BAD_USER_INPUT');
      const numbers = Buffer.from(JSON.stringify([1, 2])).toString('base64url');
      expect(await codeOf({ first: 10, after: numbers })).toBe('BAD_USER_INPUT');

      const reply = await t.gql(CONNECTION, { first: 10, after: 'garbage!!' }, token);
      expect(reply.body.errors?.[0].extensions.issues).toEqual([expect.objectContaining({ path: ['after'] })]);
    });

    test("another account's cursor does not reveal its campaigns", async () => {
      const created = await createMany(4);
      const first = await page({ first: 2 });
      const other = await t.account();
      const reply = await t.gql(CONNECTION, { first: 10, after: first.pageInfo.endCursor }, other.token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.campaigns.edges).toEqual([]);
      expect(created).toHaveLength(4);
    });
  });
});
