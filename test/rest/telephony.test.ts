// Telephony settings (docs/decisions.md §7, §8, §10): POST /update_telephony, GET /get_telephony, and the GraphQL doors
// updateTelephony, disconnectTelephony and viewer.integrations.telephony. The auth token is encrypted at rest and
// never shown whole: every reply made in this file is checked for it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECT, startApp, type Reply, type TestApp } from '../helpers/app.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const SECRET = 'tok-Zq8vN3xWp7Lr2Kd5Hs9Bj4Fm6Tc1Yg0';
const SECRET_2 = 'tok-second-Aa11Bb22Cc33Dd44Ee55-7788';
const SID = 'AC0123456789abcdef';
const PHONE = '+14155550100';

interface Detail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
}

const FIELDS = /* GraphQL */ `
  fragment Telephony on TelephonyIntegration {
    connected
    telephonyAccountSid
    telephonyAuthToken
    telephonyPhoneNumber
    voiceProvider
    updatedAt
  }
`;
const VIEWER = /* GraphQL */ `
  query Viewer {
    viewer {
      integrations {
        telephony {
          ...Telephony
        }
      }
    }
  }
  ${FIELDS}
`;
const UPDATE = /* GraphQL */ `
  mutation Update($input: TelephonyIntegrationInput!) {
    updateTelephony(input: $input) {
      ...Telephony
    }
  }
  ${FIELDS}
`;
const DISCONNECT = /* GraphQL */ `
  mutation Disconnect {
    disconnectTelephony
  }
`;

let t: TestApp;
let token: string;
let accountId: string;
/** Every reply made through the helpers below, with what was asked: none may contain a secret. */
let replies: Array<{ request: string; text: string }>;
const SECRETS = [SECRET, SECRET_2];

function record<T extends Reply<any>>(request: string, reply: T): T {
  replies.push({ request, text: reply.text });
  return reply;
}

const rest = async (method: string, path: string, init: { body?: unknown; token?: string } = {}) =>
  record(`${method} ${path} ${JSON.stringify(init.body ?? null)}`, await t.rest(method, path, init));
const gql = async (query: string, variables: Record<string, unknown> = {}, as = token) =>
  record(`GraphQL ${query.trim().split('\n')[0]} ${JSON.stringify(variables)}`, await t.gql(query, variables, as));

const update = (body: unknown, as = token) => rest('POST', '/update_telephony', { body, token: as });
const get = (as = token) => rest('GET', '/get_telephony', { token: as });
const valid = (overrides: Record<string, unknown> = {}) => ({
  telephonyAccountSid: SID,
  telephonyAuthToken: SECRET,
  telephonyPhoneNumber: PHONE,
  ...overrides,
});

function expectNoSecretInReplies() {
  for (const { request, text } of replies) {
    for (const secret of SECRETS) {
      expect(text.includes(secret), `the reply to ${request} contains the whole token: ${text}`).toBe(false);
    }
  }
}

function expect422(reply: Reply<any>): Detail[] {
  expect(reply.status, reply.text).toBe(422);
  expect(Array.isArray(reply.body.detail)).toBe(true);
  return reply.body.detail as Detail[];
}

function entryAt(details: Detail[], loc: Array<string | number>): Detail {
  const found = details.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(found, `no detail entry at ${JSON.stringify(loc)} in ${JSON.stringify(details)}`).toBeDefined();
  return found as Detail;
}

async function integrationRows(app: TestApp, id = accountId) {
  return app.app.database.db.selectFrom('integrations').selectAll().where('account_id', '=', id).execute();
}

beforeEach(async () => {
  replies = [];
  t = await startApp();
  ({ token, id: accountId } = await t.account());
});

afterEach(async () => {
  try {
    expectNoSecretInReplies();
  } finally {
    await t.close();
  }
});

