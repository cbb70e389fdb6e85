// The telephony provider's call-status callbacks on the legacy door (docs/decisions.md §7, §10):
// POST /api/v3/telephony_webhook/{apiKey}/{campId}, form-encoded, signed with X-Telephony-Signature.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { campaignModelData } from '../helpers/campaigns.js';
import { internalGql } from '../helpers/internal-graph.js';
import { AUTH_TOKEN, connectTelephony, sendCallback, sign } from '../helpers/telephony.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const CAMP = 'spring-2024';
const SID = 'CA00000000000000000000000000000001';

interface Account {
  token: string;
  apiKey: string;
  id: string;
  email: string;
}

let t: TestApp;
let a: Account;

async function createCampaign(app: TestApp, token: string, campId = CAMP) {
  const res = await app.rest('POST', '/update_campaign', {
    token,
    body: { campId, campaignModelData: campaignModelData() },
  });
  expect(res.status, res.text).toBe(200);
}

async function logsOf(app: TestApp, token: string, campId = CAMP): Promise<any[]> {
  const res = await app.rest('GET', `/get_call_logs_for_campaign?campId=${encodeURIComponent(campId)}`, { token });
  expect(res.status, res.text).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return res.body as any[];
}

const storedRows = (app: TestApp) => app.app.database.db.selectFrom('call_logs').selectAll().execute();

const webhookPath = (apiKey: string, campId: string) =>
  `/api/v3/telephony_webhook/${encodeURIComponent(apiKey)}/${encodeURIComponent(campId)}`;

const params = (status: string, extra: Record<string, string> = {}): Record<string, string> => ({
  CallSid: SID,
  CallStatus: status,
  From: '+14155550100',
  To: '+14155550199',
  Direction: 'outbound-api',
  ...extra,
});

const COMPLETED = params('completed', { CallDuration: '42', Price: '-0.0125' });

async function expectReceived(reply: Awaited<ReturnType<typeof sendCallback>>) {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toEqual({ received: true });
}

function expectForbidden(reply: Awaited<ReturnType<typeof sendCallback>>) {
  expect(reply.status, reply.text).toBe(403);
  expect(reply.body).toEqual({ detail: expect.any(String) });
  expect((reply.body as { detail: string }).detail.length).toBeGreaterThan(0);
}

beforeEach(async () => {
  t = await startApp();
  a = await t.account();
  await connectTelephony(t, a.token);
  await createCampaign(t, a.token);
});

afterEach(async () => {
  await t.close();
});

/** Replaces this test's app by one started with `env`: one app (and one database) alive at a time. */
async function restart(env: Record<string, string>) {
  await t.close();
  t = await startApp(env);
  a = await t.account();
  await connectTelephony(t, a.token);
  await createCampaign(t, a.token);
}

