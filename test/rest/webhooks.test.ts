// Webhooks by REST (docs/decisions.md §9, §10): POST /create_webhook, GET /get_webhooks, DELETE /remove_webhook and the legacy interface's
// POST /add_webhook_campaingn, with their FastAPI-shaped errors, the SSRF guard, tenant isolation, the secret sealed
// at rest and the per-account cap. Delivery itself is covered by test/events/webhook-delivery.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_WEBHOOKS_PER_ACCOUNT } from '../../src/domain/webhooks.schema.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]+$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Detail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
}

let t: TestApp;
let token: string;

async function start(env: Record<string, string> = {}) {
  t = await startApp(env, [], { worker: false });
  ({ token } = await t.account());
}

afterEach(async () => {
  await t?.close();
});

const createWebhook = (body: unknown, as = token) => t.rest('POST', '/create_webhook', { body, token: as });
const getWebhooks = (as = token) => t.rest('GET', '/get_webhooks', { token: as });
const removeWebhook = (webhookId: string, as = token) =>
  t.rest('DELETE', `/remove_webhook?webhookId=${encodeURIComponent(webhookId)}`, { token: as });
const attach = (query: string, as = token) => t.rest('POST', `/add_webhook_campaingn?${query}`, { token: as });

async function createCampaign(campId: string, as = token) {
  const reply = await t.rest('POST', '/update_campaign', {
    token: as,
    body: { campId, campaignModelData: campaignModelData() },
  });
  expect(reply.status, reply.text).toBe(200);
}

/** Creates a webhook and returns its body, failing the test on anything but 200. */
async function newWebhook(body: Record<string, unknown> = {}, as = token) {
  const reply = await createWebhook({ url: 'https://hooks.example.com/x', ...body }, as);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { webhookId: string; secret: string; url: string; campaignIds: string[] };
}

/** The single 422 entry of a reply, checking the envelope on the way. */
function onlyDetail(reply: { status: number; body: any; text: string }): Detail {
  expect(reply.status, reply.text).toBe(422);
  expect(Array.isArray(reply.body.detail)).toBe(true);
  expect(reply.body.detail, reply.text).toHaveLength(1);
  return reply.body.detail[0] as Detail;
}

