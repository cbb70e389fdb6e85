// Campaigns over GraphQL (docs/decisions.md §5; docs/graphql.md): create, update, upsert, validation, status transitions, delete,
// node refetch, tenant isolation, voices, authentication.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignInput } from '../helpers/campaigns.js';
import { internalGql } from '../helpers/internal-graph.js';

const FIELDS = /* GraphQL */ `
  fragment Full on Campaign {
    id
    campId
    status
    creationDate
    updatedAt
    title
    voiceId
    language
    script
    purpose
    knowledgeBase
    calendar
    firstLine
    flowName
    systemPrompt
    tone
    maxCallTimeout
    inactiveCallTimeout
    postCallAnalysis
    postCallAnalysisSchema
    timeZone
    isFreeflow
    public
    sampleSid
    description
    voice {
      voiceId
      name
      language
    }
    metrics {
      totalCallTime
      totalNumCall
      totalSpent
      averageCallCost
    }
  }
`;

const CREATE = /* GraphQL */ `
  mutation Create($input: CreateCampaignInput!) {
    createCampaign(input: $input) {
      ...Full
    }
  }
  ${FIELDS}
`;
const UPDATE = /* GraphQL */ `
  mutation Update($campId: String!, $patch: UpdateCampaignInput!) {
    updateCampaign(campId: $campId, patch: $patch) {
      ...Full
    }
  }
  ${FIELDS}
`;
const UPSERT = /* GraphQL */ `
  mutation Upsert($campId: String!, $data: CampaignDataInput!) {
    upsertCampaign(campId: $campId, data: $data) {
      ...Full
    }
  }
  ${FIELDS}
`;
const DELETE = /* GraphQL */ `
  mutation Delete($campId: String!) {
    deleteCampaign(campId: $campId) {
      ...Full
    }
  }
  ${FIELDS}
`;
const GET = /* GraphQL */ `
  query Get($campId: String!) {
    campaign(campId: $campId) {
      ...Full
    }
  }
  ${FIELDS}
`;
const transitionMutation = (name: 'pauseCampaign' | 'resumeCampaign' | 'completeCampaign') => /* GraphQL */ `
  mutation Transition($campId: String!) { ${name}(campId: $campId) { campId status } }`;
const PAUSE = transitionMutation('pauseCampaign');
const RESUME = transitionMutation('resumeCampaign');
const COMPLETE = transitionMutation('completeCampaign');
const LIST = /* GraphQL */ `
  query List {
    campaigns(first: 100) {
      edges {
        node {
          campId
          title
        }
      }
    }
  }
`;

const DEFAULTS = {
  flowName: '',
  systemPrompt: '',
  maxCallTimeout: 1,
  inactiveCallTimeout: 15,
  postCallAnalysis: false,
  timeZone: 'UTC',
  isFreeflow: true,
  public: false,
  sampleSid: '',
  description: '',
};

/** Values different from every default, for checking that they are kept or reset. */
const NON_DEFAULTS = {
  flowName: 'flow-1',
  systemPrompt: 'Be brief.',
  maxCallTimeout: 30,
  inactiveCallTimeout: 120,
  postCallAnalysis: true,
  timeZone: 'Europe/Paris',
  isFreeflow: false,
  public: true,
  sampleSid: 'SID123',
  description: 'A description',
};

const ZERO_METRICS = { totalCallTime: 0, totalNumCall: 0, totalSpent: 0, averageCallCost: 0 };

