// Cursors name the kind of list they page (src/graphql/schema/pagination.ts): a campaign's cursor passed to the call logs
// (the account's or a campaign's) or to a webhook's deliveries, or a delivery's cursor passed to the campaigns, is
// BAD_USER_INPUT naming the argument; and `first: 0` answers an empty page whose cursors are always accepted back
// (null when no `after` was given, the `after` itself otherwise), with hasNextPage saying whether nodes follow.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';
import { attachNewWebhook } from '../helpers/webhooks.js';

const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
const CAMPAIGNS = /* GraphQL */ `
  query ($first: Int, $after: String, $last: Int, $before: String) {
    campaigns(first: $first, after: $after, last: $last, before: $before) { edges { cursor node { campId } } ${PAGE_INFO} }
  }
`;
const CALL_LOGS = /* GraphQL */ `
  query ($first: Int, $after: String) { callLogs(first: $first, after: $after) { edges { cursor } ${PAGE_INFO} } }
`;
const CAMPAIGN_CALL_LOGS = /* GraphQL */ `
  query ($campId: String!, $first: Int, $after: String) {
    campaign(campId: $campId) { callLogs(first: $first, after: $after) { edges { cursor } ${PAGE_INFO} } }
  }
`;
const DELIVERIES = /* GraphQL */ `
  query ($webhookId: String!, $first: Int, $after: String, $before: String, $last: Int) {
    webhook(webhookId: $webhookId) {
      deliveries(first: $first, after: $after, before: $before, last: $last) { edges { cursor } ${PAGE_INFO} }
    }
  }
`;

describe('cursor kinds and first: 0', () => {
  let t: TestApp;
  let token: string;
  let webhookId: string;

  beforeEach(async () => {
    t = await startApp({}, [], { worker: false });
    ({ token } = await t.account());
    for (const campId of ['a', 'b', 'c']) {
      const created = await t.gql(
        'mutation ($input: CreateCampaignInput!) { createCampaign(input: $input) { campId } }',
        { input: campaignInput({ campId }) },
        token,
      );
      expect(created.body.errors, created.text).toBeUndefined();
    }
    webhookId = await attachNewWebhook(t, token, 'a', 'https://hooks.example.com/in');
    // Two events of campaign a: two deliveries waiting (no worker).
    for (const mutation of ['campaignPause', 'campaignResume']) {
      const changed = await t.gql(
        `mutation { ${mutation}(input: { campId: "a" }) { campaign { status } } }`,
        {},
        token,
      );
      expect(changed.body.errors, changed.text).toBeUndefined();
    }
  });
  afterEach(() => t.close());

  async function data(query: string, variables: Record<string, unknown>) {
    const reply = await t.gql(query, variables, token);
    expect(reply.body.errors, reply.text).toBeUndefined();
    return reply.body.data;
  }
  async function refusal(query: string, variables: Record<string, unknown>) {
    const reply = await t.gql(query, variables, token);
    expect(reply.body.errors, reply.text).toHaveLength(1);
    return reply.body.errors?.[0];
  }

  test("another list's cursor is BAD_USER_INPUT naming the argument, on every connection", async () => {
    const campaigns = (await data(CAMPAIGNS, { first: 2 })).campaigns;
    const campaignCursor: string = campaigns.edges[0].cursor;
    const deliveries = (await data(DELIVERIES, { webhookId, first: 1 })).webhook.deliveries;
    const deliveryCursor: string = deliveries.edges[0].cursor;

    for (const [query, variables] of [
      [CALL_LOGS, { first: 5, after: campaignCursor }],
      [CAMPAIGN_CALL_LOGS, { campId: 'a', first: 5, after: campaignCursor }],
      [DELIVERIES, { webhookId, first: 5, after: campaignCursor }],
      [CAMPAIGNS, { first: 5, after: deliveryCursor }],
    ] as const) {
      const error = await refusal(query, variables);
      expect(error.extensions.code).toBe('BAD_USER_INPUT');
      expect(error.extensions.issues).toEqual([
        expect.objectContaining({
          path: ['after'],
          type: 'value_error',
          message: expect.stringMatching(/another list/),
        }),
      ]);
    }
    const before = await refusal(DELIVERIES, { webhookId, last: 5, before: campaignCursor });
    expect(before.extensions.issues).toEqual([expect.objectContaining({ path: ['before'] })]);
    // A cursor of the list itself is accepted, of course.
    expect((await data(CAMPAIGNS, { first: 5, after: campaignCursor })).campaigns.edges).toHaveLength(2);
    expect(
      (await data(DELIVERIES, { webhookId, first: 5, after: deliveryCursor })).webhook.deliveries.edges,
    ).toHaveLength(1);
  });

  test('first: 0 answers an empty page whose cursors are accepted back, hasNextPage saying whether nodes follow', async () => {
    // No `after`: the position is the start (null), and nodes follow.
    const start = (await data(CAMPAIGNS, { first: 0 })).campaigns;
    expect(start).toEqual({
      edges: [],
      pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
    const fromStart = (await data(CAMPAIGNS, { first: 2, after: start.pageInfo.endCursor })).campaigns;
    expect(fromStart.edges.map((edge: { node: { campId: string } }) => edge.node.campId)).toEqual(['c', 'b']);

    // After a cursor: the position does not move, the cursor comes back, and the next page starts there.
    const middle = (await data(CAMPAIGNS, { first: 0, after: fromStart.pageInfo.endCursor })).campaigns;
    expect(middle.edges).toEqual([]);
    expect(middle.pageInfo).toMatchObject({ hasNextPage: true, endCursor: fromStart.pageInfo.endCursor });
    const rest = (await data(CAMPAIGNS, { first: 10, after: middle.pageInfo.endCursor })).campaigns;
    expect(rest.edges.map((edge: { node: { campId: string } }) => edge.node.campId)).toEqual(['a']);
    expect(rest.pageInfo.hasNextPage).toBe(false);

    // At the end: nothing follows.
    const end = (await data(CAMPAIGNS, { first: 0, after: rest.pageInfo.endCursor })).campaigns;
    expect(end.pageInfo).toMatchObject({ hasNextPage: false, endCursor: rest.pageInfo.endCursor });
    expect((await data(CAMPAIGNS, { first: 1, after: end.pageInfo.endCursor })).campaigns.edges).toEqual([]);

    // An empty list: nothing follows, and no cursor.
    expect((await data(CALL_LOGS, { first: 0 })).callLogs.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: null,
      endCursor: null,
    });
    // Backward, last: 0 without `before`: null cursors, hasPreviousPage saying whether nodes precede.
    const backward = (await data(DELIVERIES, { webhookId, last: 0 })).webhook.deliveries;
    expect(backward).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null },
    });
  });
});
