// The text pipeline over GraphQL (docs/decisions.md §6, §10; docs/graphql.md): setTextPipeline, deleteTextPipeline, Campaign.textPipeline,
// defaults, validation issues with paths, NOT_FOUND, cascade on campaign delete, tenancy, batched listing.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const PIPELINE = /* GraphQL */ `
  fragment Pipeline on TextPipeline {
    campId
    goal
    messageDelay
    mexRetry
    retryDelay
    postWebhook
    postWebhookDelay
    updatedAt
  }
`;
const SET = /* GraphQL */ `
  mutation Set($campId: String!, $input: TextPipelineInput!) {
    setTextPipeline(campId: $campId, input: $input) {
      ...Pipeline
    }
  }
  ${PIPELINE}
`;
const DELETE = /* GraphQL */ `
  mutation Delete($campId: String!) {
    deleteTextPipeline(campId: $campId) {
      ...Pipeline
    }
  }
  ${PIPELINE}
`;
const GET = /* GraphQL */ `
  query Get($campId: String!) {
    campaign(campId: $campId) {
      campId
      textPipeline {
        ...Pipeline
      }
    }
  }
  ${PIPELINE}
`;
const CREATE = /* GraphQL */ `
  mutation Create($input: CreateCampaignInput!) {
    createCampaign(input: $input) {
      campId
    }
  }
`;
const DELETE_CAMPAIGN = /* GraphQL */ `
  mutation DeleteCampaign($campId: String!) {
    deleteCampaign(campId: $campId) {
      campId
    }
  }
`;
const LIST = /* GraphQL */ `
  query List {
    campaigns(first: 50) {
      edges {
        node {
          campId
          textPipeline {
            goal
            mexRetry
          }
        }
      }
    }
  }