describe('POST /create_webhook', () => {
  beforeEach(async () => {
    await start();
  });

  it('answers the webhook with its whsec_ secret (base64 of 32 bytes) and no campaigns', async () => {
    const reply = await createWebhook({
      url: 'https://hooks.example.com/x',
      events: ['call.ended', 'campaign.updated'],
      description: 'CRM sync',
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(reply.body).toEqual({
      webhookId: expect.stringMatching(WEBHOOK_ID),
      url: 'https://hooks.example.com/x',
      events: ['call.ended', 'campaign.updated'],
      description: 'CRM sync',
      enabled: true,
      disabledReason: null,
      secret: expect.stringMatching(SECRET),
      createdAt: expect.stringMatching(ISO_UTC),
      campaignIds: [],
    });
    expect(Buffer.from(reply.body.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });

  it('defaults events to [] (every type) and description to null, and gives every webhook its own id and secret', async () => {
    const first = await newWebhook();
    const second = await newWebhook();
    expect(first).toMatchObject({ events: [], description: null, enabled: true });
    expect(second.webhookId).not.toBe(first.webhookId);
    expect(second.secret).not.toBe(first.secret);
  });

  it('deduplicates repeated event types', async () => {
    const created = await newWebhook({ events: ['call.ended', 'call.ended', 'meeting.booked'] });
    expect(created).toMatchObject({ events: ['call.ended', 'meeting.booked'] });
  });

  it('seals the secret at rest: no column of the row holds it, whole or base64 part', async () => {
    const { webhookId, secret } = await newWebhook();
    const rows = await t.app.database.db.selectFrom('webhooks').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.webhook_id).toBe(webhookId);
    const base64 = secret.slice('whsec_'.length);
    for (const [column, value] of Object.entries(rows[0]!)) {
      const text = String(value);
      expect(text, column).not.toContain(secret);
      expect(text, column).not.toContain(base64);
      expect(text, column).not.toContain(base64.replace(/=+$/, ''));
    }
    // The owner still reads it back as it was given.
    expect((await getWebhooks()).body[0].secret).toBe(secret);
  });

  describe('422 for a bad body', () => {
    it('a missing url', async () => {
      const detail = onlyDetail(await createWebhook({ events: [] }));
      expect(detail).toMatchObject({ type: 'missing', loc: ['body', 'url'], msg: 'Field required' });
    });

    it('a url that is not http(s)', async () => {
      const detail = onlyDetail(await createWebhook({ url: 'ftp://hooks.example.com/x' }));
      expect(detail).toMatchObject({ type: 'url_parsing', loc: ['body', 'url'], input: 'ftp://hooks.example.com/x' });
    });

    it('a url that is not a URL at all', async () => {
      const detail = onlyDetail(await createWebhook({ url: 'not a url' }));
      expect(detail).toMatchObject({ type: 'url_parsing', loc: ['body', 'url'] });
    });

    it('a url longer than 2048 characters', async () => {
      const url = `https://hooks.example.com/${'a'.repeat(2049 - 'https://hooks.example.com/'.length)}`;
      expect(url).toHaveLength(2049);
      const detail = onlyDetail(await createWebhook({ url }));
      expect(detail).toMatchObject({ type: 'string_too_long', loc: ['body', 'url'] });
      // 2048 exactly is fine.
      expect((await createWebhook({ url: url.slice(0, 2048) })).status).toBe(200);
    });

    it('an unknown event type, located by its index', async () => {
      const reply = await createWebhook({ url: 'https://hooks.example.com/x', events: ['call.ended', 'call.started'] });
      const detail = onlyDetail(reply);
      expect(detail).toMatchObject({ type: 'enum', loc: ['body', 'events', 1], input: 'call.started' });
      const first = onlyDetail(await createWebhook({ url: 'https://hooks.example.com/x', events: ['nope'] }));
      expect(first.loc).toEqual(['body', 'events', 0]);
    });

    it('a description longer than 500 characters', async () => {
      const detail = onlyDetail(
        await createWebhook({ url: 'https://hooks.example.com/x', description: 'd'.repeat(501) }),
      );
      expect(detail).toMatchObject({ type: 'string_too_long', loc: ['body', 'description'] });
      expect((await createWebhook({ url: 'https://hooks.example.com/x', description: 'd'.repeat(500) })).status).toBe(
        200,
      );
    });

    it('every problem at once', async () => {
      const reply = await createWebhook({ events: ['nope'], description: 'd'.repeat(501) });
      expect(reply.status, reply.text).toBe(422);
      const locs = (reply.body.detail as Detail[]).map((d) => JSON.stringify(d.loc)).sort();
      expect(locs).toEqual(
        [
          ['body', 'url'],
          ['body', 'events', 0],
          ['body', 'description'],
        ]
          .map((loc) => JSON.stringify(loc))
          .sort(),
      );
    });

    it('malformed JSON is json_invalid', async () => {
      const reply = await t.rest('POST', '/create_webhook', {
        token,
        raw: '{"url": "https://hooks.example.com/x",',
        headers: { 'content-type': 'application/json' },
      });
      const detail = onlyDetail(reply);
      expect(detail.type).toBe('json_invalid');
      expect(detail.loc[0]).toBe('body');
      expect(typeof detail.loc[1]).toBe('number');
    });

    it('stores nothing when the body is refused', async () => {
      await createWebhook({ url: 'ftp://hooks.example.com/x' });
      expect((await getWebhooks()).body).toEqual([]);
    });
  });

  describe('webhook targets', () => {
    it.each([
      'http://10.0.0.5/hook',
      'http://192.168.1.10/hook',
      'http://172.16.0.1/hook',
      'http://127.0.0.1:8080/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://localhost:3000/hook',
      'http://[fd00::1]/hook',
      'http://100.64.0.1/hook',
      'http://0.0.0.0/hook',
    ])('refuses %s with a 422 at body.url', async (url) => {
      const detail = onlyDetail(await createWebhook({ url }));
      expect(detail).toMatchObject({ type: 'value_error', loc: ['body', 'url'], input: url });
      expect(detail.msg).toContain('webhook targets must be public');
      expect((await getWebhooks()).body).toEqual([]);
    });

    it.each(['https://hooks.example.com/x', 'http://8.8.8.8/x'])('accepts the public target %s', async (url) => {
      const created = await newWebhook({ url });
      expect(created.url).toBe(url);
    });
  });
});

describe('POST /create_webhook with ALLOW_PRIVATE_WEBHOOK_TARGETS=true', () => {
  it('accepts private targets', async () => {
    await start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    for (const url of ['http://10.0.0.5/hook', 'http://127.0.0.1:8080/hook', 'http://localhost:3000/hook']) {
      expect((await newWebhook({ url })).url).toBe(url);
    }
  });
});

describe('GET /get_webhooks', () => {
  beforeEach(async () => {
    await start();
  });

  it('is empty at first', async () => {
    const reply = await getWebhooks();
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual([]);
  });

  it('lists the webhooks oldest first, each with the campaigns it is attached to', async () => {
    await createCampaign('spring');
    await createCampaign('autumn');
    const created = [];
    for (const name of ['one', 'two', 'three']) {
      created.push(await newWebhook({ url: `https://hooks.example.com/${name}`, description: name }));
      await sleep(2);
    }
    const [one, two] = created;
    expect((await attach(`webhookId=${one!.webhookId}&campaignId=spring`)).status).toBe(200);
    expect((await attach(`webhookId=${one!.webhookId}&campaignId=autumn`)).status).toBe(200);
    expect((await attach(`webhookId=${two!.webhookId}&campaignId=autumn`)).status).toBe(200);

    const reply = await getWebhooks();
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.map((w: { description: string }) => w.description)).toEqual(['one', 'two', 'three']);
    expect(reply.body.map((w: { campaignIds: string[] }) => [...w.campaignIds].sort())).toEqual([
      ['autumn', 'spring'],
      ['autumn'],
      [],
    ]);
    // The same shape as create_webhook answers, secret included.
    const { campaignIds: _ignored, ...createdFirst } = one!;
    expect(reply.body[0]).toMatchObject(createdFirst);
  });
});

describe('DELETE /remove_webhook', () => {
  beforeEach(async () => {
    await start();
  });

  it('deletes the webhook with its attachments', async () => {
    await createCampaign('spring');
    const { webhookId } = await newWebhook();
    const kept = await newWebhook();
    expect((await attach(`webhookId=${webhookId}&campaignId=spring`)).status).toBe(200);

    const reply = await removeWebhook(webhookId);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ detail: 'Webhook deleted' });

    expect((await getWebhooks()).body.map((w: { webhookId: string }) => w.webhookId)).toEqual([kept.webhookId]);
    const attachments = await t.app.database.db.selectFrom('webhook_campaigns').selectAll().execute();
    expect(attachments).toEqual([]);
    // Deleting it again: it is gone.
    expect(await removeWebhook(webhookId)).toMatchObject({ status: 404, body: { detail: 'Webhook not found' } });
  });

  it('404 for an unknown webhook', async () => {
    const reply = await removeWebhook('wh_unknown');
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Webhook not found' });
  });

  it('422 without webhookId', async () => {
    const detail = onlyDetail(await t.rest('DELETE', '/remove_webhook', { token }));
    expect(detail).toMatchObject({ type: 'missing', loc: ['query', 'webhookId'], msg: 'Field required' });
  });

  it('422 for a webhookId longer than 64 characters', async () => {
    const detail = onlyDetail(await removeWebhook(`wh_${'x'.repeat(62)}`));
    expect(detail).toMatchObject({ type: 'string_too_long', loc: ['query', 'webhookId'] });
  });
});