describe('before anything is set', () => {
  it('GET /get_telephony is 404 Telephony is not configured', async () => {
    const reply = await get();
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Telephony is not configured' });
  });

  it('GraphQL shows telephony not connected, every field null', async () => {
    const reply = await gql(VIEWER);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.viewer.integrations.telephony).toEqual({
      connected: false,
      telephonyAccountSid: null,
      telephonyAuthToken: null,
      telephonyPhoneNumber: null,
      voiceProvider: null,
      updatedAt: null,
    });
  });

  it('both REST paths require a bearer token', async () => {
    expect((await rest('GET', '/get_telephony')).status).toBe(401);
    expect((await rest('POST', '/update_telephony', { body: valid() })).status).toBe(401);
  });
});

describe('POST /update_telephony', () => {
  it('stores the three required fields and answers them with the token masked', async () => {
    const reply = await update(valid());
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(reply.body).toEqual({
      telephonyAccountSid: SID,
      telephonyPhoneNumber: PHONE,
      voiceProvider: 'TELEPHONY',
      telephonyAuthToken: `****${SECRET.slice(-4)}`,
      status: 'connected',
      updatedAt: expect.stringMatching(ISO_UTC),
    });
    expect(Object.keys(reply.body).sort()).toEqual(
      [
        'status',
        'telephonyAccountSid',
        'telephonyAuthToken',
        'telephonyPhoneNumber',
        'updatedAt',
        'voiceProvider',
      ].sort(),
    );

    const read = await get();
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(reply.body);
  });

  it('accepts voiceProvider TELEPHONY given explicitly', async () => {
    const reply = await update(valid({ voiceProvider: 'TELEPHONY' }));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.voiceProvider).toBe('TELEPHONY');
  });

  it('posting again replaces every field', async () => {
    expect((await update(valid())).status).toBe(200);
    const second = await update({
      telephonyAccountSid: 'AC-other',
      telephonyAuthToken: SECRET_2,
      telephonyPhoneNumber: '+442071838750',
    });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toEqual({
      telephonyAccountSid: 'AC-other',
      telephonyPhoneNumber: '+442071838750',
      voiceProvider: 'TELEPHONY',
      telephonyAuthToken: `****${SECRET_2.slice(-4)}`,
      status: 'connected',
      updatedAt: expect.stringMatching(ISO_UTC),
    });
    expect((await get()).body).toEqual(second.body);
    expect(await integrationRows(t)).toHaveLength(1);
  });

  describe('422s', () => {
    it('an empty body names every missing required field', async () => {
      const details = expect422(await update({}));
      expect(details).toHaveLength(3);
      for (const name of ['telephonyAccountSid', 'telephonyAuthToken', 'telephonyPhoneNumber']) {
        expect(entryAt(details, ['body', name])).toMatchObject({ type: 'missing', msg: 'Field required' });
      }
    });

    it.each(['0415 555 0100', '+0123', '14155550100', '+1 415 555 0100', '+1234567890123456'])(
      'phone number %j is not E.164',
      async (phone) => {
        const details = expect422(await update(valid({ telephonyPhoneNumber: phone })));
        expect(details).toHaveLength(1);
        expect(details[0]).toMatchObject({ loc: ['body', 'telephonyPhoneNumber'], input: phone });
      },
    );

    it('voiceProvider OTHER is refused', async () => {
      const details = expect422(await update(valid({ voiceProvider: 'OTHER' })));
      expect(details).toHaveLength(1);
      expect(details[0]).toMatchObject({ loc: ['body', 'voiceProvider'], input: 'OTHER' });
    });

    it('reports every problem at once', async () => {
      const details = expect422(await update({ telephonyPhoneNumber: '0415 555 0100', voiceProvider: 'OTHER' }));
      expect(details).toHaveLength(4);
      expect(entryAt(details, ['body', 'telephonyAccountSid']).type).toBe('missing');
      expect(entryAt(details, ['body', 'telephonyAuthToken']).type).toBe('missing');
      expect(entryAt(details, ['body', 'telephonyPhoneNumber']).input).toBe('0415 555 0100');
      expect(entryAt(details, ['body', 'voiceProvider']).input).toBe('OTHER');
    });

    it('an empty account sid is refused', async () => {
      const details = expect422(await update(valid({ telephonyAccountSid: '' })));
      expect(details.map((d) => d.loc)).toEqual([['body', 'telephonyAccountSid']]);
    });

    it('nothing is stored after a 422, and an earlier setting is kept', async () => {
      expect422(await update(valid({ telephonyPhoneNumber: '+0123' })));
      expect((await get()).status).toBe(404);
      const first = await update(valid());
      expect422(await update(valid({ telephonyAuthToken: SECRET_2, voiceProvider: 'OTHER' })));
      expect((await get()).body).toEqual(first.body);
    });
  });
});

