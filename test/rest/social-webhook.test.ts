// The social channel's webhook (docs/decisions.md §8, §10, §11), without bearer token: the GET verification handshake and
// the POST receiver at /api/v3/social_webhook/{apiKey}/{campId}. Messages of both Meta-style envelopes are stored once
// per message id and read back through GraphQL Campaign.socialMessages; with an app secret stored, the body must carry
// an X-Hub-Signature-256 computed over its exact raw bytes.
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startApp, type Reply, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

const CAMP = 'social-camp';
const VERIFY_TOKEN = 'verify-Jq4Wm8Xz2Lp6Rt0Y';
const APP_SECRET = 'app-secret-Hn3Kd9Vs5Bc1Fg7Q';
const ACCESS_TOKEN = 'EAAB-access-token-0123456789';
const MIB = 1024 * 1024;

const WHATSAPP = {
  object: 'whatsapp_business_account',
  entry: [
    {
      changes: [
        {
          value: {
            messages: [
              { id: 'wamid.1', from: '15551234567', timestamp: '1700000000', text: { body: 'Hello' }, type: 'text' },
            ],
          },
        },
      ],
    },
  ],
};
const PAGE = {
  object: 'page',
  entry: [
    {
      messaging: [
        {
          sender: { id: 'u1' },
          recipient: { id: 'p1' },
          timestamp: 1700000001000,
          message: { mid: 'm.1', text: 'Hi' },
        },
      ],
    },
  ],
};
/** Unusual spacing and key order: its signature only matches these exact bytes. */
const ODD_BODY =
  '{ "entry" :[ {"messaging":[{"message":{"text":"Hi","mid":"m.9"},"sender":{"id":"u9"}}]}],"object":"page" }';

interface Account {
  token: string;
  apiKey: string;
  id: string;
  email: string;
}

interface MessageNode {
  messageId: string;
  sender: string;
  text: string | null;
  receivedAt: string;
}

const MESSAGES = /* GraphQL */ `
  query Messages($campId: String!) {
    campaign(campId: $campId) {
      socialMessages(first: 10) {
        edges {
          node {
            messageId
            sender
            text
            receivedAt
          }
        }
      }
    }
  }
`;

let t: TestApp;
let owner: Account;

beforeEach(async () => {
  t = await startApp();
});

afterEach(async () => {
  vi.useRealTimers();
  await t.close();
});

const sign = (raw: string | Buffer, secret = APP_SECRET) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

const hookPath = (apiKey: string, campId: string) =>
  `/social_webhook/${encodeURIComponent(apiKey)}/${encodeURIComponent(campId)}`;

async function createCampaign(account: Account, campId = CAMP) {
  const res = await t.rest('POST', '/update_campaign', {
    body: { campId, campaignModelData: campaignModelData() },
    token: account.token,
  });
  expect(res.status, res.text).toBe(200);
}

async function connectSocial(account: Account, fields: Record<string, string> = {}) {
  const res = await t.rest('POST', '/add_social_info', {
    body: { pageId: 'page-123', accessToken: ACCESS_TOKEN, verifyToken: VERIFY_TOKEN, ...fields },
    token: account.token,
  });
  expect(res.status, res.text).toBe(200);
}

/** A new account with campaign CAMP and the social channel connected (with an app secret when given). */
async function setUp(options: { appSecret?: string; campId?: string } = {}): Promise<Account> {
  const account = await t.account();
  await createCampaign(account, options.campId ?? CAMP);
  await connectSocial(account, options.appSecret ? { appSecret: options.appSecret } : {});
  return account;
}

function handshake(apiKey: string, campId: string, params: Record<string, string>) {
  return t.rest('GET', `${hookPath(apiKey, campId)}?${new URLSearchParams(params).toString()}`);
}

const subscribe = (challenge = 'challenge-1187', verifyToken = VERIFY_TOKEN) => ({
  'hub.mode': 'subscribe',
  'hub.verify_token': verifyToken,
  'hub.challenge': challenge,
});

function post(
  raw: string | undefined,
  options: { apiKey?: string; campId?: string; headers?: Record<string, string> } = {},
): Promise<Reply<any>> {
  return t.rest('POST', hookPath(options.apiKey ?? owner.apiKey, options.campId ?? CAMP), {
    raw,
    headers: { 'content-type': 'application/json', ...options.headers },
  });
}

const postJson = (body: unknown, options: Parameters<typeof post>[1] = {}) => post(JSON.stringify(body), options);

async function messages(account: Account = owner, campId = CAMP): Promise<MessageNode[]> {
  const res = await t.gql<{ campaign: { socialMessages: { edges: Array<{ node: MessageNode }> } } | null }>(
    MESSAGES,
    { campId },
    account.token,
  );
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.body.data?.campaign, `campaign ${campId} not found`).not.toBeNull();
  return res.body.data!.campaign!.socialMessages.edges.map((edge) => edge.node);
}