describe('a signed sequence of callbacks', () => {
  it('ringing → in-progress → completed, then a late ringing, leaves one completed log', async () => {
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('ringing')));
    let logs = await logsOf(t, a.token);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ callId: SID, campaignId: CAMP, status: 'ringing', endedAt: null });

    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('in-progress')));
    logs = await logsOf(t, a.token);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ status: 'in-progress', endedAt: null });

    await expectReceived(await sendCallback(t, a.apiKey, CAMP, COMPLETED));
    logs = await logsOf(t, a.token);
    expect(logs).toHaveLength(1);
    const completed = logs[0];
    expect(completed).toMatchObject({
      callId: SID,
      campaignId: CAMP,
      status: 'completed',
      durationSeconds: 42,
      cost: 0.0125,
      direction: 'outbound-api',
      fromNumber: '+14155550100',
      toNumber: '+14155550199',
      startedAt: expect.stringMatching(ISO_UTC),
      endedAt: expect.stringMatching(ISO_UTC),
      createdAt: expect.stringMatching(ISO_UTC),
      updatedAt: expect.stringMatching(ISO_UTC),
    });

    // A late non-terminal status never overwrites a terminal one.
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('ringing')));
    logs = await logsOf(t, a.token);
    expect(logs).toEqual([completed]);

    // Repeating the terminal callback is harmless.
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, COMPLETED));
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, COMPLETED));
    logs = await logsOf(t, a.token);
    expect(logs).toEqual([completed]);
    expect(await storedRows(t)).toHaveLength(1);
  });

  it('a second terminal status does not replace the first one, nor its duration and price', async () => {
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, COMPLETED));
    const [completed] = await logsOf(t, a.token);
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('failed', { CallDuration: '7', Price: '-0.5' })));
    expect(await logsOf(t, a.token)).toEqual([completed]);
  });

  it('out of order: completed first, then in-progress and ringing, stays completed', async () => {
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, COMPLETED));
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('in-progress')));
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('ringing')));
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('queued')));
    const logs = await logsOf(t, a.token);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      callId: SID,
      status: 'completed',
      durationSeconds: 42,
      cost: 0.0125,
      endedAt: expect.stringMatching(ISO_UTC),
    });
    expect(await storedRows(t)).toHaveLength(1);
  });

  it('callbacks of one call delivered concurrently still leave one completed log', async () => {
    const batch = [params('ringing'), COMPLETED, params('in-progress'), COMPLETED, params('queued'), COMPLETED];
    const replies = await Promise.all(batch.map((body) => sendCallback(t, a.apiKey, CAMP, body)));
    for (const reply of replies) await expectReceived(reply);
    const logs = await logsOf(t, a.token);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ callId: SID, status: 'completed', durationSeconds: 42, cost: 0.0125 });
    expect(logs[0].endedAt).toMatch(ISO_UTC);
    expect(await storedRows(t)).toHaveLength(1);
  });

  it('keeps separate logs for separate CallSids', async () => {
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('ringing', { CallSid: 'CA-one' })));
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('busy', { CallSid: 'CA-two' })));
    const logs = await logsOf(t, a.token);
    expect(logs.map((log) => [log.callId, log.status]).sort()).toEqual([
      ['CA-one', 'ringing'],
      ['CA-two', 'busy'],
    ]);
  });

  it('needs no bearer token', async () => {
    const path = webhookPath(a.apiKey, CAMP);
    const body = params('ringing');
    const reply = await t.request('POST', path, {
      raw: new URLSearchParams(body).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-telephony-signature': sign(AUTH_TOKEN, `http://127.0.0.1${path}`, body),
      },
    });
    await expectReceived(reply);
    expect(await storedRows(t)).toHaveLength(1);
  });
});

describe('refused callbacks store nothing', () => {
  it('a wrong signature → 403', async () => {
    const reply = await sendCallback(t, a.apiKey, CAMP, COMPLETED, { signature: 'RSOYDt4T1cUTdK1PDd93/VVr8B8=' });
    expectForbidden(reply);
    expect(await storedRows(t)).toEqual([]);
  });

  it('a signature over other parameters → 403', async () => {
    const signature = sign(AUTH_TOKEN, `http://127.0.0.1${webhookPath(a.apiKey, CAMP)}`, params('ringing'));
    expectForbidden(await sendCallback(t, a.apiKey, CAMP, COMPLETED, { signature }));
    expect(await storedRows(t)).toEqual([]);
  });

  it('a missing X-Telephony-Signature header → 403', async () => {
    expectForbidden(await sendCallback(t, a.apiKey, CAMP, COMPLETED, { signature: null }));
    expect(await storedRows(t)).toEqual([]);
  });

  it('an empty X-Telephony-Signature header → 403', async () => {
    expectForbidden(await sendCallback(t, a.apiKey, CAMP, COMPLETED, { signature: '' }));
    expect(await storedRows(t)).toEqual([]);
  });

  it('a signature made with another auth token → 403', async () => {
    expectForbidden(await sendCallback(t, a.apiKey, CAMP, COMPLETED, { authToken: 'another-auth-token-0000000000' }));
    expect(await storedRows(t)).toEqual([]);
  });

  it('a wrong API key in the path → 403, even when signed with the right token', async () => {
    expectForbidden(await sendCallback(t, `${a.apiKey}x`, CAMP, COMPLETED));
    expectForbidden(await sendCallback(t, 'not-an-api-key', CAMP, COMPLETED));
    expect(await storedRows(t)).toEqual([]);
  });

  it('a wrong API key on an unknown campaign is 403, not 404', async () => {
    expectForbidden(await sendCallback(t, 'not-an-api-key', 'no-such-campaign', COMPLETED));
  });

  it('a wrong signature on an unknown campaign is 403, not 404', async () => {
    expectForbidden(await sendCallback(t, a.apiKey, 'no-such-campaign', COMPLETED, { signature: 'bogus' }));
  });

  it('a signature made with the auth token that was replaced → 403', async () => {
    await connectTelephony(t, a.token, 'the-new-auth-token-0123456789');
    expectForbidden(await sendCallback(t, a.apiKey, CAMP, COMPLETED));
    expect(await storedRows(t)).toEqual([]);
    await expectReceived(
      await sendCallback(t, a.apiKey, CAMP, COMPLETED, { authToken: 'the-new-auth-token-0123456789' }),
    );
  });

  it('an account without telephony configured → 403', async () => {
    const other = await t.account();
    await createCampaign(t, other.token);
    expectForbidden(await sendCallback(t, other.apiKey, CAMP, COMPLETED));
    expect(await storedRows(t)).toEqual([]);
  });

  it('an unknown campId, signed correctly → 404 Campaign not found', async () => {
    const reply = await sendCallback(t, a.apiKey, 'no-such-campaign', COMPLETED);
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Campaign not found' });
    expect(await storedRows(t)).toEqual([]);
  });
});

