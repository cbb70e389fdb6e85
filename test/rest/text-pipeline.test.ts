// Legacy text pipeline paths (docs/decisions.md §6, §10): POST | GET | DELETE /text_pipeline_configuration?campId=
// (also campaignId or camp_id), defaults, replacement, FastAPI-shaped 422s, 404s, cascade on campaign delete, tenancy.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const PATH = '/text_pipeline_configuration';
const PARAM_NAMES = ['campId', 'campaignId', 'camp_id'] as const;

interface Detail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
}

let t: TestApp;
let token: string;

beforeEach(async () => {
  t = await startApp();
  ({ token } = await t.account());
});

afterEach(async () => {
  await t.close();
});

const url = (campId: string, name: string = 'campId') => `${PATH}?${name}=${encodeURIComponent(campId)}`;
const setPipeline = (campId: string, body: unknown, as = token, name = 'campId') =>
  t.rest('POST', url(campId, name), { body, token: as });
const getPipeline = (campId: string, as = token, name = 'campId') => t.rest('GET', url(campId, name), { token: as });
const deletePipeline = (campId: string, as = token, name = 'campId') =>
  t.rest('DELETE', url(campId, name), { token: as });

async function createCampaign(campId: string, as = token) {
  const reply = await t.rest('POST', '/update_campaign', {
    body: { campId, campaignModelData: campaignModelData() },
    token: as,
  });
  expect(reply.status, reply.text).toBe(200);
}

function entryAt(details: Detail[], loc: Array<string | number>): Detail {
  const found = details.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(found, `no detail entry at ${JSON.stringify(loc)} in ${JSON.stringify(details)}`).toBeDefined();
  return found as Detail;
}

function expect422(reply: { status: number; body: any; text: string }): Detail[] {
  expect(reply.status, reply.text).toBe(422);
  expect(Array.isArray(reply.body.detail)).toBe(true);
  for (const entry of reply.body.detail as Detail[]) {
    expect(entry).toEqual(
      expect.objectContaining({ type: expect.any(String), loc: expect.any(Array), msg: expect.any(String) }),
    );
    expect(entry).toHaveProperty('input');
  }
  return reply.body.detail as Detail[];
}