`;

let t: TestApp;
let token: string;

beforeEach(async () => {
  t = await startApp();
  ({ token } = await t.account());
});

afterEach(async () => {
  await t.close();
});

async function createCampaign(campId: string, as = token) {
  const reply = await t.gql(CREATE, { input: campaignInput({ campId }) }, as);
  expect(reply.body.errors, reply.text).toBeUndefined();
}

const set = (campId: string, input: Record<string, unknown>, as = token) => t.gql(SET, { campId, input }, as);

function codeOf(reply: { body: { errors?: any[] } }): string | undefined {
  return reply.body.errors?.[0]?.extensions?.code;
}

function issuesOf(reply: { body: { errors?: any[]; data?: unknown } }) {
  expect(reply.body.errors).toHaveLength(1);
  const error = reply.body.errors?.[0];
  expect(error.extensions.code).toBe('BAD_USER_INPUT');
  expect(Array.isArray(error.extensions.issues)).toBe(true);
  for (const issue of error.extensions.issues) {
    expect(Array.isArray(issue.path)).toBe(true);
    expect(typeof issue.message).toBe('string');
  }
  return error.extensions.issues as Array<{ path: Array<string | number>; message: string; type?: string }>;
}

describe('setTextPipeline', () => {
  beforeEach(async () => {
    await createCampaign('spring');
  });

  test('a goal alone takes every default', async () => {
    const reply = await set('spring', { goal: 'Book a demo' });
    expect(reply.body.errors, reply.text).toBeUndefined();
    expect(reply.body.data.setTextPipeline).toEqual({
      campId: 'spring',
      goal: 'Book a demo',
      messageDelay: 1,
      mexRetry: 1,
      retryDelay: 1,
      postWebhook: null,
      postWebhookDelay: 0,
      updatedAt: expect.stringMatching(ISO_UTC),
    });
  });

  test('every field, then a replacement with a goal alone resets the others', async () => {
    const full = {
      goal: 'Follow up',
      messageDelay: 10,
      mexRetry: 5,
      retryDelay: 5,
      postWebhook: 'https://hooks.example.com/x',
      postWebhookDelay: 3600,
    };
    const first = await set('spring', full);
    expect(first.body.errors, first.text).toBeUndefined();
    expect(first.body.data.setTextPipeline).toEqual({ campId: 'spring', ...full, updatedAt: expect.any(String) });

    const second = await set('spring', { goal: 'Again' });
    expect(second.body.data.setTextPipeline).toMatchObject({
      goal: 'Again',
      messageDelay: 1,
      mexRetry: 1,
      retryDelay: 1,
      postWebhook: null,
      postWebhookDelay: 0,
    });
    const read = await t.gql(GET, { campId: 'spring' }, token);
    expect(read.body.data.campaign.textPipeline).toEqual(second.body.data.setTextPipeline);
  });

  test('the bounds are accepted', async () => {
    for (const input of [
      { goal: 'g', messageDelay: 1, mexRetry: 1, retryDelay: 1, postWebhookDelay: 0 },
      { goal: 'g'.repeat(2000), messageDelay: 10, mexRetry: 5, retryDelay: 5, postWebhookDelay: 3600 },
    ]) {
      const reply = await set('spring', input);
      expect(reply.body.errors, reply.text).toBeUndefined();
      expect(reply.body.data.setTextPipeline).toMatchObject(input);
    }
  });

  test('every problem at once, as BAD_USER_INPUT with paths rooted at the input', async () => {
    const reply = await set('spring', {
      goal: '',
      messageDelay: 0,
      mexRetry: 6,
      retryDelay: 0,
      postWebhook: 'ftp://x',
      postWebhookDelay: 3601,
    });
    const issues = issuesOf(reply);
    expect(reply.body.data ?? null).toBeNull();
    expect(issues).toHaveLength(6);
    expect(new Set(issues.map((issue) => JSON.stringify(issue.path)))).toEqual(
      new Set(
        ['goal', 'messageDelay', 'mexRetry', 'retryDelay', 'postWebhook', 'postWebhookDelay'].map((field) =>
          JSON.stringify(['input', field]),
        ),
      ),
    );
    const read = await t.gql(GET, { campId: 'spring' }, token);
    expect(read.body.data.campaign.textPipeline).toBeNull();
  });

  test.each([
    ['goal', 'g'.repeat(2001)],
    ['messageDelay', 11],
    ['mexRetry', 0],
    ['retryDelay', 6],
    ['postWebhookDelay', -1],
    ['postWebhook', 'not a url'],
  ])('%s %j alone is BAD_USER_INPUT at ["input", %s]', async (field, value) => {
    const issues = issuesOf(await set('spring', { goal: 'g', [field]: value }));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toEqual(['input', field]);
  });

  test('a bad campId is BAD_USER_INPUT', async () => {
    const reply = await set('a b', { goal: 'g' });
    expect(codeOf(reply)).toBe('BAD_USER_INPUT');
  });

  test('an unknown campaign is NOT_FOUND', async () => {
    const reply = await set('ghost', { goal: 'g' });
    expect(codeOf(reply)).toBe('NOT_FOUND');
    expect(reply.body.errors?.[0].message).toBe('Campaign not found');
  });

  test('requires authentication', async () => {
    const reply = await t.gql(SET, { campId: 'spring', input: { goal: 'g' } });
    expect(codeOf(reply)).toBe('UNAUTHENTICATED');
  });
});

describe('Campaign.textPipeline and deleteTextPipeline', () => {
  beforeEach(async () => {
    await createCampaign('spring');
  });

  test('is null when none is set', async () => {
    const reply = await t.gql(GET, { campId: 'spring' }, token);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.campaign).toEqual({ campId: 'spring', textPipeline: null });
  });

  test('deleteTextPipeline returns it as it was; then the field is null and deleting again is NOT_FOUND', async () => {
    const stored = (await set('spring', { goal: 'g', mexRetry: 3 })).body.data.setTextPipeline;
    const removed = await t.gql(DELETE, { campId: 'spring' }, token);
    expect(removed.body.errors, removed.text).toBeUndefined();
    expect(removed.body.data.deleteTextPipeline).toEqual(stored);

    const read = await t.gql(GET, { campId: 'spring' }, token);
    expect(read.body.data.campaign.textPipeline).toBeNull();

    const again = await t.gql(DELETE, { campId: 'spring' }, token);
    expect(codeOf(again)).toBe('NOT_FOUND');
    expect(again.body.errors?.[0].message).toBe('Text pipeline configuration not found');
  });

  test('deleteTextPipeline of an unknown campaign is NOT_FOUND; of a bad campId BAD_USER_INPUT', async () => {
    const unknown = await t.gql(DELETE, { campId: 'ghost' }, token);
    expect(codeOf(unknown)).toBe('NOT_FOUND');
    expect(unknown.body.errors?.[0].message).toBe('Campaign not found');
    const bad = await t.gql(DELETE, { campId: 'a b' }, token);
    expect(codeOf(bad)).toBe('BAD_USER_INPUT');
  });

  test('deleting the campaign deletes its pipeline; a recreated campaign has none', async () => {
    await set('spring', { goal: 'g' });
    const deleted = await t.gql(DELETE_CAMPAIGN, { campId: 'spring' }, token);
    expect(deleted.body.errors, deleted.text).toBeUndefined();
    expect((await t.gql(GET, { campId: 'spring' }, token)).body.data.campaign).toBeNull();
    await createCampaign('spring');
    const read = await t.gql(GET, { campId: 'spring' }, token);
    expect(read.body.data.campaign).toEqual({ campId: 'spring', textPipeline: null });
  });
});

describe('listing campaigns', () => {
  test('each campaign shows its own pipeline, or null', async () => {
    for (const campId of ['c1', 'c2', 'c3', 'c4']) await createCampaign(campId);
    await set('c1', { goal: 'goal 1' });
    await set('c2', { goal: 'goal 2', mexRetry: 2 });
    await set('c4', { goal: 'goal 4', mexRetry: 4 });

    const reply = await t.gql(LIST, {}, token);
    expect(reply.body.errors, reply.text).toBeUndefined();
    const byCampaign = Object.fromEntries(
      reply.body.data.campaigns.edges.map((edge: { node: { campId: string; textPipeline: unknown } }) => [
        edge.node.campId,
        edge.node.textPipeline,
      ]),
    );
    expect(byCampaign).toEqual({
      c1: { goal: 'goal 1', mexRetry: 1 },
      c2: { goal: 'goal 2', mexRetry: 2 },
      c3: null,
      c4: { goal: 'goal 4', mexRetry: 4 },
    });
  });

  test('loads the pipelines of every listed campaign in one query', async () => {
    for (const campId of ['c1', 'c2', 'c3']) {
      await createCampaign(campId);
      await set(campId, { goal: campId });
    }
    t.resetQueries();
    const reply = await t.gql(LIST, {}, token);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.campaigns.edges).toHaveLength(3);
    const pipelineQueries = t.queries.filter((sql) => /text_pipelines/.test(sql));
    expect(pipelineQueries).toHaveLength(1);
  });
});

describe('tenancy', () => {
  test("another account cannot read, set or delete an account's pipeline", async () => {
    await createCampaign('spring');
    const stored = (await set('spring', { goal: 'Mine' })).body.data.setTextPipeline;
    const other = await t.account();

    const read = await t.gql(GET, { campId: 'spring' }, other.token);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.campaign).toBeNull();
    expect(read.text).not.toContain('Mine');

    expect(codeOf(await set('spring', { goal: 'Theirs' }, other.token))).toBe('NOT_FOUND');
    expect(codeOf(await t.gql(DELETE, { campId: 'spring' }, other.token))).toBe('NOT_FOUND');

    const mine = await t.gql(GET, { campId: 'spring' }, token);
    expect(mine.body.data.campaign.textPipeline).toEqual(stored);
  });

  test('the same campId in two accounts keeps two pipelines', async () => {
    const other = await t.account();
    await createCampaign('shared');
    await createCampaign('shared', other.token);
    await set('shared', { goal: 'first' });
    await set('shared', { goal: 'second' }, other.token);
    expect((await t.gql(GET, { campId: 'shared' }, token)).body.data.campaign.textPipeline.goal).toBe('first');
    expect((await t.gql(GET, { campId: 'shared' }, other.token)).body.data.campaign.textPipeline.goal).toBe('second');
    const list = await t.gql(LIST, {}, other.token);
    expect(list.body.data.campaigns.edges).toEqual([
      { node: { campId: 'shared', textPipeline: { goal: 'second', mexRetry: 1 } } },
    ]);
  });
});
