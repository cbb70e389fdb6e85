// Integrations by the legacy REST door (docs/decisions.md §8, §10): add / get / remove for every kind but telephony
// (which has its own paths, test/rest/telephony.test.ts). The tests are driven from the declarations in
// src/domain/integrations.schema.ts, with a table of valid sample values per kind, so a new kind is covered as soon
// as it is declared; the paths and words of docs/decisions.md §8 are also asserted literally.
// Every secret sent is generated here, and every reply made through the helpers below is checked for each of them.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  INTEGRATION_KINDS,
  type IntegrationField,
  type IntegrationKind,
} from '../../src/domain/integrations.schema.js';
import { routes } from '../../src/rest/routes.js';
import { DEPRECATED_INTEGRATION_MUTATIONS } from '../../src/graphql/schema/types/integrations-deprecated.js';
import { type Reply, startApp, type TestApp } from '../helpers/app.js';

/** A kind's deprecated connectX/disconnectX aliases (every kind of these tests has them). */
const legacyNames = (kind: IntegrationKind) =>
  DEPRECATED_INTEGRATION_MUTATIONS[kind.kind] as { connect: string; disconnect: string };

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

// ---------------------------------------------------------------------------------------------------------------
// What docs/decisions.md §8 says, literally.

interface DesignRow {
  /** How the 404 sentences name the kind. */
  name: string;
  fields: string[];
  secret: string[];
  seed: string[];
  added: string[];
}

const DESIGN: Record<string, DesignRow> = {
  board: {
    name: 'Board',
    fields: ['apiKey', 'boardId', 'workspace'],
    secret: ['apiKey'],
    seed: ['DELETE /remove_board_info'],
    added: ['POST /add_board_info', 'GET /get_board_info'],
  },
  calendar: {
    name: 'Calendar',
    fields: ['apiKey', 'schedulingUrl', 'eventTypeId'],
    secret: ['apiKey'],
    seed: ['GET /get_calendar_info'],
    added: ['POST /add_calendar_info', 'DELETE /remove_calendar_info'],
  },
  erp: {
    name: 'ERP',
    fields: ['erpUrl', 'apiKey', 'secret'],
    secret: ['apiKey', 'secret'],
    seed: ['DELETE /remove_erp_info'],
    added: ['POST /add_erp_info', 'GET /get_erp_info'],
  },
  social: {
    name: 'Social',
    fields: ['pageId', 'accessToken', 'verifyToken', 'appSecret'],
    secret: ['accessToken', 'verifyToken', 'appSecret'],
    seed: ['POST /add_social_info', 'DELETE /remove_social_info'],
    added: ['GET /get_social_info'],
  },
  chat: {
    name: 'Chat',
    fields: ['botToken', 'workspace', 'channelId'],
    secret: ['botToken'],
    seed: ['GET /get_chat_info', 'DELETE /remove_chat_info'],
    added: ['POST /add_chat_info'],
  },
};

/** The fields whose rule is a URL (a bad one is `url_parsing`), by DESIGN. */
const DESIGN_URL_FIELDS = ['calendar.schedulingUrl', 'erp.erpUrl'];

// ---------------------------------------------------------------------------------------------------------------
// The kinds under test and their paths, from the declarations.

/** Every kind with add / get / remove paths: all but telephony, which has /update_telephony and /get_telephony. */
const KINDS = INTEGRATION_KINDS.filter((kind) => kind.kind !== 'telephony');

/** GET /get_calendar_info adds `meetings`, so it is written out in src/rest/routes/meetings.ts, not declared. */
const WRITTEN_OUT_GET: Record<string, string> = { calendar: '/get_calendar_info' };

function pathsOf(kind: IntegrationKind) {
  const add = kind.rest.add;
  const get = kind.rest.get ?? WRITTEN_OUT_GET[kind.kind];
  const remove = kind.rest.remove;
  if (!add || !get || !remove) throw new Error(`${kind.kind} lacks an add, get or remove path`);
  return { add, get, remove };
}

// ---------------------------------------------------------------------------------------------------------------
// Valid sample values, two rounds (the first add, then the replacement). Secrets are generated below.