async function storedRows() {
  return t.app.database.db
    .selectFrom('social_messages')
    .select(['account_id', 'message_id', 'camp_id', 'sender', 'text', 'received_at'])
    .orderBy('message_id')
    .execute();
}

function expect422(res: Reply<any>) {
  expect(res.status, res.text).toBe(422);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(Array.isArray(res.body.detail), res.text).toBe(true);
  expect(res.body.detail.length).toBeGreaterThan(0);
  for (const entry of res.body.detail) {
    expect(entry.loc[0]).toBe('body');
    expect(typeof entry.msg).toBe('string');
    expect(entry.msg.length).toBeGreaterThan(0);
    expect(typeof entry.type).toBe('string');
  }
  expect(res.text).not.toMatch(/Internal Server Error|at .*\.ts:\d+/);
}

describe('GET /social_webhook/{apiKey}/{campId} (verification handshake)', () => {
  beforeEach(async () => {
    owner = await setUp();
  });

  it('answers the challenge as text/plain when key, campaign and verify token match', async () => {
    const res = await handshake(owner.apiKey, CAMP, subscribe('1158201444'));
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe('1158201444');
  });

  it('echoes a challenge with characters that are not digits exactly', async () => {
    const challenge = 'abc-DEF_123.~ {"x":1}';
    const res = await handshake(owner.apiKey, CAMP, subscribe(challenge));
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe(challenge);
  });

  it('needs no bearer token, and is the same with one', async () => {
    const other = await t.account();
    const res = await t.rest('GET', `${hookPath(owner.apiKey, CAMP)}?${new URLSearchParams(subscribe('42'))}`, {
      token: other.token,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('42');
  });

  const failures: Array<[string, () => Promise<Reply<any>>]> = [
    ['a wrong verify token', () => handshake(owner.apiKey, CAMP, subscribe('c', 'not-the-token'))],
    [
      'a verify token that is a prefix of the stored one',
      () => handshake(owner.apiKey, CAMP, subscribe('c', 'verify')),
    ],
    ['an empty verify token', () => handshake(owner.apiKey, CAMP, subscribe('c', ''))],
    ['a missing verify token', () => handshake(owner.apiKey, CAMP, { 'hub.mode': 'subscribe', 'hub.challenge': 'c' })],
    ['a wrong mode', () => handshake(owner.apiKey, CAMP, { ...subscribe('c'), 'hub.mode': 'unsubscribe' })],
    ['a missing mode', () => handshake(owner.apiKey, CAMP, { 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': 'c' })],
    [
      'a missing challenge',
      () => handshake(owner.apiKey, CAMP, { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN }),
    ],
    ['an empty challenge', () => handshake(owner.apiKey, CAMP, subscribe(''))],
    ['an unknown campaign', () => handshake(owner.apiKey, 'no-such-campaign', subscribe('c'))],
    ['a wrong API key', () => handshake(`${owner.apiKey}x`, CAMP, subscribe('c'))],
    ['an API key that does not exist at all', () => handshake('not-a-key', CAMP, subscribe('c'))],
  ];

  for (const [name, send] of failures) {
    it(`is 403 {"detail": "Verification failed"} for ${name}`, async () => {
      const res = await send();
      expect(res.status, res.text).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toEqual({ detail: 'Verification failed' });
    });
  }

  it('is 403 when the social channel is not connected', async () => {
    const unconnected = await t.account();
    await createCampaign(unconnected);
    const res = await handshake(unconnected.apiKey, CAMP, subscribe('c', VERIFY_TOKEN));
    expect(res.status, res.text).toBe(403);
    expect(res.body).toEqual({ detail: 'Verification failed' });
  });

  it("is 403 with another account's key, even when that account has the same campaign id and verify token", async () => {
    const other = await t.account();
    await connectSocial(other, { verifyToken: 'other-token' });
    const res = await handshake(other.apiKey, CAMP, subscribe('c', VERIFY_TOKEN));
    expect(res.status, res.text).toBe(403);
    expect(res.body).toEqual({ detail: 'Verification failed' });
    // The other account's key with its own token still fails: it has no campaign CAMP.
    const own = await handshake(other.apiKey, CAMP, subscribe('c', 'other-token'));
    expect(own.status, own.text).toBe(403);
  });

  it('is 403 after the social channel is removed', async () => {
    const removed = await t.rest('DELETE', '/remove_social_info', { token: owner.token });
    expect(removed.status, removed.text).toBe(200);
    const res = await handshake(owner.apiKey, CAMP, subscribe('c'));
    expect(res.status, res.text).toBe(403);
    expect(res.body).toEqual({ detail: 'Verification failed' });
  });

  it('checks the verify token stored last (adding again replaces)', async () => {
    await connectSocial(owner, { verifyToken: 'second-token' });
    expect((await handshake(owner.apiKey, CAMP, subscribe('c', VERIFY_TOKEN))).status).toBe(403);
    const res = await handshake(owner.apiKey, CAMP, subscribe('ok', 'second-token'));
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('ok');
  });
});

describe('POST /social_webhook/{apiKey}/{campId} (receiver)', () => {
  describe('without an app secret', () => {
    beforeEach(async () => {
      owner = await setUp();
    });

    it('stores a WhatsApp-style message (entry[].changes[].value.messages[]) → {"received": 1}', async () => {
      const res = await postJson(WHATSAPP);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toEqual({ received: 1 });
      expect(await messages()).toEqual([
        { messageId: 'wamid.1', sender: '15551234567', text: 'Hello', receivedAt: '2023-11-14T22:13:20.000Z' },
      ]);
    });

    it("SocialMessage.createdAt is when the gateway stored it; receivedAt is the provider's time", async () => {
      const before = Date.now();
      expect((await postJson(WHATSAPP)).body).toEqual({ received: 1 });
      const reply = await t.gql(
        '{ campaign(campId: "' + CAMP + '") { socialMessages(first: 1) { edges { node { receivedAt createdAt } } } } }',
        {},
        owner.token,
      );
      expect(reply.body.errors, reply.text).toBeUndefined();
      const { receivedAt, createdAt } = reply.body.data.campaign.socialMessages.edges[0].node;
      expect(receivedAt).toBe('2023-11-14T22:13:20.000Z');
      expect(Date.parse(createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('stores a page-style message (entry[].messaging[]) with a millisecond timestamp → {"received": 1}', async () => {
      const res = await postJson(PAGE);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });
      expect(await messages()).toEqual([
        { messageId: 'm.1', sender: 'u1', text: 'Hi', receivedAt: '2023-11-14T22:13:21.000Z' },
      ]);
    });

    it('lists the messages of both envelopes newest first', async () => {
      expect((await postJson(PAGE)).body).toEqual({ received: 1 });
      expect((await postJson(WHATSAPP)).body).toEqual({ received: 1 });
      const older = {
        object: 'page',
        entry: [{ messaging: [{ sender: { id: 'u0' }, timestamp: 1600000000, message: { mid: 'm.0', text: 'Old' } }] }],
      };
      expect((await postJson(older)).body).toEqual({ received: 1 });
      expect(await messages()).toEqual([
        { messageId: 'm.1', sender: 'u1', text: 'Hi', receivedAt: '2023-11-14T22:13:21.000Z' },
        { messageId: 'wamid.1', sender: '15551234567', text: 'Hello', receivedAt: '2023-11-14T22:13:20.000Z' },
        { messageId: 'm.0', sender: 'u0', text: 'Old', receivedAt: '2020-09-13T12:26:40.000Z' },
      ]);
    });

    it('counts every new message of one envelope, across entries, changes and both shapes', async () => {
      const body = {
        object: 'page',
        entry: [
          {
            changes: [
              {
                value: {
                  messages: [
                    { id: 'w.a', from: '1', timestamp: 1700000010, text: { body: 'a' } },
                    { id: 'w.b', from: '2', timestamp: '1700000011' },
                  ],
                },
              },
              { value: { statuses: [{ id: 'w.a', status: 'delivered' }] } },
            ],
            messaging: [{ sender: { id: 'u3' }, timestamp: 1700000012000, message: { mid: 'm.c', text: 'c' } }],
          },
          { messaging: [{ sender: { id: 'u4' }, timestamp: 1700000013000, message: { mid: 'm.d' } }] },
        ],
      };
      const res = await postJson(body);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 4 });
      expect(await messages()).toEqual([
        { messageId: 'm.d', sender: 'u4', text: null, receivedAt: '2023-11-14T22:13:33.000Z' },
        { messageId: 'm.c', sender: 'u3', text: 'c', receivedAt: '2023-11-14T22:13:32.000Z' },
        { messageId: 'w.b', sender: '2', text: null, receivedAt: '2023-11-14T22:13:31.000Z' },
        { messageId: 'w.a', sender: '1', text: 'a', receivedAt: '2023-11-14T22:13:30.000Z' },
      ]);
    });

    it('skips delivery receipts and events without a message → {"received": 0}', async () => {
      const receipts = {
        object: 'whatsapp_business_account',
        entry: [
          {
            changes: [
              {
                value: {
                  statuses: [{ id: 'wamid.1', status: 'delivered', timestamp: '1700000002', recipient_id: '1555' }],
                },
              },
            ],
          },
        ],
      };
      const pageEvents = {
        object: 'page',
        entry: [
          {
            messaging: [
              { sender: { id: 'u1' }, recipient: { id: 'p1' }, timestamp: 1700000003000, delivery: { mids: ['m.1'] } },
              { sender: { id: 'u1' }, recipient: { id: 'p1' }, timestamp: 1700000004000, read: { watermark: 1 } },
            ],
          },
        ],
      };
      for (const body of [receipts, pageEvents, { object: 'page', entry: [] }, { object: 'page', entry: [{}] }]) {
        const res = await postJson(body);
        expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(200);
        expect(res.body).toEqual({ received: 0 });
      }
      expect(await storedRows()).toEqual([]);
      expect(await messages()).toEqual([]);
    });

    it('pages newest first with cursors, also across messages received at the same instant', async () => {
      const at = (mid: string, timestamp: number | string) => ({ sender: { id: 'u' }, timestamp, message: { mid } });
      const body = {
        object: 'page',
        entry: [
          {
            messaging: [
              at('m.a', 1700000000),
              at('m.b', '1700000000000'), // milliseconds as a string: the same instant
              at('m.c', 1700000000),
              at('m.d', 1700000500),
              at('m.e', '1600000000'),
            ],
          },
        ],
      };
      expect((await postJson(body)).body).toEqual({ received: 5 });
      const PAGE_QUERY = /* GraphQL */ `
        query Page($campId: String!, $after: String) {
          campaign(campId: $campId) {
            socialMessages(first: 2, after: $after) {
              edges {
                node {
                  messageId
                  receivedAt
                }
              }
              pageInfo {
                hasNextPage
                endCursor
              }
            }
          }
        }
      `;
      const seen: Array<{ messageId: string; receivedAt: string }> = [];
      let after: string | null = null;
      for (let page = 0; page < 5; page += 1) {
        type Node = { messageId: string; receivedAt: string };
        const res: Reply<{
          data?: {
            campaign: {
              socialMessages: {
                edges: Array<{ node: Node }>;
                pageInfo: { hasNextPage: boolean; endCursor: string | null };
              };
            };
          };
          errors?: unknown[];
        }> = await t.gql(PAGE_QUERY, { campId: CAMP, after }, owner.token);
        expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
        const connection = res.body.data!.campaign.socialMessages;
        seen.push(...connection.edges.map((edge) => edge.node));
        if (!connection.pageInfo.hasNextPage) break;
        after = connection.pageInfo.endCursor;
      }
      expect(seen.map((m) => m.messageId)).toEqual(['m.d', 'm.c', 'm.b', 'm.a', 'm.e']);
      expect(seen.map((m) => m.receivedAt)).toEqual([
        '2023-11-14T22:21:40.000Z',
        '2023-11-14T22:13:20.000Z',
        '2023-11-14T22:13:20.000Z',
        '2023-11-14T22:13:20.000Z',
        '2020-09-13T12:26:40.000Z',
      ]);
    });

    it('keeps the campaign readable after a message with a far-future timestamp (year 10000)', async () => {
      // 253402300800 s is 10000-01-01: below the 1e12 seconds/milliseconds threshold, so read as seconds.
      const body = {
        object: 'page',
        entry: [
          {
            messaging: [
              { sender: { id: 'u1' }, timestamp: 1700000000, message: { mid: 'm.now', text: 'now' } },
              { sender: { id: 'u2' }, timestamp: 253402300800, message: { mid: 'm.far', text: 'far' } },
            ],
          },
        ],
      };
      const res = await postJson(body);
      // Either refused as a bad envelope, or stored with a timestamp GraphQL can serialise: never a 500.
      expect([200, 422], res.text).toContain(res.status);
      const read = await t.gql(MESSAGES, { campId: CAMP }, owner.token);
      expect(read.body.errors, JSON.stringify(read.body.errors)).toBeUndefined();
      expect(read.body.data?.campaign).not.toBeNull();
      const nodes: MessageNode[] = read.body.data.campaign.socialMessages.edges.map(
        (edge: { node: MessageNode }) => edge.node,
      );
      if (res.status === 200) {
        // Newest first: the far-future message (or wherever it was clamped to) is not older than 2023.
        expect(nodes.map((m) => m.messageId)).toEqual(['m.far', 'm.now']);
        for (const node of nodes) expect(node.receivedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      } else {
        expect(nodes).toEqual([]);
      }
    });

    it('stores an envelope of many small messages (well under 1 MiB) without a 500', async () => {
      // 10,000 messages in about 480 KB: one multi-row INSERT would need 70,000 bind parameters.
      const count = 10_000;
      const body = {
        object: 'page',
        entry: [
          {
            messaging: Array.from({ length: count }, (_, i) => ({
              sender: { id: 'u' },
              timestamp: 1700000000 + i,
              message: { mid: `m.${i}` },
            })),
          },
        ],
      };
      const raw = JSON.stringify(body);
      expect(Buffer.byteLength(raw)).toBeLessThan(MIB);
      const res = await post(raw);
      expect(res.status, res.text).not.toBe(500);
      // Accepting it whole, or refusing it as too many messages with a clear 4xx, are both fine; a 500 is not.
      expect([200, 413, 422], res.text).toContain(res.status);
      const [{ rows }] = (await t.app.database.db
        .selectFrom('social_messages')
        .select((eb) => eb.fn.countAll<number>().as('rows'))
        .execute()) as [{ rows: number | string }];
      if (res.status === 200) {
        expect(res.body).toEqual({ received: count });
        expect(Number(rows)).toBe(count);
        expect((await messages())[0]?.messageId).toBe(`m.${count - 1}`);
      } else {
        expect(res.body).toEqual({ detail: expect.anything() });
        expect(Number(rows)).toBe(0);
      }
    });

    it('uses the time of receipt when a message has no timestamp', async () => {
      const before = Date.now();
      const res = await postJson({ entry: [{ messaging: [{ sender: { id: 'u5' }, message: { mid: 'm.5' } }] }] });
      const after = Date.now();
      expect(res.body).toEqual({ received: 1 });
      const [message] = await messages();
      expect(message?.messageId).toBe('m.5');
      const at = Date.parse(message!.receivedAt);
      expect(at).toBeGreaterThanOrEqual(before - 1000);
      expect(at).toBeLessThanOrEqual(after + 1000);
    });

    it('stores the same message posted twice once: the second reply is {"received": 0}', async () => {
      expect((await postJson(WHATSAPP)).body).toEqual({ received: 1 });
      const again = await postJson(WHATSAPP);
      expect(again.status, again.text).toBe(200);
      expect(again.body).toEqual({ received: 0 });
      const rows = await storedRows();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ account_id: owner.id, message_id: 'wamid.1', camp_id: CAMP, text: 'Hello' });
      expect(await messages()).toHaveLength(1);
    });

    it('stores only the new messages of an envelope that repeats some', async () => {
      expect((await postJson(PAGE)).body).toEqual({ received: 1 });
      const mixed = {
        object: 'page',
        entry: [
          {
            messaging: [
              ...PAGE.entry[0]!.messaging,
              { sender: { id: 'u2' }, timestamp: 1700000005000, message: { mid: 'm.2', text: 'New' } },
            ],
          },
        ],
      };
      expect((await postJson(mixed)).body).toEqual({ received: 1 });
      expect((await messages()).map((m) => m.messageId)).toEqual(['m.2', 'm.1']);
    });

    it('stores the same message id twice in one envelope once', async () => {
      const twice = {
        object: 'whatsapp_business_account',
        entry: [
          {
            changes: [
              {
                value: {
                  messages: [
                    { id: 'wamid.dup', from: '1555', timestamp: '1700000000', text: { body: 'one' } },
                    { id: 'wamid.dup', from: '1555', timestamp: '1700000000', text: { body: 'one' } },
                  ],
                },
              },
            ],
          },
          { changes: [{ value: { messages: [{ id: 'wamid.dup', from: '1555', timestamp: '1700000000' }] } }] },
        ],
      };
      const res = await postJson(twice);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });
      expect(await storedRows()).toHaveLength(1);
    });

    it('stores a message delivered concurrently twice once', async () => {
      const replies = await Promise.all([postJson(WHATSAPP), postJson(WHATSAPP), postJson(WHATSAPP)]);
      for (const reply of replies) expect(reply.status, reply.text).toBe(200);
      expect(replies.reduce((sum, reply) => sum + (reply.body.received as number), 0)).toBe(1);
      expect(await storedRows()).toHaveLength(1);
    });

    it('accepts unsigned posts, and ignores a signature header it has no secret for', async () => {
      expect((await postJson(WHATSAPP)).body).toEqual({ received: 1 });
      const res = await postJson(PAGE, { headers: { 'x-hub-signature-256': 'sha256=0000' } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });
    });

    it('needs no bearer token and does not use one', async () => {
      const other = await t.account();
      const res = await t.rest('POST', hookPath(owner.apiKey, CAMP), {
        raw: JSON.stringify(PAGE),
        headers: { 'content-type': 'application/json' },
        token: other.token,
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });
      expect((await storedRows()).map((row) => row.account_id)).toEqual([owner.id]);
    });

    it('accepts a body without a content-type', async () => {
      const res = await t.rest('POST', hookPath(owner.apiKey, CAMP), { raw: JSON.stringify(PAGE) });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });
    });

    it('keeps non-ASCII text', async () => {
      const body = {
        object: 'page',
        entry: [
          {
            messaging: [
              { sender: { id: 'u7' }, timestamp: 1700000007, message: { mid: 'm.7', text: 'héllo 👋 日本' } },
            ],
          },
        ],
      };
      expect((await postJson(body)).body).toEqual({ received: 1 });
      expect((await messages())[0]?.text).toBe('héllo 👋 日本');
    });
  });

  describe('with an app secret stored', () => {
    beforeEach(async () => {
      owner = await setUp({ appSecret: APP_SECRET });
    });

    it('accepts a correct X-Hub-Signature-256 over the raw body', async () => {
      const raw = JSON.stringify(WHATSAPP);
      const res = await post(raw, { headers: { 'x-hub-signature-256': sign(raw) } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });
      expect((await messages()).map((m) => m.messageId)).toEqual(['wamid.1']);
    });

    it('accepts an upper-case hex digest', async () => {
      const raw = JSON.stringify(PAGE);
      const signature = `sha256=${sign(raw).slice('sha256='.length).toUpperCase()}`;
      const res = await post(raw, { headers: { 'X-Hub-Signature-256': signature } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });
    });

    it('verifies the exact bytes received, not a re-serialisation', async () => {
      const reserialised = JSON.stringify(JSON.parse(ODD_BODY));
      expect(reserialised).not.toBe(ODD_BODY);
      expect(sign(reserialised)).not.toBe(sign(ODD_BODY));

      const overReserialised = await post(ODD_BODY, { headers: { 'x-hub-signature-256': sign(reserialised) } });
      expect(overReserialised.status, overReserialised.text).toBe(403);
      expect(await storedRows()).toEqual([]);

      const overRaw = await post(ODD_BODY, { headers: { 'x-hub-signature-256': sign(ODD_BODY) } });
      expect(overRaw.status, overRaw.text).toBe(200);
      expect(overRaw.body).toEqual({ received: 1 });
      const [message] = await messages();
      expect(message).toMatchObject({ messageId: 'm.9', sender: 'u9', text: 'Hi' });
    });

    it('verifies bodies with escaped and raw non-ASCII characters over their bytes as sent', async () => {
      // Meta escapes non-ASCII as \uXXXX and signs the escaped form; parsing and re-encoding would change the bytes.
      const escaped =
        '{"object":"page","entry":[{"messaging":[{"sender":{"id":"u8"},"message":{"mid":"m.8","text":"caf\\u00e9 \\ud83d\\udc4b"}}]}]}';
      const res = await post(escaped, { headers: { 'x-hub-signature-256': sign(escaped) } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });

      const utf8 =
        '{"object":"page","entry":[{"messaging":[{"sender":{"id":"u9"},"message":{"mid":"m.10","text":"café 👋"}}]}]}';
      const res2 = await post(utf8, { headers: { 'x-hub-signature-256': sign(Buffer.from(utf8, 'utf8')) } });
      expect(res2.status, res2.text).toBe(200);
      expect(res2.body).toEqual({ received: 1 });

      expect((await messages()).map((m) => m.text).sort()).toEqual(['café 👋', 'café 👋']);
    });

    const rejected: Array<[string, (raw: string) => Record<string, string>]> = [
      ['a missing signature', () => ({})],
      ['an empty signature', () => ({ 'x-hub-signature-256': '' })],
      ['a signature made with another secret', (raw) => ({ 'x-hub-signature-256': sign(raw, 'another-secret') })],
      ['a signature of another body', () => ({ 'x-hub-signature-256': sign(JSON.stringify(PAGE)) })],
      ['a signature without "sha256="', (raw) => ({ 'x-hub-signature-256': sign(raw).slice('sha256='.length) })],
      ['a truncated signature', (raw) => ({ 'x-hub-signature-256': sign(raw).slice(0, -2) })],
      ['a signature in the old SHA-1 header only', (raw) => ({ 'x-hub-signature': sign(raw) })],
    ];

    for (const [name, headers] of rejected) {
      it(`is 403 and stores nothing for ${name}`, async () => {
        const raw = JSON.stringify(WHATSAPP);
        const res = await post(raw, { headers: headers(raw) });
        expect(res.status, res.text).toBe(403);
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(typeof res.body.detail).toBe('string');
        expect(res.text).not.toContain(APP_SECRET);
        expect(await storedRows()).toEqual([]);
        expect(await messages()).toEqual([]);
      });
    }

    it('is 403 for a correct signature of a body changed in transit (one space added)', async () => {
      const raw = JSON.stringify(PAGE);
      const res = await post(`${raw} `, { headers: { 'x-hub-signature-256': sign(raw) } });
      expect(res.status, res.text).toBe(403);
      expect(await storedRows()).toEqual([]);
    });

    it('accepts unsigned posts again once the channel is re-added without an app secret', async () => {
      await connectSocial(owner);
      const res = await postJson(PAGE);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: 1 });
    });
  });

  describe('malformed envelopes (4xx with a clear JSON message, never 500)', () => {
    beforeEach(async () => {
      owner = await setUp();
    });

    const malformed: Array<[string, string | undefined]> = [
      ['a body that is not JSON', '{nope'],
      ['an empty body', ''],
      ['no body at all', undefined],
      ['whitespace only', '   \n'],
      ['a JSON array', '[]'],
      ['a JSON array of an envelope', JSON.stringify([PAGE])],
      ['a JSON string', '"hello"'],
      ['JSON null', 'null'],
      ['a JSON number', '42'],
      ['an object without entry', '{"object":"page"}'],
      ['entry not an array', '{"object":"page","entry":{"messaging":[]}}'],
      ['entry a string', '{"object":"page","entry":"x"}'],
      ['an entry that is not an object', '{"object":"page","entry":[42]}'],
      ['messaging not an array', '{"entry":[{"messaging":{"message":{"mid":"m"}}}]}'],
      ['changes not an array', '{"entry":[{"changes":"x"}]}'],
      [
        'a WhatsApp message without id',
        JSON.stringify({ entry: [{ changes: [{ value: { messages: [{ from: '1', text: { body: 'x' } }] } }] }] }),
      ],
      [
        'a WhatsApp message with an empty id',
        JSON.stringify({ entry: [{ changes: [{ value: { messages: [{ id: '', from: '1' }] } }] }] }),
      ],
      [
        'a WhatsApp message without sender',
        JSON.stringify({ entry: [{ changes: [{ value: { messages: [{ id: 'w.1' }] } }] }] }),
      ],
      [
        'a page message without mid',
        JSON.stringify({ entry: [{ messaging: [{ sender: { id: 'u1' }, message: { text: 'x' } }] }] }),
      ],
      [
        'a page event without sender',
        JSON.stringify({ entry: [{ messaging: [{ message: { mid: 'm.1', text: 'x' } }] }] }),
      ],
      [
        'a numeric message id',
        JSON.stringify({ entry: [{ messaging: [{ sender: { id: 'u1' }, message: { mid: 12345 } }] }] }),
      ],
      [
        'a timestamp that is not a number',
        JSON.stringify({
          entry: [{ messaging: [{ sender: { id: 'u1' }, timestamp: 'yesterday', message: { mid: 'm.1' } }] }],
        }),
      ],
      [
        'text that is an object',
        JSON.stringify({ entry: [{ messaging: [{ sender: { id: 'u1' }, message: { mid: 'm.1', text: { a: 1 } } }] }] }),
      ],
    ];

    for (const [name, raw] of malformed) {
      it(`is 422 for ${name}, and stores nothing`, async () => {
        const res = await post(raw);
        expect422(res);
        expect(await storedRows()).toEqual([]);
      });
    }

    it('reports invalid JSON as json_invalid at ["body", ...]', async () => {
      const res = await post('{nope');
      expect422(res);
      expect(res.body.detail[0].type).toBe('json_invalid');
    });

    it('reports a message without id at its place in the body', async () => {
      const raw = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [{ changes: [{ value: { messages: [{ from: '1555', text: { body: 'x' } }] } }] }],
      });
      const res = await post(raw);
      expect422(res);
      expect(res.body.detail).toEqual([
        expect.objectContaining({
          type: 'missing',
          loc: ['body', 'entry', 0, 'changes', 0, 'value', 'messages', 0, 'id'],
          msg: 'Field required',
        }),
      ]);
    });

    it('reports entry that is not an array at ["body", "entry"]', async () => {
      const res = await post('{"object":"page","entry":{"messaging":[]}}');
      expect422(res);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['body', 'entry']);
    });

    it('stores nothing of an envelope where one message of many is malformed', async () => {
      const raw = JSON.stringify({
        entry: [
          {
            messaging: [
              { sender: { id: 'u1' }, message: { mid: 'm.ok', text: 'fine' } },
              { sender: { id: 'u2' }, message: { text: 'no mid' } },
            ],
          },
        ],
      });
      expect422(await post(raw));
      expect(await storedRows()).toEqual([]);
    });

    it('accepts a huge but valid body under 1 MiB', async () => {
      const messagesIn = Array.from({ length: 12 }, (_, i) => ({
        sender: { id: `u${i}` },
        timestamp: 1700000000 + i,
        message: { mid: `m.big.${i}`, text: `${i}`.padEnd(60_000, 'x') },
      }));
      const envelope = { object: 'page', entry: [{ messaging: messagesIn }], padding: '' };
      const base = Buffer.byteLength(JSON.stringify(envelope));
      envelope.padding = 'p'.repeat(MIB - 1024 - base);
      const raw = JSON.stringify(envelope);
      expect(Buffer.byteLength(raw)).toBeGreaterThan(MIB - 2048);
      expect(Buffer.byteLength(raw)).toBeLessThan(MIB);

      const res = await post(raw);
      expect(res.status, res.text.slice(0, 500)).toBe(200);
      expect(res.body).toEqual({ received: 12 });
      const stored = await messages();
      expect(stored).toHaveLength(10);
      expect(stored[0]?.messageId).toBe('m.big.11');
      expect(stored[0]?.text).toHaveLength(60_000);
    });

    it('accepts a signed body just under 1 MiB', async () => {
      await connectSocial(owner, { appSecret: APP_SECRET });
      const envelope = { ...PAGE, padding: '' };
      envelope.padding = 'q'.repeat(MIB - 100 - Buffer.byteLength(JSON.stringify(envelope)));
      const raw = JSON.stringify(envelope);
      expect(Buffer.byteLength(raw)).toBeLessThan(MIB);
      const res = await post(raw, { headers: { 'x-hub-signature-256': sign(raw) } });
      expect(res.status, res.text.slice(0, 500)).toBe(200);
      expect(res.body).toEqual({ received: 1 });
    });

    it('is 413 for a body over 1 MiB, and stores nothing', async () => {
      const envelope = { ...PAGE, padding: 'z'.repeat(MIB) };
      const raw = JSON.stringify(envelope);
      expect(Buffer.byteLength(raw)).toBeGreaterThan(MIB);
      const res = await post(raw);
      expect(res.status, res.text).toBe(413);
      expect(res.body).toEqual({ detail: expect.any(String) });
      expect(await storedRows()).toEqual([]);
    });

    it('is 413 for a body whose characters fit in 1 MiB but whose UTF-8 bytes do not', async () => {
      const envelope = { ...PAGE, padding: 'é'.repeat(MIB / 2 + 10) };
      const raw = JSON.stringify(envelope);
      expect(raw.length).toBeLessThan(MIB);
      expect(Buffer.byteLength(raw)).toBeGreaterThan(MIB);
      const res = await post(raw);
      expect(res.status, res.text).toBe(413);
      expect(await storedRows()).toEqual([]);
    });
  });

  describe('keys, campaigns and tenancy', () => {
    beforeEach(async () => {
      owner = await setUp();
    });

    it('is 403 for a wrong API key, and stores nothing', async () => {
      for (const apiKey of [`${owner.apiKey}x`, 'not-a-key', owner.apiKey.slice(0, -1)]) {
        const res = await postJson(PAGE, { apiKey });
        expect(res.status, res.text).toBe(403);
        expect(res.body).toEqual({ detail: expect.any(String) });
      }
      expect(await storedRows()).toEqual([]);
    });

    it('is 404 {"detail": "Campaign not found"} for an unknown campaign, and stores nothing', async () => {
      const res = await postJson(PAGE, { campId: 'no-such-campaign' });
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual({ detail: 'Campaign not found' });
      expect(await storedRows()).toEqual([]);
    });

    it('is 403 when the social channel is not connected', async () => {
      const unconnected = await t.account();
      await createCampaign(unconnected);
      const res = await postJson(PAGE, { apiKey: unconnected.apiKey });
      expect(res.status, res.text).toBe(403);
      expect(await storedRows()).toEqual([]);
    });

    it("lets no other account's key post into this account's campaign", async () => {
      const other = await t.account();
      await connectSocial(other);
      const res = await postJson(PAGE, { apiKey: other.apiKey });
      expect(res.status, res.text).toBe(404);
      expect(await storedRows()).toEqual([]);
      expect(await messages()).toEqual([]);
    });

    it("stores what another account's key posts for the same campaign id in that account's campaign only", async () => {
      const other = await setUp();
      expect((await postJson(PAGE, { apiKey: other.apiKey })).body).toEqual({ received: 1 });
      expect(await messages(owner)).toEqual([]);
      expect((await messages(other)).map((m) => m.messageId)).toEqual(['m.1']);
      const rows = await storedRows();
      expect(rows).toHaveLength(1);
      expect(rows[0]?.account_id).toBe(other.id);
    });

    it("never shows one account's messages in another account's campaign", async () => {
      const other = await setUp();
      expect((await postJson(WHATSAPP)).body).toEqual({ received: 1 });
      const otherMessage = {
        object: 'page',
        entry: [
          { messaging: [{ sender: { id: 'x1' }, timestamp: 1700000099, message: { mid: 'm.other', text: 'Theirs' } }] },
        ],
      };
      expect((await postJson(otherMessage, { apiKey: other.apiKey })).body).toEqual({ received: 1 });
      // The same message id delivered to both accounts is each account's own message.
      expect((await postJson(PAGE, { apiKey: other.apiKey })).body).toEqual({ received: 1 });
      expect((await postJson(PAGE)).body).toEqual({ received: 1 });

      expect((await messages(owner)).map((m) => m.messageId)).toEqual(['m.1', 'wamid.1']);
      expect((await messages(other)).map((m) => m.messageId)).toEqual(['m.other', 'm.1']);
      expect(await storedRows()).toHaveLength(4);
    });

    it("keeps one campaign's messages out of another campaign of the same account", async () => {
      await createCampaign(owner, 'second-camp');
      expect((await postJson(WHATSAPP)).body).toEqual({ received: 1 });
      expect((await postJson(PAGE, { campId: 'second-camp' })).body).toEqual({ received: 1 });
      expect((await messages(owner, CAMP)).map((m) => m.messageId)).toEqual(['wamid.1']);
      expect((await messages(owner, 'second-camp')).map((m) => m.messageId)).toEqual(['m.1']);
    });

    it("does not show another account's campaign through GraphQL", async () => {
      const other = await t.account();
      expect((await postJson(WHATSAPP)).body).toEqual({ received: 1 });
      const res = await t.gql(MESSAGES, { campId: CAMP }, other.token);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data?.campaign).toBeNull();
    });
  });
});