describe('the token is never shown whole', () => {
  it('by any successful reply of either door', async () => {
    await update(valid());
    await get();
    const viewer = await gql(VIEWER);
    expect(viewer.body.data.viewer.integrations.telephony).toEqual({
      connected: true,
      telephonyAccountSid: SID,
      telephonyAuthToken: `****${SECRET.slice(-4)}`,
      telephonyPhoneNumber: PHONE,
      voiceProvider: 'TELEPHONY',
      updatedAt: expect.stringMatching(ISO_UTC),
    });
    const updated = await gql(UPDATE, { input: valid({ telephonyAuthToken: SECRET_2 }) });
    expect(updated.body.errors, updated.text).toBeUndefined();
    expect(updated.body.data.updateTelephony).toMatchObject({
      connected: true,
      telephonyAuthToken: `****${SECRET_2.slice(-4)}`,
    });
    await get();
    await gql(VIEWER);
    expectNoSecretInReplies();
  });

  it('by a REST 422 for a missing field sent alongside the token', async () => {
    // Made without the recording helpers: this test reports its own leak.
    const reply = await t.rest('POST', '/update_telephony', {
      body: { telephonyAuthToken: SECRET, telephonyPhoneNumber: PHONE },
      token,
    });
    const details = expect422(reply);
    expect(entryAt(details, ['body', 'telephonyAccountSid']).type).toBe('missing');
    expect(reply.text).not.toContain(SECRET);
  });

  it('by a REST 422 for an invalid token', async () => {
    const tooLong = `${SECRET}-${'x'.repeat(256)}`;
    const reply = await t.rest('POST', '/update_telephony', { body: valid({ telephonyAuthToken: tooLong }), token });
    const details = expect422(reply);
    expect(entryAt(details, ['body', 'telephonyAuthToken']).type).toBe('string_too_long');
    expect(reply.text).not.toContain(SECRET);
  });

  it('by a GraphQL BAD_USER_INPUT', async () => {
    const reply = await gql(UPDATE, { input: valid({ telephonyAccountSid: '', telephonyPhoneNumber: 'bad' }) });
    expect(reply.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    const paths = reply.body.errors?.[0].extensions.issues.map((issue: { path: string[] }) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        ['input', 'telephonyAccountSid'],
        ['input', 'telephonyPhoneNumber'],
      ]),
    );
    expect(reply.text).not.toContain(SECRET);
  });

  it('by a GraphQL error for variables that do not fit the input type', async () => {
    const missing = await t.gql(UPDATE, { input: { telephonyAuthToken: SECRET, telephonyPhoneNumber: PHONE } }, token);
    expect(missing.body.errors).toHaveLength(1);
    expect(missing.body.data ?? null).toBeNull();
    expect(missing.text).not.toContain(SECRET);
  });
});