const SAMPLES: Record<string, Record<string, [string, string]>> = {
  board: { boardId: ['board-1001', 'board-2002'], workspace: ['Acme Sales', 'Acme Support'] },
  calendar: {
    schedulingUrl: ['https://cal.example.com/acme/intro-call', 'http://booking.example.org/demo?slot=30'],
    eventTypeId: ['evt-30min', 'evt-60min'],
  },
  erp: { erpUrl: ['https://erp.example.com', 'https://erp2.example.net/api/v2'] },
  social: { pageId: ['104829375610', '998877665544'] },
  chat: { workspace: ['acme-team', 'acme-ops'], channelId: ['C012AB3CD', 'C987ZY6XW'] },
};

type Shape = 'url' | 'text' | 'other';

/** What a field's rule accepts: a URL only, any short text, or something else (a pattern, an enum). */
function shapeOf(field: IntegrationField): Shape {
  const ok = (value: string) => field.rule.safeParse(value).success;
  if (ok('https://example.com/x') && !ok('not a url')) return 'url';
  if (ok('plain words') && ok('https://example.com/x')) return 'text';
  return 'other';
}

const usedEndings = new Set<string>();
/** A fresh secret whose last 4 characters no other secret of this file shares, so every mask tells them apart. */
function makeSecret(kind: string, field: string, round: number): string {
  for (;;) {
    const value = `sk_${kind}_${field}_${round}_${randomBytes(12).toString('hex')}`;
    const ending = value.slice(-4);
    if (!usedEndings.has(ending)) {
      usedEndings.add(ending);
      return value;
    }
  }
}

/** A sample for a field the table does not know (a new kind): the first candidate its rule accepts. */
function fallbackSample(kind: IntegrationKind, name: string, round: number): string {
  const field = kind.fields[name];
  const candidates = [
    `${kind.kind}-${name}-${round + 1}`,
    `https://${kind.kind}.example.com/${name}/${round + 1}`,
    `+1415555010${round}`,
  ];
  const found = candidates.find((value) => field?.rule.safeParse(value).success);
  if (!found) throw new Error(`add a valid sample value for ${kind.kind}.${name} to SAMPLES`);
  return found;
}

/** Every value of this file, by kind, field and round. */
const VALUES = new Map<string, [string, string]>();
for (const kind of KINDS) {
  for (const [name, field] of Object.entries(kind.fields)) {
    const values: [string, string] = field.secret
      ? [makeSecret(kind.kind, name, 0), makeSecret(kind.kind, name, 1)]
      : (SAMPLES[kind.kind]?.[name] ?? [fallbackSample(kind, name, 0), fallbackSample(kind, name, 1)]);
    VALUES.set(`${kind.kind}.${name}`, values);
  }
}

/** Every secret sent by this file, whole (plus the long ones made in single tests). */
const SECRETS: string[] = KINDS.flatMap((kind) =>
  Object.entries(kind.fields)
    .filter(([, field]) => field.secret)
    .flatMap(([name]) => VALUES.get(`${kind.kind}.${name}`) ?? []),
);

function valueOf(kind: IntegrationKind, name: string, round: 0 | 1): string {
  const values = VALUES.get(`${kind.kind}.${name}`);
  if (!values) throw new Error(`no sample for ${kind.kind}.${name}`);
  return values[round];
}

/** A valid input: every field (round 0 by default), or with `requiredOnly` the required ones alone. */
function sampleInput(kind: IntegrationKind, round: 0 | 1 = 0, requiredOnly = false): Record<string, string> {
  const input: Record<string, string> = {};
  for (const [name, field] of Object.entries(kind.fields)) {
    if (requiredOnly && field.optional) continue;
    input[name] = valueOf(kind, name, round);
  }
  return input;
}

const requiredFields = (kind: IntegrationKind) =>
  Object.entries(kind.fields)
    .filter(([, field]) => !field.optional)
    .map(([name]) => name);
const secretFields = (kind: IntegrationKind) =>
  Object.entries(kind.fields)
    .filter(([, field]) => field.secret)
    .map(([name]) => name);