describe('invalid parameters, validly signed → 422', () => {
  it('an unknown CallStatus', async () => {
    const reply = await sendCallback(t, a.apiKey, CAMP, params('weird'));
    expect(reply.status, reply.text).toBe(422);
    const detail = (reply.body as { detail: any[] }).detail;
    expect(detail).toHaveLength(1);
    expect(detail[0]).toMatchObject({ loc: ['body', 'CallStatus'], type: expect.any(String), msg: expect.any(String) });
    expect(await storedRows(t)).toEqual([]);
  });

  it('a missing CallSid', async () => {
    const { CallSid: _sid, ...withoutSid } = params('ringing');
    const reply = await sendCallback(t, a.apiKey, CAMP, withoutSid);
    expect(reply.status, reply.text).toBe(422);
    const detail = (reply.body as { detail: any[] }).detail;
    expect(detail).toHaveLength(1);
    expect(detail[0]).toMatchObject({ loc: ['body', 'CallSid'], type: 'missing', msg: 'Field required' });
    expect(await storedRows(t)).toEqual([]);
  });

  it('every problem at once', async () => {
    const reply = await sendCallback(t, a.apiKey, CAMP, { CallStatus: 'weird', CallDuration: 'long' });
    expect(reply.status, reply.text).toBe(422);
    const locs = (reply.body as { detail: any[] }).detail.map((d) => JSON.stringify(d.loc)).sort();
    expect(locs).toEqual(
      [
        ['body', 'CallDuration'],
        ['body', 'CallSid'],
        ['body', 'CallStatus'],
      ].map((loc) => JSON.stringify(loc)),
    );
    expect(await storedRows(t)).toEqual([]);
  });
});

describe('PUBLIC_BASE_URL', () => {
  it('the signature covers the public URL the provider called, not the internal one', async () => {
    await restart({ PUBLIC_BASE_URL: 'https://gateway.example.com' });
    const path = webhookPath(a.apiKey, CAMP);

    expectForbidden(await sendCallback(t, a.apiKey, CAMP, params('ringing')));
    expect(await storedRows(t)).toEqual([]);

    const signature = sign(AUTH_TOKEN, `https://gateway.example.com${path}`, COMPLETED);
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, COMPLETED, { signature }));
    const logs = await logsOf(t, a.token);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ callId: SID, status: 'completed', durationSeconds: 42, cost: 0.0125 });
  });

  it('a trailing slash on PUBLIC_BASE_URL makes no difference', async () => {
    await restart({ PUBLIC_BASE_URL: 'https://gateway.example.com/' });
    const signature = sign(AUTH_TOKEN, `https://gateway.example.com${webhookPath(a.apiKey, CAMP)}`, COMPLETED);
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, COMPLETED, { signature }));
    expect(await storedRows(t)).toHaveLength(1);
  });
});