describe('campaigns over GraphQL', () => {
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
  afterEach(() => t.close());

  async function create(overrides: Record<string, unknown> = {}, as = token) {
    const reply = await t.gql(CREATE, { input: campaignInput(overrides) }, as);
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.createCampaign;
  }

  async function transition(query: string, campId: string, as = token) {
    return (await t.gql(query, { campId }, as)).body;
  }

  describe('createCampaign', () => {
    test('without a campId generates one starting camp_, applies defaults, starts active', async () => {
      const before = Date.now();
      const campaign = await create();
      expect(campaign.campId).toMatch(/^camp_[A-Za-z0-9_-]+$/);
      expect(campaign.campId.length).toBeLessThanOrEqual(64);
      expect(campaign).toMatchObject({
        ...DEFAULTS,
        title: 'T',
        voiceId: 'en-US-aria',
        language: 'en-US',
        script: 's',
        purpose: 'p',
        knowledgeBase: 'kb',
        calendar: 'cal',
        firstLine: 'Hi',
        tone: 'warm',
        postCallAnalysisSchema: {},
        status: 'ACTIVE',
        voice: { voiceId: 'en-US-aria', name: 'Aria', language: 'en-US' },
        metrics: ZERO_METRICS,
      });
      expect(typeof campaign.id).toBe('string');
      expect(campaign.id).not.toBe(campaign.campId);
      const created = Date.parse(campaign.creationDate);
      expect(created).toBeGreaterThanOrEqual(before - 1000);
      expect(created).toBeLessThanOrEqual(Date.now() + 1000);
      expect(campaign.updatedAt).toBe(campaign.creationDate);

      // Two generated ids differ.
      const other = await create();
      expect(other.campId).toMatch(/^camp_/);
      expect(other.campId).not.toBe(campaign.campId);
    });

    test('uses the given campId and the given optional values', async () => {
      const schema = { type: 'object', properties: { interested: { type: 'boolean' } } };
      const campaign = await create({
        campId: 'my-camp_1',
        voice: 'fr-FR-denise',
        language: 'fr-FR',
        postCallAnalysisSchema: schema,
        ...NON_DEFAULTS,
      });
      expect(campaign).toMatchObject({
        campId: 'my-camp_1',
        ...NON_DEFAULTS,
        postCallAnalysisSchema: schema,
        voiceId: 'fr-FR-denise',
        voice: { voiceId: 'fr-FR-denise', name: 'Denise', language: 'fr-FR' },
        status: 'ACTIVE',
      });

      const fetched = await t.gql(GET, { campId: 'my-camp_1' }, token);
      expect(fetched.body.errors).toBeUndefined();
      expect(fetched.body.data.campaign).toEqual(campaign);
    });

    test('the same campId again is CONFLICT and leaves the first campaign as it was', async () => {
      await create({ campId: 'dup', title: 'First' });
      const again = await t.gql(CREATE, { input: campaignInput({ campId: 'dup', title: 'Second' }) }, token);
      expect(again.body.errors).toHaveLength(1);
      expect(again.body.errors?.[0].extensions.code).toBe('CONFLICT');
      expect(again.body.errors?.[0].message).toContain('dup');
      const fetched = await t.gql(GET, { campId: 'dup' }, token);
      expect(fetched.body.data.campaign.title).toBe('First');
    });
  });

  describe('concurrency', () => {
    test('concurrent createCampaign with one campId: exactly one succeeds, the others are CONFLICT', async () => {
      const replies = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => t.gql(CREATE, { input: campaignInput({ campId: 'race', title: `T${i}` }) }, token)),
      );
      const won = replies.filter((r) => r.body.errors === undefined);
      expect(won).toHaveLength(1);
      const lost = replies.filter((r) => r.body.errors !== undefined);
      for (const reply of lost) expect(reply.body.errors?.[0].extensions.code).toBe('CONFLICT');
      const stored = (await t.gql(GET, { campId: 'race' }, token)).body.data.campaign;
      expect(stored.title).toBe(won[0]?.body.data.createCampaign.title);
    });

    test('concurrent upserts of one campId all succeed and leave one campaign', async () => {
      const titles = ['U1', 'U2', 'U3', 'U4', 'U5'];
      const replies = await Promise.all(
        titles.map((title) => t.gql(UPSERT, { campId: 'race-up', data: campaignInput({ title }) }, token)),
      );
      for (const reply of replies) expect(reply.body.errors).toBeUndefined();
      const list = await t.gql(LIST, {}, token);
      expect(list.body.data.campaigns.edges).toHaveLength(1);
      expect(titles).toContain(list.body.data.campaigns.edges[0].node.title);
    });
  });

  describe('updateCampaign', () => {
    test('changes only the given fields', async () => {
      const original = await create({ campId: 'upd', ...NON_DEFAULTS, postCallAnalysisSchema: { a: 1 } });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const reply = await t.gql(UPDATE, { campId: 'upd', patch: { title: 'New title', maxCallTimeout: 90 } }, token);
      expect(reply.body.errors).toBeUndefined();
      const updated = reply.body.data.updateCampaign;
      const { title, maxCallTimeout, updatedAt, ...rest } = updated;
      expect(title).toBe('New title');
      expect(maxCallTimeout).toBe(90);
      const { title: _oldTitle, maxCallTimeout: _oldTimeout, updatedAt: oldUpdatedAt, ...originalRest } = original;
      expect(rest).toEqual(originalRest);
      expect(Date.parse(updatedAt)).toBeGreaterThan(Date.parse(oldUpdatedAt));
      expect(updated.creationDate).toBe(original.creationDate);

      // Stored, not only returned.
      const fetched = await t.gql(GET, { campId: 'upd' }, token);
      expect(fetched.body.data.campaign).toEqual(updated);
    });

    test('an empty patch changes nothing but the campaign is returned', async () => {
      const original = await create({ campId: 'empty-patch', description: 'kept' });
      const reply = await t.gql(UPDATE, { campId: 'empty-patch', patch: {} }, token);
      expect(reply.body.errors).toBeUndefined();
      const { updatedAt: _a, ...updated } = reply.body.data.updateCampaign;
      const { updatedAt: _b, ...expected } = original;
      expect(updated).toEqual(expected);
    });

    test('null for a field of the patch is BAD_USER_INPUT, not a silent reset', async () => {
      const original = await create({ campId: 'null-patch', maxCallTimeout: 30 });
      const reply = await t.gql(UPDATE, { campId: 'null-patch', patch: { title: null, maxCallTimeout: null } }, token);
      expect(reply.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      const fields = new Set(reply.body.errors?.[0].extensions.issues.map((i: { path: string[] }) => i.path.at(-1)));
      expect(fields).toEqual(new Set(['title', 'maxCallTimeout']));
      expect((await t.gql(GET, { campId: 'null-patch' }, token)).body.data.campaign).toEqual(original);
    });

    test('a patch can change the voice; Campaign.voice follows', async () => {
      await create({ campId: 'voice-change' });
      const reply = await t.gql(
        UPDATE,
        { campId: 'voice-change', patch: { voice: 'de-DE-katja', language: 'de-DE' } },
        token,
      );
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.updateCampaign).toMatchObject({
        voiceId: 'de-DE-katja',
        language: 'de-DE',
        voice: { voiceId: 'de-DE-katja', name: 'Katja', language: 'de-DE' },
      });
    });

    test('an unknown campId is NOT_FOUND', async () => {
      const reply = await t.gql(UPDATE, { campId: 'nope', patch: { title: 'x' } }, token);
      expect(reply.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    });

    test('an invalid patch is BAD_USER_INPUT and changes nothing', async () => {
      const original = await create({ campId: 'bad-patch' });
      const reply = await t.gql(UPDATE, { campId: 'bad-patch', patch: { title: '', inactiveCallTimeout: 0 } }, token);
      expect(reply.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      const fields = new Set(reply.body.errors?.[0].extensions.issues.map((i: { path: string[] }) => i.path.at(-1)));
      expect(fields).toEqual(new Set(['title', 'inactiveCallTimeout']));
      const fetched = await t.gql(GET, { campId: 'bad-patch' }, token);
      expect(fetched.body.data.campaign).toEqual(original);
    });
  });

  describe('upsertCampaign', () => {
    test('creates, then replaces everything (omitted optional fields reset to defaults)', async () => {
      const first = await t.gql(
        UPSERT,
        { campId: 'ups', data: campaignInput({ title: 'One', ...NON_DEFAULTS, postCallAnalysisSchema: { x: 1 } }) },
        token,
      );
      expect(first.body.errors).toBeUndefined();
      const created = first.body.data.upsertCampaign;
      expect(created).toMatchObject({
        campId: 'ups',
        title: 'One',
        status: 'ACTIVE',
        ...NON_DEFAULTS,
        postCallAnalysisSchema: { x: 1 },
        metrics: ZERO_METRICS,
      });

      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await t.gql(
        UPSERT,
        {
          campId: 'ups',
          data: campaignInput({
            title: 'Two',
            voice: 'en-GB-ryan',
            language: 'en-GB',
            script: 's2',
            purpose: 'p2',
            knowledgeBase: 'kb2',
            calendar: 'cal2',
            firstLine: 'Hello',
            tone: 'dry',
          }),
        },
        token,
      );
      expect(second.body.errors).toBeUndefined();
      const replaced = second.body.data.upsertCampaign;
      expect(replaced).toMatchObject({
        id: created.id,
        campId: 'ups',
        title: 'Two',
        voiceId: 'en-GB-ryan',
        voice: { voiceId: 'en-GB-ryan', name: 'Ryan', language: 'en-GB' },
        language: 'en-GB',
        script: 's2',
        purpose: 'p2',
        knowledgeBase: 'kb2',
        calendar: 'cal2',
        firstLine: 'Hello',
        tone: 'dry',
        postCallAnalysisSchema: {},
        ...DEFAULTS,
        status: 'ACTIVE',
        creationDate: created.creationDate,
      });
      expect(Date.parse(replaced.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));

      const fetched = await t.gql(GET, { campId: 'ups' }, token);
      expect(fetched.body.data.campaign).toEqual(replaced);
      const list = await t.gql(LIST, {}, token);
      expect(list.body.data.campaigns.edges).toHaveLength(1);
    });

    test('replacing keeps the status of a paused campaign', async () => {
      await create({ campId: 'ups-paused' });
      expect((await transition(PAUSE, 'ups-paused')).errors).toBeUndefined();
      const reply = await t.gql(UPSERT, { campId: 'ups-paused', data: campaignInput({ title: 'Again' }) }, token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.upsertCampaign).toMatchObject({ title: 'Again', status: 'PAUSED' });
    });
  });

  describe('validation', () => {
    const issuesOf = (reply: { body: { errors?: any[] } }) => {
      expect(reply.body.errors).toHaveLength(1);
      const error = reply.body.errors?.[0];
      expect(error.extensions.code).toBe('BAD_USER_INPUT');
      expect(Array.isArray(error.extensions.issues)).toBe(true);
      for (const issue of error.extensions.issues) {
        expect(Array.isArray(issue.path)).toBe(true);
        expect(typeof issue.message).toBe('string');
        expect(typeof issue.type).toBe('string');
      }
      return error.extensions.issues as Array<{ path: Array<string | number>; type: string; message: string }>;
    };
    const lastElements = (issues: Array<{ path: Array<string | number> }>) => new Set(issues.map((i) => i.path.at(-1)));

    test('createCampaign reports every problem at once, each with its path', async () => {
      const reply = await t.gql(
        CREATE,
        {
          input: campaignInput({
            title: '',
            voice: 'xx-XX-nobody',
            language: 'not a language',
            timeZone: 'Mars/Olympus_Mons',
            maxCallTimeout: 0,
            inactiveCallTimeout: 601,
          }),
        },
        token,
      );
      const issues = issuesOf(reply);
      expect(lastElements(issues)).toEqual(
        new Set(['title', 'voice', 'language', 'timeZone', 'maxCallTimeout', 'inactiveCallTimeout']),
      );
      expect(issues).toHaveLength(6);
      // Paths are rooted at the argument.
      for (const issue of issues) expect(issue.path).toEqual(['input', issue.path.at(-1)]);
      expect(reply.body.errors?.[0].message).toContain('title');
      expect(reply.body.data ?? null).toBeNull();
      // Nothing was created.
      const list = await t.gql(LIST, {}, token);
      expect(list.body.data.campaigns.edges).toHaveLength(0);
    });

    test('maxCallTimeout above 120 and inactiveCallTimeout above 600 are refused; the bounds are accepted', async () => {
      const high = issuesOf(await t.gql(CREATE, { input: campaignInput({ maxCallTimeout: 121 }) }, token));
      expect(lastElements(high)).toEqual(new Set(['maxCallTimeout']));
      const inactive = issuesOf(await t.gql(CREATE, { input: campaignInput({ inactiveCallTimeout: 601 }) }, token));
      expect(lastElements(inactive)).toEqual(new Set(['inactiveCallTimeout']));
      const zero = issuesOf(await t.gql(CREATE, { input: campaignInput({ inactiveCallTimeout: 0 }) }, token));
      expect(lastElements(zero)).toEqual(new Set(['inactiveCallTimeout']));

      const atBounds = await create({ maxCallTimeout: 120, inactiveCallTimeout: 600 });
      expect(atBounds).toMatchObject({ maxCallTimeout: 120, inactiveCallTimeout: 600 });
      const atLowBounds = await create({ maxCallTimeout: 1, inactiveCallTimeout: 1 });
      expect(atLowBounds).toMatchObject({ maxCallTimeout: 1, inactiveCallTimeout: 1 });
    });

    test('a title over 200 characters is refused; 200 is accepted', async () => {
      const long = issuesOf(await t.gql(CREATE, { input: campaignInput({ title: 'x'.repeat(201) }) }, token));
      expect(lastElements(long)).toEqual(new Set(['title']));
      expect((await create({ title: 'x'.repeat(200) })).title).toHaveLength(200);
    });

    test('upsertCampaign validates its data the same way', async () => {
      const issues = issuesOf(
        await t.gql(UPSERT, { campId: 'v', data: campaignInput({ voice: 'nobody', timeZone: '+02:00' }) }, token),
      );
      expect(lastElements(issues)).toEqual(new Set(['voice', 'timeZone']));
    });

    test('a bad campId is BAD_USER_INPUT, as an argument and in the create input', async () => {
      for (const query of [GET, PAUSE, RESUME, COMPLETE, DELETE]) {
        const reply = await t.gql(query, { campId: 'has space' }, token);
        expect(reply.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      }
      const update = await t.gql(UPDATE, { campId: 'has space', patch: { title: 'x' } }, token);
      expect(update.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      const upsert = await t.gql(UPSERT, { campId: 'has space', data: campaignInput() }, token);
      expect(upsert.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      const tooLong = await t.gql(GET, { campId: 'x'.repeat(65) }, token);
      expect(tooLong.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      const empty = await t.gql(GET, { campId: '' }, token);
      expect(empty.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');

      const created = issuesOf(await t.gql(CREATE, { input: campaignInput({ campId: 'has space' }) }, token));
      expect(lastElements(created)).toEqual(new Set(['campId']));

      // 64 characters of the allowed alphabet are fine.
      const id64 = `${'a'.repeat(60)}-_Z9`;
      expect((await create({ campId: id64 })).campId).toBe(id64);
    });
  });

  describe('status transitions', () => {
    test('pause, resume, complete along active ⇄ paused → completed', async () => {
      await create({ campId: 's1' });
      expect((await transition(PAUSE, 's1')).data.pauseCampaign).toEqual({ campId: 's1', status: 'PAUSED' });
      expect((await t.gql(GET, { campId: 's1' }, token)).body.data.campaign.status).toBe('PAUSED');
      expect((await transition(RESUME, 's1')).data.resumeCampaign).toEqual({ campId: 's1', status: 'ACTIVE' });
      expect((await t.gql(GET, { campId: 's1' }, token)).body.data.campaign.status).toBe('ACTIVE');

      // complete from active
      expect((await transition(COMPLETE, 's1')).data.completeCampaign).toEqual({ campId: 's1', status: 'COMPLETED' });
      expect((await t.gql(GET, { campId: 's1' }, token)).body.data.campaign.status).toBe('COMPLETED');

      // complete from paused
      await create({ campId: 's2' });
      await transition(PAUSE, 's2');
      expect((await transition(COMPLETE, 's2')).data.completeCampaign).toEqual({ campId: 's2', status: 'COMPLETED' });
    });

    test('forbidden transitions are CONFLICT naming the current status', async () => {
      const expectConflict = async (query: string, campId: string, status: string) => {
        const body = await transition(query, campId);
        expect(body.errors).toHaveLength(1);
        expect(body.errors?.[0].extensions.code).toBe('CONFLICT');
        expect(body.errors?.[0].message).toContain(status);
        expect((await t.gql(GET, { campId }, token)).body.data.campaign.status).toBe(status.toUpperCase());
      };
      await create({ campId: 'c-done' });
      await transition(COMPLETE, 'c-done');
      await expectConflict(PAUSE, 'c-done', 'completed');
      await expectConflict(RESUME, 'c-done', 'completed');
    });

    test('a campaign already in the status an action leads to is answered as it is (a retry changes nothing)', async () => {
      const FULL = `mutation($campId: String!) {
        pauseCampaign(campId: $campId) { campId status updatedAt }
      }`;
      await create({ campId: 'again' });
      const paused = await t.gql(FULL, { campId: 'again' }, token);
      expect(paused.body.errors).toBeUndefined();
      const again = await t.gql(FULL, { campId: 'again' }, token);
      expect(again.body).toEqual(paused.body);
      expect((await transition(RESUME, 'again')).data.resumeCampaign.status).toBe('ACTIVE');
      expect((await transition(RESUME, 'again')).data.resumeCampaign).toEqual({ campId: 'again', status: 'ACTIVE' });
      await transition(COMPLETE, 'again');
      expect((await transition(COMPLETE, 'again')).data.completeCampaign).toEqual({
        campId: 'again',
        status: 'COMPLETED',
      });
    });

    test('a completed campaign cannot be updated or upserted (CONFLICT; REST 409)', async () => {
      const original = await create({ campId: 'done', title: 'Done' });
      await transition(COMPLETE, 'done');

      const update = await t.gql(UPDATE, { campId: 'done', patch: { title: 'Changed' } }, token);
      expect(update.body.errors?.[0].extensions.code).toBe('CONFLICT');
      expect(update.body.errors?.[0].message).toContain('completed');

      const upsert = await t.gql(UPSERT, { campId: 'done', data: campaignInput({ title: 'Changed' }) }, token);
      expect(upsert.body.errors?.[0].extensions.code).toBe('CONFLICT');
      expect(upsert.body.errors?.[0].message).toContain('completed');

      const rest = await t.rest('POST', '/update_campaign', {
        token,
        body: {
          campId: 'done',
          campaignModelData: {
            ...campaignInput({ title: 'Changed' }),
            totalCallTime: 0,
            totalNumCall: 0,
            totalSpent: 0,
            averageCallCost: 0,
          },
        },
      });
      expect(rest.status, rest.text).toBe(409);
      expect(Object.keys(rest.body)).toEqual(['detail']);
      expect(typeof rest.body.detail).toBe('string');
      expect(rest.body.detail).toContain('completed');

      const fetched = (await t.gql(GET, { campId: 'done' }, token)).body.data.campaign;
      expect(fetched.title).toBe('Done');
      expect(fetched.status).toBe('COMPLETED');
      expect(fetched.creationDate).toBe(original.creationDate);
    });

    test('a transition of an unknown campId is NOT_FOUND', async () => {
      for (const query of [PAUSE, RESUME, COMPLETE]) {
        const body = await transition(query, 'missing');
        expect(body.errors?.[0].extensions.code).toBe('NOT_FOUND');
      }
    });
  });

  describe('deleteCampaign', () => {
    test('returns the campaign; afterwards it is gone; deleting again is NOT_FOUND', async () => {
      const original = await create({ campId: 'del', title: 'To delete' });
      await create({ campId: 'keep' });
      const reply = await t.gql(DELETE, { campId: 'del' }, token);
      expect(reply.body.errors).toBeUndefined();
      const { metrics: _m, ...deleted } = reply.body.data.deleteCampaign;
      const { metrics: _o, ...expected } = original;
      expect(deleted).toEqual(expected);

      const fetched = await t.gql(GET, { campId: 'del' }, token);
      expect(fetched.body.errors).toBeUndefined();
      expect(fetched.body.data.campaign).toBeNull();
      const list = await t.gql(LIST, {}, token);
      expect(list.body.data.campaigns.edges.map((e: any) => e.node.campId)).toEqual(['keep']);

      const again = await t.gql(DELETE, { campId: 'del' }, token);
      expect(again.body.errors?.[0].extensions.code).toBe('NOT_FOUND');

      // The campId can be used again.
      expect((await create({ campId: 'del', title: 'Reborn' })).title).toBe('Reborn');
    });

    test('a completed campaign can be deleted', async () => {
      await create({ campId: 'done-del' });
      await transition(COMPLETE, 'done-del');
      const reply = await t.gql(DELETE, { campId: 'done-del' }, token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.deleteCampaign.status).toBe('COMPLETED');
    });
  });

  describe('node(id)', () => {
    const NODE = /* GraphQL */ `
      query Node($id: ID!) {
        node(id: $id) {
          id
          __typename
          ... on Campaign {
            campId
            title
          }
        }
      }
    `;

    test("a Campaign's global id refetches it; another account's id is null", async () => {
      const campaign = await create({ campId: 'noded', title: 'Noded' });
      const reply = await t.gql(NODE, { id: campaign.id }, token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.node).toEqual({
        id: campaign.id,
        __typename: 'Campaign',
        campId: 'noded',
        title: 'Noded',
      });

      const other = await t.account();
      const foreign = await t.gql(NODE, { id: campaign.id }, other.token);
      expect(foreign.body.errors).toBeUndefined();
      expect(foreign.body.data.node).toBeNull();
    });

    test('the global id of a deleted campaign is null', async () => {
      const campaign = await create({ campId: 'gone' });
      await t.gql(DELETE, { campId: 'gone' }, token);
      const reply = await t.gql(NODE, { id: campaign.id }, token);
      expect(reply.body.data.node).toBeNull();
    });
  });

  describe('tenant isolation', () => {
    test('two accounts with the same campId each see their own; B cannot touch A', async () => {
      const a = { token };
      const b = await t.account();

      await create({ campId: 'shared', title: 'A shared' }, a.token);
      await create({ campId: 'shared', title: 'B shared' }, b.token);
      await create({ campId: 'only-a', title: 'A only' }, a.token);

      expect((await t.gql(GET, { campId: 'shared' }, a.token)).body.data.campaign.title).toBe('A shared');
      expect((await t.gql(GET, { campId: 'shared' }, b.token)).body.data.campaign.title).toBe('B shared');

      const missing = await t.gql(GET, { campId: 'only-a' }, b.token);
      expect(missing.body.errors).toBeUndefined();
      expect(missing.body.data.campaign).toBeNull();

      const update = await t.gql(UPDATE, { campId: 'only-a', patch: { title: 'hijacked' } }, b.token);
      expect(update.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
      for (const query of [PAUSE, RESUME, COMPLETE]) {
        expect((await transition(query, 'only-a', b.token)).errors?.[0].extensions.code).toBe('NOT_FOUND');
      }
      const del = await t.gql(DELETE, { campId: 'only-a' }, b.token);
      expect(del.body.errors?.[0].extensions.code).toBe('NOT_FOUND');

      // A's campaign is untouched.
      const aOnly = (await t.gql(GET, { campId: 'only-a' }, a.token)).body.data.campaign;
      expect(aOnly).toMatchObject({ title: 'A only', status: 'ACTIVE' });

      // B's changes to its own "shared" do not reach A's.
      await t.gql(UPDATE, { campId: 'shared', patch: { title: 'B renamed' } }, b.token);
      await transition(PAUSE, 'shared', b.token);
      await t.gql(DELETE, { campId: 'shared' }, b.token);
      expect((await t.gql(GET, { campId: 'shared' }, a.token)).body.data.campaign).toMatchObject({
        title: 'A shared',
        status: 'ACTIVE',
      });

      const listA = await t.gql(LIST, {}, a.token);
      expect(listA.body.data.campaigns.edges.map((e: any) => e.node.campId).sort()).toEqual(['only-a', 'shared']);
      const listB = await t.gql(LIST, {}, b.token);
      expect(listB.body.data.campaigns.edges).toEqual([]);
    });

    test('campaigns connection and campaignList list only your own', async () => {
      const b = await t.account();
      await create({ campId: 'a1', title: 'A1' });
      await create({ campId: 'a2', title: 'A2' });
      await create({ campId: 'b1', title: 'B1' }, b.token);

      const listA = await t.gql(LIST, {}, token);
      expect(listA.body.data.campaigns.edges.map((e: any) => e.node.campId).sort()).toEqual(['a1', 'a2']);
      const listB = await t.gql(LIST, {}, b.token);
      expect(listB.body.data.campaigns.edges.map((e: any) => e.node.campId)).toEqual(['b1']);

      const offsetB = await internal('{ campaignList { campId } }', {}, b.token);
      expect(offsetB.body.data.campaignList).toEqual([{ campId: 'b1' }]);
      const searchB = await t.gql('{ campaigns(search: "a") { edges { node { campId } } } }', {}, b.token);
      expect(searchB.body.data.campaigns.edges).toEqual([]);
    });
  });

  describe('voices', () => {
    const VOICES = /* GraphQL */ `
      query Voices($language: String) {
        voices(language: $language) {
          voiceId
          name
          language
          gender
          accent
          provider
          previewUrl
        }
      }
    `;

    test('voices() lists at least 12 voices in several languages', async () => {
      const reply = await t.gql(VOICES, {}, token);
      expect(reply.body.errors).toBeUndefined();
      const voices = reply.body.data.voices;
      expect(voices.length).toBeGreaterThanOrEqual(12);
      expect(new Set(voices.map((v: any) => v.voiceId)).size).toBe(voices.length);
      expect(new Set(voices.map((v: any) => v.language.split('-')[0])).size).toBeGreaterThanOrEqual(3);
      for (const voice of voices) {
        for (const field of ['voiceId', 'name', 'language', 'gender', 'accent', 'provider', 'previewUrl']) {
          expect(typeof voice[field]).toBe('string');
        }
      }
      expect(voices).toContainEqual(
        expect.objectContaining({ voiceId: 'en-US-aria', name: 'Aria', language: 'en-US' }),
      );
    });

    test('voices(language: "en") returns only en-* voices; a whole tag matches exactly', async () => {
      const en = (await t.gql(VOICES, { language: 'en' }, token)).body.data.voices;
      expect(en.length).toBeGreaterThan(0);
      for (const voice of en) expect(voice.language).toMatch(/^en-/);
      const all = (await t.gql(VOICES, {}, token)).body.data.voices;
      expect(en.length).toBe(all.filter((v: any) => v.language.startsWith('en-')).length);

      const enUS = (await t.gql(VOICES, { language: 'en-US' }, token)).body.data.voices;
      expect(enUS.length).toBeGreaterThan(0);
      expect(enUS.length).toBeLessThan(en.length);
      for (const voice of enUS) expect(voice.language).toBe('en-US');

      const none = await t.gql(VOICES, { language: 'zu' }, token);
      expect(none.body.data.voices).toEqual([]);
    });
  });

  describe('authentication', () => {
    test('an unauthenticated campaigns query is UNAUTHENTICATED', async () => {
      const reply = await t.gql(LIST);
      expect(reply.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(reply.body.data ?? null).toBeNull();
    });

    test('an unauthenticated mutation is UNAUTHENTICATED and creates nothing', async () => {
      const reply = await t.gql(CREATE, { input: campaignInput({ campId: 'anon' }) });
      expect(reply.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
      expect((await t.gql(GET, { campId: 'anon' }, token)).body.data.campaign).toBeNull();
    });

    test('a garbage token is UNAUTHENTICATED', async () => {
      const reply = await t.gql(LIST, {}, 'not-a-jwt');
      expect(reply.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    });
  });
});