const mask = (secret: string) => `****${secret.slice(-4)}`;

/** The legacy body for `input`: plain fields as sent, secrets masked, omitted optional fields null (or default). */
function expectedBody(kind: IntegrationKind, input: Record<string, string>) {
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(kind.fields)) {
    const value = input[name];
    body[name] = value === undefined ? (field.default ?? null) : field.secret ? mask(value) : value;
  }
  return { ...body, status: 'connected', updatedAt: expect.stringMatching(ISO_UTC) };
}

/** The input as a 422 echoes it: a secret field as `****` alone (not even its last four: src/security/redact.ts). */
function echoed(kind: IntegrationKind, input: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(input).map(([name, value]) => [name, kind.fields[name]?.secret ? '****' : value]),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The app, recorded replies, and the database.

interface Detail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

let t: TestApp;
let token: string;
let accountId: string;
let replies: Array<{ request: string; text: string }>;
/** Secrets made by a single test (too long to be valid), checked too. */
let extraSecrets: string[];

function record<T extends Reply<any>>(request: string, reply: T): T {
  replies.push({ request, text: reply.text });
  return reply;
}

type Init = { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> };
const rest = async (method: string, path: string, init: Init = {}) =>
  record(`${method} ${path} ${init.raw ?? JSON.stringify(init.body ?? null)}`, await t.rest(method, path, init));

/** `as`: whose bearer token to send; null sends none. */
const add = (kind: IntegrationKind, body: unknown, as: string | null = token) =>
  rest('POST', pathsOf(kind).add, { body, token: as ?? undefined });
const get = (kind: IntegrationKind, as: string | null = token) =>
  rest('GET', pathsOf(kind).get, { token: as ?? undefined });
const remove = (kind: IntegrationKind, as: string | null = token) =>
  rest('DELETE', pathsOf(kind).remove, { token: as ?? undefined });

/** What GET adds to the integration itself: the calendar lists its upcoming meetings. */
const getExtras = (kind: IntegrationKind): Record<string, unknown> =>
  kind.kind === 'calendar' ? { meetings: [] } : {};

function rowsOf(kind: IntegrationKind, id = accountId) {
  return t.app.database.db
    .selectFrom('integrations')
    .selectAll()
    .where('kind', '=', kind.kind)
    .where('account_id', '=', id)
    .execute();
}

/** The forms a secret could take in a column if it were merely encoded. */
const clearForms = (secret: string) => [
  secret,
  Buffer.from(secret).toString('base64'),
  Buffer.from(secret).toString('base64url'),
  Buffer.from(secret).toString('hex'),
];

async function expectStoredWithoutSecrets(kind: IntegrationKind, input: Record<string, string>, id = accountId) {
  const rows = await rowsOf(kind, id);
  expect(rows).toHaveLength(1);
  const [row] = rows;
  if (!row) return;
  for (const [column, value] of Object.entries(row)) {
    for (const secret of SECRETS) {
      for (const form of clearForms(secret)) {
        expect(String(value).includes(form), `column ${column} of the ${kind.kind} row holds a secret`).toBe(false);
      }
    }
  }
  const plain = Object.fromEntries(Object.entries(input).filter(([name]) => !kind.fields[name]?.secret));
  expect(JSON.parse(row.fields)).toMatchObject(plain);
}

function expect422(reply: Reply<any>): Detail[] {
  expect(reply.status, reply.text).toBe(422);
  expect(reply.headers.get('content-type')).toContain('application/json');
  expect(Array.isArray(reply.body.detail), reply.text).toBe(true);
  return reply.body.detail as Detail[];
}

function entryAt(details: Detail[], loc: Array<string | number>): Detail {
  const found = details.filter((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(found, `exactly one entry at ${JSON.stringify(loc)} in ${JSON.stringify(details)}`).toHaveLength(1);
  return found[0] as Detail;
}

beforeEach(async () => {
  replies = [];
  extraSecrets = [];
  t = await startApp();
  ({ token, id: accountId } = await t.account());
});

afterEach(async () => {
  try {
    for (const { request, text } of replies) {
      for (const secret of [...SECRETS, ...extraSecrets]) {
        expect(text.includes(secret), `the reply to ${request} contains a whole secret: ${text}`).toBe(false);
      }
    }
  } finally {
    await t.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------

describe('the declarations and docs/decisions.md §8', () => {
  it('declare the five kinds of docs/decisions.md §8 (and telephony), with its fields and secret fields', () => {
    expect(KINDS.map((kind) => kind.kind)).toEqual(expect.arrayContaining(Object.keys(DESIGN)));
    for (const [name, row] of Object.entries(DESIGN)) {
      const kind = KINDS.find((k) => k.kind === name);
      expect(kind, name).toBeDefined();
      if (!kind) continue;
      expect(Object.keys(kind.fields).sort(), name).toEqual([...row.fields].sort());
      expect(secretFields(kind).sort(), name).toEqual([...row.secret].sort());
    }
    expect(INTEGRATION_KINDS.map((kind) => kind.kind)).toContain('telephony');
  });

  it('the paths of each kind are exactly the legacy and added paths of docs/decisions.md §8', () => {
    for (const [name, row] of Object.entries(DESIGN)) {
      const kind = KINDS.find((k) => k.kind === name);
      if (!kind) throw new Error(`no ${name} kind`);
      const { add: addPath, get: getPath, remove: removePath } = pathsOf(kind);
      expect([`POST ${addPath}`, `GET ${getPath}`, `DELETE ${removePath}`].sort(), name).toEqual(
        [...row.seed, ...row.added].sort(),
      );
    }
  });

  it('the legacy paths and the added paths, literally, are each one route behind a bearer token', () => {
    const literal = [
      'DELETE /remove_board_info',
      'GET /get_calendar_info',
      'DELETE /remove_erp_info',
      'GET /get_chat_info',
      'DELETE /remove_chat_info',
      'POST /add_social_info',
      'DELETE /remove_social_info',
      'POST /add_board_info',
      'GET /get_board_info',
      'POST /add_calendar_info',
      'DELETE /remove_calendar_info',
      'POST /add_erp_info',
      'GET /get_erp_info',
      'GET /get_social_info',
      'POST /add_chat_info',
    ];
    for (const entry of literal) {
      const [method, path] = entry.split(' ');
      const found = routes.filter((route) => route.method === method && route.path === path);
      expect(found, entry).toHaveLength(1);
      expect(found[0]?.auth, entry).toBe(true);
    }
  });

  it('every kind but telephony has add, get and remove paths', () => {
    for (const kind of KINDS) {
      const paths = pathsOf(kind);
      for (const [method, path] of [
        ['POST', paths.add],
        ['GET', paths.get],
        ['DELETE', paths.remove],
      ]) {
        expect(
          routes.filter((route) => route.method === method && route.path === path),
          `${kind.kind}: ${method} ${path}`,
        ).toHaveLength(1);
      }
    }
  });

  it('the 404 words are those of docs/decisions.md §8', () => {
    for (const [name, row] of Object.entries(DESIGN)) {
      const kind = KINDS.find((k) => k.kind === name);
      expect(kind?.notFound, name).toBe(`${row.name} integration not found`);
      expect(kind?.notConnected, name).toBe(`${row.name} integration is not connected`);
    }
  });

  it('the URL fields are calendar.schedulingUrl and erp.erpUrl', () => {
    const urlFields = KINDS.flatMap((kind) =>
      Object.entries(kind.fields)
        .filter(([, field]) => shapeOf(field) === 'url')
        .map(([name]) => `${kind.kind}.${name}`),
    );
    expect(urlFields).toEqual(expect.arrayContaining(DESIGN_URL_FIELDS));
  });

  it('every sample value passes its rule, and the two rounds differ', () => {
    for (const kind of KINDS) {
      for (const [name, field] of Object.entries(kind.fields)) {
        const [first, second] = [valueOf(kind, name, 0), valueOf(kind, name, 1)];
        expect(field.rule.safeParse(first).success, `${kind.kind}.${name} ${first}`).toBe(true);
        expect(field.rule.safeParse(second).success, `${kind.kind}.${name} ${second}`).toBe(true);
        expect(first).not.toBe(second);
      }
    }
  });
});

describe.each(KINDS.map((kind) => [kind.kind, kind] as const))('%s', (name, kind) => {
  const paths = pathsOf(kind);

  it(`before anything is added: GET ${paths.get} and DELETE ${paths.remove} are 404`, async () => {
    const read = await get(kind);
    expect(read.status, read.text).toBe(404);
    expect(read.body).toEqual({ detail: kind.notConnected });
    const removed = await remove(kind);
    expect(removed.status, removed.text).toBe(404);
    expect(removed.body).toEqual({ detail: kind.notFound });
  });

  it(`add → get → remove → remove again (404) → get (404)`, async () => {
    const input = sampleInput(kind);
    const before = Date.now();
    const added = await add(kind, input);
    expect(added.status, added.text).toBe(200);
    expect(added.headers.get('content-type')).toContain('application/json');
    expect(added.body).toEqual(expectedBody(kind, input));
    const updatedAt = Date.parse(added.body.updatedAt);
    expect(updatedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(updatedAt).toBeLessThanOrEqual(Date.now() + 1000);
    for (const secret of secretFields(kind)) expect(added.body[secret]).toMatch(/^\*{4}.{4}$/);

    const read = await get(kind);
    expect(read.status, read.text).toBe(200);
    expect(read.headers.get('content-type')).toContain('application/json');
    expect(read.body).toEqual({ ...expectedBody(kind, input), ...getExtras(kind) });
    expect(read.body.updatedAt).toBe(added.body.updatedAt);
    expect(Object.keys(read.body).sort()).toEqual(
      [...Object.keys(kind.fields), 'status', 'updatedAt', ...Object.keys(getExtras(kind))].sort(),
    );
    await expectStoredWithoutSecrets(kind, input);

    const removed = await remove(kind);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.headers.get('content-type')).toContain('application/json');
    expect(typeof removed.body).toBe('object');
    expect(removed.body).not.toBeNull();
    expect(await rowsOf(kind)).toEqual([]);

    const again = await remove(kind);
    expect(again.status, again.text).toBe(404);
    expect(again.body).toEqual({ detail: kind.notFound });

    const gone = await get(kind);
    expect(gone.status, gone.text).toBe(404);
    expect(gone.body).toEqual({ detail: kind.notConnected });
  });

  it('adding again replaces every field: new values shown, omitted optional fields null, still one row', async () => {
    expect((await add(kind, sampleInput(kind, 0))).status).toBe(200);
    const input = sampleInput(kind, 1, true);
    const replaced = await add(kind, input);
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toEqual(expectedBody(kind, input));
    const read = await get(kind);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ ...expectedBody(kind, input), ...getExtras(kind) });
    await expectStoredWithoutSecrets(kind, input);

    // And back to every field, with the first values.
    const full = sampleInput(kind, 0);
    expect((await add(kind, full)).body).toEqual(expectedBody(kind, full));
    expect((await get(kind)).body).toEqual({ ...expectedBody(kind, full), ...getExtras(kind) });
    expect(await rowsOf(kind)).toHaveLength(1);
  });

  it('after a remove, adding again starts afresh', async () => {
    expect((await add(kind, sampleInput(kind, 0))).status).toBe(200);
    expect((await remove(kind)).status).toBe(200);
    const input = sampleInput(kind, 1, true);
    expect((await add(kind, input)).status).toBe(200);
    expect((await get(kind)).body).toEqual({ ...expectedBody(kind, input), ...getExtras(kind) });
    await expectStoredWithoutSecrets(kind, input);
  });

  it('removing it leaves the other kinds connected', async () => {
    for (const other of KINDS) expect((await add(other, sampleInput(other))).status, other.kind).toBe(200);
    expect((await remove(kind)).status).toBe(200);
    expect(await rowsOf(kind)).toEqual([]);
    for (const other of KINDS.filter((k) => k !== kind)) {
      const read = await get(other);
      expect(read.status, `${other.kind}: ${read.text}`).toBe(200);
      expect(read.body).toEqual({ ...expectedBody(other, sampleInput(other)), ...getExtras(other) });
      expect(await rowsOf(other)).toHaveLength(1);
    }
  });

  it('another account sees nothing of it and cannot remove it', async () => {
    const input = sampleInput(kind);
    expect((await add(kind, input)).status).toBe(200);
    const other = await t.account();

    const read = await get(kind, other.token);
    expect(read.status, read.text).toBe(404);
    expect(read.body).toEqual({ detail: kind.notConnected });
    const removed = await remove(kind, other.token);
    expect(removed.status, removed.text).toBe(404);
    expect(removed.body).toEqual({ detail: kind.notFound });
    expect(await rowsOf(kind, other.id)).toEqual([]);

    // The owner's record is untouched; the other account's own record is its own.
    expect((await get(kind)).body).toEqual({ ...expectedBody(kind, input), ...getExtras(kind) });
    await expectStoredWithoutSecrets(kind, input);
    const theirs = sampleInput(kind, 1, true);
    expect((await add(kind, theirs, other.token)).status).toBe(200);
    expect((await get(kind, other.token)).body).toEqual({ ...expectedBody(kind, theirs), ...getExtras(kind) });
    expect((await get(kind)).body).toEqual({ ...expectedBody(kind, input), ...getExtras(kind) });
    expect((await remove(kind)).status).toBe(200);
    expect((await get(kind, other.token)).status).toBe(200);
    expect(await rowsOf(kind, other.id)).toHaveLength(1);
  });

  describe('without a bearer token', () => {
    it('add, get and remove are 401 Not authenticated, and nothing is stored', async () => {
      for (const reply of [await add(kind, sampleInput(kind), null), await get(kind, null), await remove(kind, null)]) {
        expect(reply.status, reply.text).toBe(401);
        expect(reply.body).toEqual({ detail: 'Not authenticated' });
        expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      }
      expect(
        await t.app.database.db.selectFrom('integrations').selectAll().where('kind', '=', kind.kind).execute(),
      ).toEqual([]);
    });

    it('a bad token is 401 too, even with a bad body (auth comes first)', async () => {
      expect((await add(kind, {}, null)).status).toBe(401);
      for (const reply of [
        await add(kind, sampleInput(kind), 'not-a-token'),
        await get(kind, 'not-a-token'),
        await remove(kind, 'not-a-token'),
      ]) {
        expect(reply.status, reply.text).toBe(401);
        expect(reply.body).toEqual({ detail: 'Could not validate credentials' });
      }
    });

    it('cannot remove what an account has connected', async () => {
      expect((await add(kind, sampleInput(kind))).status).toBe(200);
      expect((await remove(kind, null)).status).toBe(401);
      expect(await rowsOf(kind)).toHaveLength(1);
    });
  });

  describe('422s', () => {
    it('an empty object names every required field missing at ["body", field]', async () => {
      const details = expect422(await add(kind, {}));
      expect(details).toHaveLength(requiredFields(kind).length);
      for (const field of requiredFields(kind)) {
        expect(entryAt(details, ['body', field])).toEqual({
          type: 'missing',
          loc: ['body', field],
          msg: 'Field required',
          input: {},
        });
      }
    });

    it.each(requiredFields(kind))('leaving out %s is one "missing" entry; secrets are echoed masked', async (field) => {
      const input = sampleInput(kind);
      delete input[field];
      const details = expect422(await add(kind, input));
      expect(details).toEqual([
        { type: 'missing', loc: ['body', field], msg: 'Field required', input: echoed(kind, input) },
      ]);
    });

    it('no body at all is "missing" at ["body"]', async () => {
      const details = expect422(await rest('POST', paths.add, { token }));
      expect(details).toEqual([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
    });

    it('a body that is not JSON is json_invalid, and does not quote what was sent', async () => {
      const field = secretFields(kind)[0] ?? Object.keys(kind.fields)[0] ?? 'x';
      const details = expect422(
        await rest('POST', paths.add, {
          raw: `{"${field}": "${valueOf(kind, field, 0)}"`,
          headers: { 'content-type': 'application/json' },
          token,
        }),
      );
      expect(details).toHaveLength(1);
      expect(details[0]).toMatchObject({ type: 'json_invalid', msg: 'JSON decode error' });
      expect(details[0]?.loc[0]).toBe('body');
    });

    it('a JSON array is not an object of fields', async () => {
      const details = expect422(await add(kind, [sampleInput(kind)]));
      expect(details).toHaveLength(1);
      expect(details[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
    });

    const urlFields = Object.entries(kind.fields).filter(([, field]) => shapeOf(field) === 'url');
    for (const [field] of urlFields) {
      it.each(['not a url', 'ftp://files.example.com/x', 'javascript:alert(1)', 'https://'])(
        `${field} %j is url_parsing`,
        async (bad) => {
          const details = expect422(await add(kind, { ...sampleInput(kind), [field]: bad }));
          expect(details).toEqual([
            { type: 'url_parsing', loc: ['body', field], msg: 'Input should be a valid URL', input: bad },
          ]);
          expect(await rowsOf(kind)).toEqual([]);
        },
      );
    }

    it('reports every problem at once', async () => {
      // Required secrets left out, optional secrets and plain text empty, URLs not URLs: one entry per field.
      const body: Record<string, string> = {};
      for (const [field, declared] of Object.entries(kind.fields)) {
        if (declared.secret && !declared.optional) continue;
        body[field] = shapeOf(declared) === 'url' ? 'not a url' : '';
      }
      const details = expect422(await add(kind, body));
      expect(details).toHaveLength(Object.keys(kind.fields).length);
      for (const [field, declared] of Object.entries(kind.fields)) {
        const entry = entryAt(details, ['body', field]);
        if (declared.secret && !declared.optional) expect(entry.type, field).toBe('missing');
        else if (shapeOf(declared) === 'url') expect(entry.type, field).toBe('url_parsing');
        else if (shapeOf(declared) === 'text') {
          expect(entry, field).toMatchObject({
            type: 'string_too_short',
            msg: 'String should have at least 1 character',
            input: declared.secret ? '****' : '',
          });
        } else expect(entry.type, field).not.toBe('missing');
      }
      expect(await rowsOf(kind)).toEqual([]);
    });

    it('a number where text belongs is string_type', async () => {
      const textFields = Object.entries(kind.fields)
        .filter(([, field]) => shapeOf(field) === 'text')
        .map(([field]) => field);
      const body: Record<string, unknown> = { ...sampleInput(kind) };
      for (const field of textFields) body[field] = 12345;
      const details = expect422(await add(kind, body));
      expect(details).toHaveLength(textFields.length);
      for (const field of textFields) {
        expect(entryAt(details, ['body', field])).toMatchObject({
          type: 'string_type',
          msg: 'Input should be a valid string',
          input: 12345,
        });
      }
    });

    it.each(secretFields(kind))('a too long %s is string_too_long, echoed masked', async (field) => {
      const long = `${'x'.repeat(4096)}${makeSecret(kind.kind, field, 9)}`;
      extraSecrets.push(long);
      const details = expect422(await add(kind, { ...sampleInput(kind), [field]: long }));
      expect(details).toHaveLength(1);
      expect(details[0]).toMatchObject({ type: 'string_too_long', loc: ['body', field], input: '****' });
    });

    it('a secret holding a quote, a backslash and a newline is never shown, escaped or not', async () => {
      const [secretField] = secretFields(kind);
      const [omitted] = requiredFields(kind).filter((field) => field !== secretField);
      if (!secretField) return;
      const secret = `q"uo\\te\nd-${randomBytes(8).toString('hex')}`;
      extraSecrets.push(secret);
      const escaped = JSON.stringify(secret).slice(1, -1);
      const texts: string[] = [];
      if (omitted) {
        const input: Record<string, string> = { ...sampleInput(kind), [secretField]: secret };
        delete input[omitted];
        const refused = await add(kind, input);
        expect422(refused);
        texts.push(refused.text);
      }
      const added = await add(kind, { ...sampleInput(kind), [secretField]: secret });
      expect(added.status, added.text).toBe(200);
      expect(added.body[secretField]).toBe(mask(secret));
      texts.push(added.text, (await get(kind)).text);
      for (const text of texts) expect(text.includes(escaped), text).toBe(false);
    });

    it('nothing is stored after a 422, and an earlier record is kept', async () => {
      const [firstRequired] = requiredFields(kind);
      if (!firstRequired) throw new Error(`${name} has no required field`);
      const broken = { ...sampleInput(kind, 1) };
      delete broken[firstRequired];
      expect422(await add(kind, broken));
      expect((await get(kind)).status).toBe(404);
      expect(await rowsOf(kind)).toEqual([]);

      const input = sampleInput(kind, 0);
      const first = await add(kind, input);
      expect(first.status, first.text).toBe(200);
      expect422(await add(kind, broken));
      expect((await get(kind)).body).toEqual({ ...first.body, ...getExtras(kind) });
      await expectStoredWithoutSecrets(kind, input);
    });
  });

  it('what the REST door adds GraphQL shows, and what GraphQL connects REST shows', async () => {
    const selection = `connected updatedAt ${Object.keys(kind.fields).join(' ')}`;
    const viewer = async () => {
      const reply = record(
        `GraphQL viewer ${kind.kind}`,
        await t.gql(`query { viewer { integrations { ${kind.kind} { ${selection} } } } }`, {}, token),
      );
      expect(reply.body.errors, reply.text).toBeUndefined();
      return reply.body.data.viewer.integrations[kind.kind];
    };
    const input = sampleInput(kind, 0);
    const added = await add(kind, input);
    const { status: _status, ...fields } = added.body;
    expect(await viewer()).toEqual({ ...fields, connected: true });

    const replacement = sampleInput(kind, 1, true);
    const connected = record(
      `GraphQL ${legacyNames(kind).connect}`,
      await t.gql(
        `mutation ($input: ${kind.label}IntegrationInput!) { ${legacyNames(kind).connect}(input: $input) { ${selection} } }`,
        { input: replacement },
        token,
      ),
    );
    expect(connected.body.errors, connected.text).toBeUndefined();
    const { connected: isConnected, ...shown } = connected.body.data[legacyNames(kind).connect];
    expect(isConnected).toBe(true);
    expect((await get(kind)).body).toEqual({ ...shown, status: 'connected', ...getExtras(kind) });
    const { status: _expectedStatus, ...expectedShown } = expectedBody(kind, replacement);
    expect(shown).toEqual(expectedShown);

    expect((await remove(kind)).status).toBe(200);
    expect((await viewer()).connected).toBe(false);
  });
});

describe('GET /get_calendar_info', () => {
  const calendar = KINDS.find((kind) => kind.kind === 'calendar');
  if (!calendar) throw new Error('no calendar kind');

  it('when connected, also has meetings: an array, empty while none are booked', async () => {
    expect((await add(calendar, sampleInput(calendar))).status).toBe(200);
    const reply = await rest('GET', '/get_calendar_info', { token });
    expect(reply.status, reply.text).toBe(200);
    expect(Array.isArray(reply.body.meetings)).toBe(true);
    expect(reply.body.meetings).toEqual([]);
    expect(reply.body).toMatchObject({ status: 'connected', apiKey: mask(valueOf(calendar, 'apiKey', 0)) });
  });

  it('when not connected, is 404 Calendar integration is not connected, with no meetings', async () => {
    const reply = await rest('GET', '/get_calendar_info', { token });
    expect(reply.status, reply.text).toBe(404);
    expect(reply.body).toEqual({ detail: 'Calendar integration is not connected' });
  });

  it('the other kinds have no meetings', async () => {
    for (const kind of KINDS.filter((k) => k.kind !== 'calendar')) {
      expect((await add(kind, sampleInput(kind))).status).toBe(200);
      expect((await get(kind)).body, kind.kind).not.toHaveProperty('meetings');
    }
  });
});