describe('POST /add_webhook_campaingn', () => {
  let webhookId: string;

  beforeEach(async () => {
    await start();
    await createCampaign('spring');
    ({ webhookId } = await newWebhook());
  });

  const campaignIdsOf = async (id: string) =>
    (await getWebhooks()).body.find((w: { webhookId: string }) => w.webhookId === id).campaignIds as string[];

  it('attaches the webhook to the campaign', async () => {
    const reply = await attach(`webhookId=${webhookId}&campaignId=spring`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ webhookId, campaignId: 'spring', attached: true });
    expect(await campaignIdsOf(webhookId)).toEqual(['spring']);
  });

  it('repeating it is harmless: still one attachment', async () => {
    for (let i = 0; i < 3; i++) {
      const reply = await attach(`webhookId=${webhookId}&campaignId=spring`);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual({ webhookId, campaignId: 'spring', attached: true });
    }
    expect(await campaignIdsOf(webhookId)).toEqual(['spring']);
    expect(await t.app.database.db.selectFrom('webhook_campaigns').selectAll().execute()).toHaveLength(1);
  });

  it.each(['campId', 'camp_id'])('accepts %s for campaignId', async (alias) => {
    const reply = await attach(`webhookId=${webhookId}&${alias}=spring`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ webhookId, campaignId: 'spring', attached: true });
    expect(await campaignIdsOf(webhookId)).toEqual(['spring']);
  });

  it('404 "Webhook not found" for an unknown webhook', async () => {
    const reply = await attach('webhookId=wh_unknown&campaignId=spring');
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Webhook not found' });
  });

  it('404 "Campaign not found" for an unknown campaign', async () => {
    const reply = await attach(`webhookId=${webhookId}&campaignId=nope`);
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Campaign not found' });
    expect(await campaignIdsOf(webhookId)).toEqual([]);
  });

  it('422 for a missing webhookId or campaignId', async () => {
    const noWebhook = onlyDetail(await attach('campaignId=spring'));
    expect(noWebhook).toMatchObject({ type: 'missing', loc: ['query', 'webhookId'], msg: 'Field required' });

    const noCampaign = onlyDetail(await attach(`webhookId=${webhookId}`));
    expect(noCampaign).toMatchObject({ type: 'missing', loc: ['query', 'campaignId'], msg: 'Field required' });

    const neither = await attach('');
    expect(neither.status, neither.text).toBe(422);
    expect((neither.body.detail as Detail[]).map((d) => d.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'webhookId'],
        ['query', 'campaignId'],
      ]),
    );
    expect(neither.body.detail).toHaveLength(2);
  });
});