describe('encryption at rest', () => {
  const forms = (secret: string) => [
    secret,
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    Buffer.from(secret).toString('hex'),
  ];

  async function expectRowsHideToken(app: TestApp, id: string) {
    const rows = await integrationRows(app, id);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    if (!row) throw new Error('no integrations row');
    expect(row.kind).toBe('telephony');
    for (const [column, value] of Object.entries(row)) {
      for (const form of forms(SECRET)) {
        expect(String(value).includes(form), `column ${column} holds the token (${form})`).toBe(false);
      }
    }
    // The plain fields are stored as they are; the secret envelope is not the token.
    expect(JSON.parse(row.fields)).toMatchObject({ telephonyAccountSid: SID, telephonyPhoneNumber: PHONE });
    expect(row.secrets).toMatch(/^v1\./);
  }

  it.skipIf(DIALECT !== 'sqlite')('the SQLite file and its WAL do not contain the token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'telephony-at-rest-'));
    const file = join(dir, 'db.sqlite');
    const app = await startApp({ DATABASE_URL: `sqlite:${file}` });
    const filesText = () =>
      [file, `${file}-wal`]
        .filter((path) => existsSync(path))
        .map((path) => readFileSync(path))
        .reduce((all, bytes) => Buffer.concat([all, bytes]), Buffer.alloc(0));
    try {
      const owner = await app.account();
      const reply = record(
        'POST /update_telephony (file database)',
        await app.rest('POST', '/update_telephony', { body: valid(), token: owner.token }),
      );
      expect(reply.status, reply.text).toBe(200);

      const bytes = filesText();
      // The read sees the database: the plain account sid is there.
      expect(bytes.includes(Buffer.from(SID))).toBe(true);
      for (const form of forms(SECRET)) expect(bytes.includes(Buffer.from(form)), form).toBe(false);
      await expectRowsHideToken(app, owner.id);

      const read = record(
        'GET /get_telephony (file database)',
        await app.rest('GET', '/get_telephony', { token: owner.token }),
      );
      expect(read.body.telephonyAuthToken).toBe(`****${SECRET.slice(-4)}`);
    } finally {
      await app.close();
    }
    try {
      // After close (checkpointed into the main file) the token is still nowhere.
      const bytes = filesText();
      expect(bytes.includes(Buffer.from(SID))).toBe(true);
      for (const form of forms(SECRET)) expect(bytes.includes(Buffer.from(form)), form).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no column of the integrations table contains the token (either database)', async () => {
    expect((await update(valid())).status).toBe(200);
    await expectRowsHideToken(t, accountId);
  });
});

describe('disconnectTelephony', () => {
  it('deletes the stored credentials; then GET is 404 and disconnecting again NOT_FOUND', async () => {
    expect((await update(valid())).status).toBe(200);
    expect(await integrationRows(t)).toHaveLength(1);

    const first = await gql(DISCONNECT);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data).toEqual({ disconnectTelephony: true });

    const read = await get();
    expect(read.status, read.text).toBe(404);
    expect(read.body).toEqual({ detail: 'Telephony is not configured' });
    expect((await gql(VIEWER)).body.data.viewer.integrations.telephony.connected).toBe(false);
    expect(await integrationRows(t)).toEqual([]);

    const again = await gql(DISCONNECT);
    expect(again.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect(again.body.errors?.[0].message).toBe('Telephony integration not found');
  });

  it('with nothing connected is NOT_FOUND', async () => {
    const reply = await gql(DISCONNECT);
    expect(reply.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('can connect again afterwards', async () => {
    await update(valid());
    await gql(DISCONNECT);
    const reply = await update(valid({ telephonyAuthToken: SECRET_2 }));
    expect(reply.status, reply.text).toBe(200);
    expect((await get()).body.telephonyAuthToken).toBe(`****${SECRET_2.slice(-4)}`);
  });
});

describe('tenancy', () => {
  it("another account sees its own telephony, not connected, and cannot disconnect the first's", async () => {
    const mine = await update(valid());
    expect(mine.status, mine.text).toBe(200);
    const other = await t.account();

    const read = await get(other.token);
    expect(read.status, read.text).toBe(404);
    expect(read.body).toEqual({ detail: 'Telephony is not configured' });
    const viewer = await gql(VIEWER, {}, other.token);
    expect(viewer.body.data.viewer.integrations.telephony).toMatchObject({
      connected: false,
      telephonyAccountSid: null,
      telephonyAuthToken: null,
    });
    const disconnect = await gql(DISCONNECT, {}, other.token);
    expect(disconnect.body.errors?.[0].extensions.code).toBe('NOT_FOUND');

    const theirs = await update(
      { telephonyAccountSid: 'AC-theirs', telephonyAuthToken: SECRET_2, telephonyPhoneNumber: '+33142685300' },
      other.token,
    );
    expect(theirs.status, theirs.text).toBe(200);
    expect((await get(other.token)).body).toEqual(theirs.body);
    expect((await get()).body).toEqual(mine.body);
    expect(await integrationRows(t, other.id)).toHaveLength(1);
    expect(await integrationRows(t)).toHaveLength(1);
  });
});