describe('POST /text_pipeline_configuration', () => {
  beforeEach(async () => {
    await createCampaign('spring');
  });

  it('stores a goal with every default and answers exactly the stored configuration', async () => {
    const reply = await setPipeline('spring', { goal: 'Book a demo' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(reply.body).toEqual({
      campId: 'spring',
      goal: 'Book a demo',
      messageDelay: 1,
      mexRetry: 1,
      retryDelay: 1,
      postWebhook: null,
      postWebhookDelay: 0,
      updatedAt: expect.stringMatching(ISO_UTC),
    });
    expect(Object.keys(reply.body).sort()).toEqual(
      [
        'campId',
        'goal',
        'messageDelay',
        'mexRetry',
        'postWebhook',
        'postWebhookDelay',
        'retryDelay',
        'updatedAt',
      ].sort(),
    );
  });

  it.each(PARAM_NAMES)('names the campaign with the %s query parameter', async (name) => {
    const reply = await setPipeline('spring', { goal: `via ${name}` }, token, name);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ campId: 'spring', goal: `via ${name}` });
    const read = await getPipeline('spring');
    expect(read.body.goal).toBe(`via ${name}`);
  });

  it('stores every field given, and posting again replaces the whole configuration', async () => {
    const full = {
      goal: 'Follow up',
      messageDelay: 10,
      mexRetry: 5,
      retryDelay: 5,
      postWebhook: 'https://hooks.example.com/x',
      postWebhookDelay: 3600,
    };
    const first = await setPipeline('spring', full);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ campId: 'spring', ...full, updatedAt: expect.stringMatching(ISO_UTC) });

    const second = await setPipeline('spring', { goal: 'Only a goal' });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toEqual({
      campId: 'spring',
      goal: 'Only a goal',
      messageDelay: 1,
      mexRetry: 1,
      retryDelay: 1,
      postWebhook: null,
      postWebhookDelay: 0,
      updatedAt: expect.stringMatching(ISO_UTC),
    });
    const read = await getPipeline('spring');
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(second.body);
  });

  it('accepts numeric strings for numbers', async () => {
    const reply = await setPipeline('spring', {
      goal: 'g',
      messageDelay: '5',
      mexRetry: '3',
      retryDelay: '2',
      postWebhookDelay: '60',
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ messageDelay: 5, mexRetry: 3, retryDelay: 2, postWebhookDelay: 60 });
  });

  it.each([
    ['lower bounds', { messageDelay: 1, mexRetry: 1, retryDelay: 1, postWebhookDelay: 0 }],
    ['upper bounds', { messageDelay: 10, mexRetry: 5, retryDelay: 5, postWebhookDelay: 3600 }],
    ['an https webhook', { postWebhook: 'https://hooks.example.com/x' }],
    ['an http webhook', { postWebhook: 'http://hooks.example.com/x' }],
    ['a null webhook', { postWebhook: null }],
    ['a goal of 2000 characters', { goal: 'g'.repeat(2000) }],
  ])('accepts %s', async (_name, fields) => {
    const body = { goal: 'g', ...fields };
    const reply = await setPipeline('spring', body);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject(body);
  });

  it('an unknown campaign is 404 Campaign not found', async () => {
    const reply = await setPipeline('nope', { goal: 'g' });
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Campaign not found' });
  });

  describe('422s', () => {
    it('a missing goal is missing at ["body","goal"]', async () => {
      const details = expect422(await setPipeline('spring', {}));
      expect(details).toHaveLength(1);
      expect(details[0]).toMatchObject({ type: 'missing', loc: ['body', 'goal'], msg: 'Field required' });
    });

    it('an empty goal is string_too_short and a goal over 2000 characters string_too_long', async () => {
      const empty = expect422(await setPipeline('spring', { goal: '' }));
      expect(entryAt(empty, ['body', 'goal']).type).toBe('string_too_short');
      const long = expect422(await setPipeline('spring', { goal: 'g'.repeat(2001) }));
      expect(entryAt(long, ['body', 'goal']).type).toBe('string_too_long');
    });

    it.each([
      ['messageDelay', 0, 'greater_than_equal'],
      ['messageDelay', 11, 'less_than_equal'],
      ['mexRetry', 0, 'greater_than_equal'],
      ['mexRetry', 6, 'less_than_equal'],
      ['retryDelay', 0, 'greater_than_equal'],
      ['retryDelay', 6, 'less_than_equal'],
      ['postWebhookDelay', -1, 'greater_than_equal'],
      ['postWebhookDelay', 3601, 'less_than_equal'],
    ])('%s %s is %s', async (field, value, type) => {
      const details = expect422(await setPipeline('spring', { goal: 'g', [field]: value }));
      expect(details).toHaveLength(1);
      expect(details[0]).toMatchObject({ type, loc: ['body', field], input: value });
    });

    it('messageDelay 0 names the bound in pydantic words', async () => {
      const details = expect422(await setPipeline('spring', { goal: 'g', messageDelay: 0 }));
      expect(details[0]?.msg).toBe('Input should be greater than or equal to 1');
    });

    it.each(['ftp://x', 'not a url'])('postWebhook %j is url_parsing', async (value) => {
      const details = expect422(await setPipeline('spring', { goal: 'g', postWebhook: value }));
      expect(details).toHaveLength(1);
      expect(details[0]).toMatchObject({ type: 'url_parsing', loc: ['body', 'postWebhook'] });
    });

    it('a non-numeric string for a number is int_parsing', async () => {
      const details = expect422(await setPipeline('spring', { goal: 'g', mexRetry: 'many' }));
      expect(details[0]).toMatchObject({ type: 'int_parsing', loc: ['body', 'mexRetry'] });
    });

    it('reports every problem at once', async () => {
      const details = expect422(
        await setPipeline('spring', {
          goal: '',
          messageDelay: 11,
          mexRetry: 0,
          retryDelay: 6,
          postWebhook: 'ftp://x',
          postWebhookDelay: -1,
        }),
      );
      expect(details).toHaveLength(6);
      expect(entryAt(details, ['body', 'goal']).type).toBe('string_too_short');
      expect(entryAt(details, ['body', 'messageDelay']).type).toBe('less_than_equal');
      expect(entryAt(details, ['body', 'mexRetry']).type).toBe('greater_than_equal');
      expect(entryAt(details, ['body', 'retryDelay']).type).toBe('less_than_equal');
      expect(entryAt(details, ['body', 'postWebhook']).type).toBe('url_parsing');
      expect(entryAt(details, ['body', 'postWebhookDelay']).type).toBe('greater_than_equal');
    });

    it('nothing is stored after a 422', async () => {
      await setPipeline('spring', { goal: 'g', messageDelay: 0 });
      const read = await getPipeline('spring');
      expect(read.status, read.text).toBe(404);
      expect(read.body).toEqual({ detail: 'Text pipeline configuration not found' });
    });
  });
});