describe('authentication', () => {
  beforeEach(async () => {
    await start();
  });

  it.each([
    ['POST', '/create_webhook'],
    ['GET', '/get_webhooks'],
    ['DELETE', '/remove_webhook?webhookId=wh_x'],
    ['POST', '/add_webhook_campaingn?webhookId=wh_x&campaignId=spring'],
  ])('%s %s without a bearer token is 401', async (method, path) => {
    const reply = await t.rest(method, path, method === 'POST' ? { body: { url: 'https://hooks.example.com/x' } } : {});
    expect(reply.status, reply.text).toBe(401);
    expect(reply.body).toEqual({ detail: 'Not authenticated' });
  });
});

describe('tenant isolation', () => {
  let other: string;
  let webhookId: string;

  beforeEach(async () => {
    await start();
    ({ token: other } = await t.account());
    await createCampaign('spring');
    ({ webhookId } = await newWebhook());
    expect((await attach(`webhookId=${webhookId}&campaignId=spring`)).status).toBe(200);
  });

  it('another account does not see the webhook, and cannot delete it or attach it', async () => {
    expect((await getWebhooks(other)).body).toEqual([]);

    await createCampaign('theirs', other);
    expect(await removeWebhook(webhookId, other)).toMatchObject({ status: 404, body: { detail: 'Webhook not found' } });
    expect(await attach(`webhookId=${webhookId}&campaignId=theirs`, other)).toMatchObject({
      status: 404,
      body: { detail: 'Webhook not found' },
    });

    // Untouched for its owner.
    const mine = (await getWebhooks()).body;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ webhookId, campaignIds: ['spring'] });
  });

  it("another account cannot attach its own webhook to the account's campaign", async () => {
    const theirs = await newWebhook({}, other);
    const reply = await attach(`webhookId=${theirs.webhookId}&campaignId=spring`, other);
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Campaign not found' });
    expect((await getWebhooks(other)).body[0].campaignIds).toEqual([]);
  });

  it('the same campaign id in two accounts stays apart', async () => {
    await createCampaign('spring', other);
    const theirs = await newWebhook({}, other);
    expect((await attach(`webhookId=${theirs.webhookId}&campaignId=spring`, other)).status).toBe(200);
    expect((await getWebhooks(other)).body.map((w: { webhookId: string }) => w.webhookId)).toEqual([theirs.webhookId]);
    expect((await getWebhooks()).body.map((w: { webhookId: string }) => w.webhookId)).toEqual([webhookId]);
  });
});

describe('the per-account cap', () => {
  beforeEach(async () => {
    await start();
  });

  it(`refuses webhook number ${MAX_WEBHOOKS_PER_ACCOUNT + 1} with a 409, per account`, async () => {
    expect(MAX_WEBHOOKS_PER_ACCOUNT).toBe(50);
    for (let i = 0; i < MAX_WEBHOOKS_PER_ACCOUNT; i++) {
      const reply = await createWebhook({ url: `https://hooks.example.com/${i}` });
      expect(reply.status, reply.text).toBe(200);
    }
    const refused = await createWebhook({ url: 'https://hooks.example.com/one-too-many' });
    expect(refused.status, refused.text).toBe(409);
    expect(typeof refused.body.detail).toBe('string');
    expect(refused.body.detail).toContain(String(MAX_WEBHOOKS_PER_ACCOUNT));
    expect((await getWebhooks()).body).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);

    // Another account has its own allowance; deleting one makes room again.
    const { token: other } = await t.account();
    expect((await createWebhook({ url: 'https://hooks.example.com/other' }, other)).status).toBe(200);
    const first = (await getWebhooks()).body[0].webhookId as string;
    expect((await removeWebhook(first)).status).toBe(200);
    expect((await createWebhook({ url: 'https://hooks.example.com/again' })).status).toBe(200);
  });
});