describe('tenant isolation', () => {
  it("another account's API key cannot write into this account's campaign", async () => {
    const b = await t.account();
    const bToken = 'b-auth-token-fedcba9876543210';
    await connectTelephony(t, b.token, bToken);

    // Signed with B's own token: the key names B, who has no such campaign.
    const own = await sendCallback(t, b.apiKey, CAMP, COMPLETED, { authToken: bToken });
    expect([403, 404]).toContain(own.status);
    expect(own.body).toEqual({ detail: expect.any(String) });
    // Signed with A's token: not B's signature.
    expectForbidden(await sendCallback(t, b.apiKey, CAMP, COMPLETED));

    expect(await storedRows(t)).toEqual([]);
    expect(await logsOf(t, a.token)).toEqual([]);
  });

  it("a callback with B's key lands in B's campaign of the same campId, never in A's", async () => {
    const b = await t.account();
    const bToken = 'b-auth-token-fedcba9876543210';
    await connectTelephony(t, b.token, bToken);
    await createCampaign(t, b.token);

    await expectReceived(await sendCallback(t, b.apiKey, CAMP, COMPLETED, { authToken: bToken }));
    expect(await logsOf(t, a.token)).toEqual([]);
    const bLogs = await logsOf(t, b.token);
    expect(bLogs).toHaveLength(1);
    expect(bLogs[0]).toMatchObject({ callId: SID, status: 'completed' });
    const rows = await storedRows(t);
    expect(rows.map((row) => row.account_id)).toEqual([b.id]);

    // The same CallSid for A is A's own call, not B's.
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, params('ringing')));
    const aLogs = await logsOf(t, a.token);
    expect(aLogs).toHaveLength(1);
    expect(aLogs[0]).toMatchObject({ callId: SID, status: 'ringing' });
    expect((await logsOf(t, b.token))[0]).toMatchObject({ status: 'completed' });
  });
});