describe.each(['POST', 'GET', 'DELETE'] as const)('%s /text_pipeline_configuration query parameter', (method) => {
  const body = method === 'POST' ? { goal: 'g' } : undefined;

  it('a missing campId is 422 missing at ["query","campId"]', async () => {
    const reply = await t.rest(method, PATH, { body, token });
    const details = expect422(reply);
    expect(details).toHaveLength(1);
    expect(details[0]).toMatchObject({ type: 'missing', loc: ['query', 'campId'], msg: 'Field required' });
  });

  it('a malformed campId is 422 at ["query","campId"]', async () => {
    const reply = await t.rest(method, url('a b'), { body, token });
    const details = expect422(reply);
    expect(details).toHaveLength(1);
    expect(details[0]?.loc).toEqual(['query', 'campId']);
  });

  it('an unknown campaign is 404 Campaign not found', async () => {
    const reply = await t.rest(method, url('ghost'), { body, token });
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Campaign not found' });
  });

  it('requires a bearer token', async () => {
    await createCampaign('spring');
    const reply = await t.rest(method, url('spring'), { body });
    expect(reply.status, reply.text).toBe(401);
  });
});

describe('GET and DELETE /text_pipeline_configuration', () => {
  beforeEach(async () => {
    await createCampaign('spring');
  });

  it('GET with nothing stored is 404 Text pipeline configuration not found', async () => {
    const reply = await getPipeline('spring');
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Text pipeline configuration not found' });
  });

  it.each(PARAM_NAMES)('GET names the campaign with %s', async (name) => {
    const set = await setPipeline('spring', { goal: 'Read me', postWebhook: 'https://hooks.example.com/x' });
    const reply = await getPipeline('spring', token, name);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(set.body);
  });

  it.each(PARAM_NAMES)('DELETE names the campaign with %s', async (name) => {
    await setPipeline('spring', { goal: 'Delete me' });
    const reply = await deletePipeline('spring', token, name);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ detail: 'Text pipeline configuration deleted' });
    const read = await getPipeline('spring', token, name);
    expect(read.status, read.text).toBe(404);
    expect(read.body).toEqual({ detail: 'Text pipeline configuration not found' });
  });

  it('delete, then GET and DELETE again are 404 Text pipeline configuration not found', async () => {
    await setPipeline('spring', { goal: 'g' });
    const removed = await deletePipeline('spring');
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toEqual({ detail: 'Text pipeline configuration deleted' });

    const read = await getPipeline('spring');
    expect(read.status, read.text).toBe(404);
    expect(read.body).toEqual({ detail: 'Text pipeline configuration not found' });

    const again = await deletePipeline('spring');
    expect(again.status, again.text).toBe(404);
    expect(again.body).toEqual({ detail: 'Text pipeline configuration not found' });
  });

  it('DELETE on a campaign that never had one is 404 Text pipeline configuration not found', async () => {
    const reply = await deletePipeline('spring');
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Text pipeline configuration not found' });
  });

  it('unknown campaign: GET and DELETE are 404 Campaign not found', async () => {
    const read = await getPipeline('ghost');
    expect(read.status, read.text).toBe(404);
    expect(read.body).toEqual({ detail: 'Campaign not found' });
    const removed = await deletePipeline('ghost');
    expect(removed.status, removed.text).toBe(404);
    expect(removed.body).toEqual({ detail: 'Campaign not found' });
  });

  it('each campaign has its own configuration', async () => {
    await createCampaign('autumn');
    await setPipeline('spring', { goal: 'spring goal' });
    await setPipeline('autumn', { goal: 'autumn goal', mexRetry: 4 });
    expect((await getPipeline('spring')).body).toMatchObject({ campId: 'spring', goal: 'spring goal', mexRetry: 1 });
    expect((await getPipeline('autumn')).body).toMatchObject({ campId: 'autumn', goal: 'autumn goal', mexRetry: 4 });
    await deletePipeline('spring');
    expect((await getPipeline('autumn')).status).toBe(200);
  });
});

