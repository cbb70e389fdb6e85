// NUL (U+0000) in an inbound social message is refused before any database sees it, the same on SQLite and
// PostgreSQL (src/domain/social.schema.ts): 422 at the message's field, naming NUL, nothing of the delivery stored,
// and no internal variable of the door (the raw body, the signature, the API key or its mask) in the answer. Before,
// SQLite stored it and PostgreSQL refused the whole batch at the INSERT with a 422 that echoed those variables.
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';

const APP_SECRET = 'app-secret-Hn3Kd9Vs5Bc1Fg7Q';
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const sign = (raw: string) => `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;

async function setUp() {
  t = await startApp({}, [], { worker: false });
  const account = await t.account();
  const campaign = await t.rest('POST', '/update_campaign', {
    body: { campId: 'spring', campaignModelData: campaignModelData() },
    token: account.token,
  });
  expect(campaign.status, campaign.text).toBe(200);
  const social = await t.rest('POST', '/add_social_info', {
    body: {
      pageId: 'page-123',
      accessToken: 'EAAB-access-token-0123456789',
      verifyToken: 'verify-0123456789',
      appSecret: APP_SECRET,
    },
    token: account.token,
  });
  expect(social.status, social.text).toBe(200);
  return account;
}

const whatsapp = (messages: Array<Record<string, unknown>>) => ({
  object: 'whatsapp_business_account',
  entry: [{ changes: [{ value: { messages } }] }],
});
const page = (events: Array<Record<string, unknown>>) => ({ object: 'page', entry: [{ messaging: events }] });

describe('NUL in an inbound social message', () => {
  const cases: Array<[string, unknown, Array<string | number>]> = [
    [
      'a WhatsApp text body',
      whatsapp([
        { id: 'wamid.1', from: '15551234567', text: { body: 'fine' } },
        { id: 'wamid.2', from: '15551234567', text: { body: 'bad\u0000text' } },
      ]),
      ['body', 'entry', 0, 'changes', 0, 'value', 'messages', 1, 'text', 'body'],
    ],
    [
      'a WhatsApp sender',
      whatsapp([{ id: 'wamid.3', from: '1555\u0000', text: { body: 'x' } }]),
      ['body', 'entry', 0, 'changes', 0, 'value', 'messages', 0, 'from'],
    ],
    [
      'a Messenger text',
      page([{ sender: { id: 'u1' }, message: { mid: 'm.1', text: '\u0000' } }]),
      ['body', 'entry', 0, 'messaging', 0, 'message', 'text'],
    ],
    [
      'a Messenger message id',
      page([{ sender: { id: 'u1' }, message: { mid: 'm\u0000', text: 'x' } }]),
      ['body', 'entry', 0, 'messaging', 0, 'message', 'mid'],
    ],
  ];

  for (const [what, envelope, loc] of cases) {
    it(`${what}: 422 at its place, nothing stored, no internal variable echoed`, async () => {
      const account = await setUp();
      const raw = JSON.stringify(envelope);
      const signature = sign(raw);
      const reply = await t!.rest('POST', `/social_webhook/${account.apiKey}/spring`, {
        raw,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      });
      expect(reply.status, reply.text).toBe(422);
      expect(reply.body.detail).toHaveLength(1);
      expect(reply.body.detail[0].loc).toEqual(loc);
      expect(reply.body.detail[0].msg).toMatch(/NUL/);
      for (const internal of ['rawBody', 'signature', 'apiKey', account.apiKey, account.apiKey.slice(-4), signature]) {
        expect(reply.text).not.toContain(internal);
      }
      const stored = await t!.app.database.db.selectFrom('social_messages').selectAll().execute();
      expect(stored).toEqual([]);
    });
  }

  it('a body with a raw NUL byte is refused too, without echoing the raw body or the signature', async () => {
    const account = await setUp();
    const raw = `{"object":"page","entry":[{"messaging":[{"sender":{"id":"u1"},"message":{"mid":"m.1","text":"a\u0000b"}}]}]}`;
    const signature = sign(raw);
    const reply = await t!.rest('POST', `/social_webhook/${account.apiKey}/spring`, {
      raw,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    });
    expect(reply.status, reply.text).toBe(422);
    // No JSON text holds a raw NUL byte: the body is not JSON, said at the body, nothing of it echoed.
    expect(reply.body.detail).toEqual([
      { type: 'json_invalid', loc: ['body'], msg: 'The body is not valid JSON', input: null },
    ]);
    for (const internal of ['rawBody', 'signature', account.apiKey.slice(-4), signature, '"messaging"']) {
      expect(reply.text).not.toContain(internal);
    }
    expect(await t!.app.database.db.selectFrom('social_messages').selectAll().execute()).toEqual([]);
  });

  it('in the path or the handshake: refused at the parameter as sent, the verify token not echoed', async () => {
    const account = await setUp();
    const posted = await t!.rest('POST', `/social_webhook/${account.apiKey}%00/spring`, {
      raw: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(posted.status, posted.text).toBe(422);
    expect(posted.body.detail[0].loc).toEqual(['path', 'apiKey']);
    expect(posted.text).not.toContain(account.apiKey.slice(-4));
    const query = new URLSearchParams({
      'hub.mode': 'subscribe',
      'hub.verify_token': 'verify-0123456789\u0000',
      'hub.challenge': 'c',
    });
    const handshake = await t!.rest('GET', `/social_webhook/${account.apiKey}/spring?${query.toString()}`);
    expect(handshake.status, handshake.text).toBe(422);
    expect(handshake.body.detail[0]).toMatchObject({ loc: ['query', 'hub.verify_token'], input: '****' });
    expect(handshake.text).not.toContain('verify-0123456789');
    const long = new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': `${'v'.repeat(600)}QZXW` });
    const tooLong = await t!.rest('GET', `/social_webhook/${account.apiKey}/spring?${long.toString()}`);
    expect(tooLong.status, tooLong.text).toBe(422);
    expect(tooLong.text).not.toContain('QZXW');
  });

  it('the same delivery without NUL is stored', async () => {
    const account = await setUp();
    const raw = JSON.stringify(whatsapp([{ id: 'wamid.1', from: '15551234567', text: { body: 'fine' } }]));
    const reply = await t!.rest('POST', `/social_webhook/${account.apiKey}/spring`, {
      raw,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw) },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ received: 1 });
  });
});