describe('a signature is valid only for the URL of the campaign it names', () => {
  const OTHER = 'other-campaign';
  const CALLBACK = /* GraphQL */ `
    mutation ($apiKey: String!, $campId: String!, $url: String!, $params: JSONObject!, $signature: String) {
      receiveCallStatusCallback(apiKey: $apiKey, campId: $campId, url: $url, params: $params, signature: $signature) {
        callId
        campaignId
      }
    }
  `;
  // The callback mutation is the REST door's, on the internal graph (docs/graphql.md#two-graphs).
  const callback = async (vars: { apiKey?: string; campId: string; url: string; signature?: string }) => ({
    body: await internalGql(t, CALLBACK, {
      apiKey: vars.apiKey ?? a.apiKey,
      campId: vars.campId,
      url: vars.url,
      params: COMPLETED,
      signature: vars.signature ?? sign(AUTH_TOKEN, vars.url, COMPLETED),
    }),
  });
  const expectInvalidSignature = (reply: Awaited<ReturnType<typeof callback>>) => {
    expect(reply.body.data).toBeNull();
    expect(reply.body.errors).toEqual([
      expect.objectContaining({
        message: 'Invalid signature',
        extensions: expect.objectContaining({ code: 'FORBIDDEN' }),
      }),
    ]);
  };

  /** POSTs a form-encoded callback to `path` as it is (percent-encoding and all), signed over `signedUrl`. */
  const postTo = (path: string, signedUrl: string) =>
    t.request('POST', path, {
      raw: new URLSearchParams(COMPLETED).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-telephony-signature': sign(AUTH_TOKEN, signedUrl, COMPLETED),
      },
    });

  beforeEach(async () => {
    await createCampaign(t, a.token, OTHER);
  });

  it("REST: a callback signed for campaign A's URL, posted to B's path → 403, nothing stored", async () => {
    const signature = sign(AUTH_TOKEN, `http://127.0.0.1${webhookPath(a.apiKey, CAMP)}`, COMPLETED);
    expectForbidden(await sendCallback(t, a.apiKey, OTHER, COMPLETED, { signature }));
    expect(await storedRows(t)).toEqual([]);
    // …while the same callback on A's own path is accepted.
    await expectReceived(await sendCallback(t, a.apiKey, CAMP, COMPLETED, { signature }));
  });

  it("GraphQL: A's URL and signature with campId B → FORBIDDEN, nothing read; with campId A it is accepted", async () => {
    const url = `https://gateway.example.com${webhookPath(a.apiKey, CAMP)}`;
    t.resetQueries();
    expectInvalidSignature(await callback({ campId: OTHER, url }));
    expect(t.queries).toEqual([]);
    expect(await storedRows(t)).toEqual([]);
    expect(await logsOf(t, a.token, OTHER)).toEqual([]);

    const genuine = await callback({ campId: CAMP, url });
    expect(genuine.body.errors).toBeUndefined();
    expect(genuine.body.data.receiveCallStatusCallback).toEqual({ callId: SID, campaignId: CAMP });
  });

  it("GraphQL: a URL naming another account's key → FORBIDDEN 'Invalid signature'", async () => {
    const b = await t.account();
    const url = `https://gateway.example.com${webhookPath(b.apiKey, CAMP)}`;
    expectInvalidSignature(await callback({ campId: CAMP, url }));
    expect(await storedRows(t)).toEqual([]);
  });

  it.each([
    ['not a callback URL at all', 'https://gateway.example.com/anything'],
    ['not a URL', 'not a url'],
    ['the campaign as a query parameter', 'https://gateway.example.com/api/v3/telephony_webhook?campId=spring-2024'],
    ['a campaign whose id only starts alike', `https://gateway.example.com/api/v3/telephony_webhook/KEY/${CAMP}x`],
    ['a badly percent-encoded path', 'https://gateway.example.com/api/v3/telephony_webhook/KEY/%E0%A4%A'],
  ])('GraphQL: %s → FORBIDDEN, even when signed', async (_case, template) => {
    const url = template.replace('KEY', a.apiKey);
    expectInvalidSignature(await callback({ campId: CAMP, url }));
    expect(await storedRows(t)).toEqual([]);
  });

  it('GraphQL: the URL may percent-encode the key and the campaign (compared decoded)', async () => {
    const url = `https://gateway.example.com/api/v3/telephony_webhook/${a.apiKey.replace('ck_', 'ck%5F')}/%73pring-2024`;
    const reply = await callback({ campId: CAMP, url });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.receiveCallStatusCallback).toEqual({ callId: SID, campaignId: CAMP });
  });

  it("REST: behind a PUBLIC_BASE_URL with a path prefix, the campaign's own URL still verifies", async () => {
    await restart({ PUBLIC_BASE_URL: 'https://gateway.example.com/prefix' });
    const campId = 'Spring_2024-b';
    await createCampaign(t, a.token, campId);
    const path = webhookPath(a.apiKey, campId);
    const signature = sign(AUTH_TOKEN, `https://gateway.example.com/prefix${path}`, COMPLETED);
    await expectReceived(await sendCallback(t, a.apiKey, campId, COMPLETED, { signature }));
    expect(await logsOf(t, a.token, campId)).toHaveLength(1);
  });

  it('REST: a percent-encoded campId (behind a prefix) still verifies; a trailing slash is redirected', async () => {
    await restart({ PUBLIC_BASE_URL: 'https://gateway.example.com/prefix/' });
    const encoded = `/api/v3/telephony_webhook/${a.apiKey}/%73pring%2D2024`;
    await expectReceived(await postTo(encoded, `https://gateway.example.com/prefix${encoded}`));
    // As the legacy service answered it: 307 to the path without the slash (method and body kept by the client).
    const slash = `${webhookPath(a.apiKey, CAMP)}/`;
    const redirected = await postTo(slash, `https://gateway.example.com/prefix${slash}`);
    expect(redirected.status).toBe(307);
    expect(redirected.headers.get('location')).toBe(webhookPath(a.apiKey, CAMP));
    expect(await logsOf(t, a.token)).toHaveLength(1);
    // The encoded path names spring-2024, so it is no path for another campaign.
    expectForbidden(await postTo(webhookPath(a.apiKey, OTHER), `https://gateway.example.com/prefix${encoded}`));
  });
});