describe('deleting the campaign', () => {
  it('removes its pipeline; a recreated campaign starts without one', async () => {
    await createCampaign('spring');
    expect((await setPipeline('spring', { goal: 'g' })).status).toBe(200);

    const deleted = await t.gql(
      /* GraphQL */ `
        mutation ($campId: String!) {
          deleteCampaign(campId: $campId) {
            campId
          }
        }
      `,
      { campId: 'spring' },
      token,
    );
    expect(deleted.body.errors).toBeUndefined();
    expect(deleted.body.data).toEqual({ deleteCampaign: { campId: 'spring' } });

    const gone = await getPipeline('spring');
    expect(gone.status, gone.text).toBe(404);
    expect(gone.body).toEqual({ detail: 'Campaign not found' });

    await createCampaign('spring');
    const fresh = await getPipeline('spring');
    expect(fresh.status, fresh.text).toBe(404);
    expect(fresh.body).toEqual({ detail: 'Text pipeline configuration not found' });
  });
});

describe('tenancy', () => {
  it("another account can neither read, set nor delete a campaign's pipeline", async () => {
    await createCampaign('spring');
    const set = await setPipeline('spring', { goal: 'Mine' });
    expect(set.status, set.text).toBe(200);
    const other = await t.account();

    const read = await getPipeline('spring', other.token);
    expect(read.status, read.text).toBe(404);
    expect(read.body).toEqual({ detail: 'Campaign not found' });
    expect(read.text).not.toContain('Mine');

    const overwrite = await setPipeline('spring', { goal: 'Theirs' }, other.token);
    expect(overwrite.status, overwrite.text).toBe(404);
    expect(overwrite.body).toEqual({ detail: 'Campaign not found' });

    const removed = await deletePipeline('spring', other.token);
    expect(removed.status, removed.text).toBe(404);
    expect(removed.body).toEqual({ detail: 'Campaign not found' });

    const mine = await getPipeline('spring');
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body).toEqual(set.body);
  });

  it('the same campId in two accounts keeps two configurations', async () => {
    const other = await t.account();
    await createCampaign('shared');
    await createCampaign('shared', other.token);
    await setPipeline('shared', { goal: 'first' });
    await setPipeline('shared', { goal: 'second' }, other.token);
    expect((await getPipeline('shared')).body.goal).toBe('first');
    expect((await getPipeline('shared', other.token)).body.goal).toBe('second');
    await deletePipeline('shared', other.token);
    expect((await getPipeline('shared')).body.goal).toBe('first');
  });
});
