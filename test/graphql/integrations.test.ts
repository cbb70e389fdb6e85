// Integrations over GraphQL (docs/decisions.md §8, §10; docs/graphql.md): connectX / disconnectX and viewer.integrations for every kind
// but telephony (test/rest/telephony.test.ts covers updateTelephony). Driven from the declarations in
// src/domain/integrations.schema.ts with a table of valid sample values per kind, so a new kind is covered as soon as
// it is declared; the GraphQL names of docs/decisions.md §8 are also asserted literally. Every secret sent is generated here, and
// every reply is checked for each of them.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  INTEGRATION_KINDS,
  type IntegrationField,
  type IntegrationKind,
} from '../../src/domain/integrations.schema.js';
import { DEPRECATED_INTEGRATION_MUTATIONS } from '../../src/graphql/schema/types/integrations-deprecated.js';
import { type Reply, startApp, type TestApp } from '../helpers/app.js';

/** A kind's deprecated connectX/disconnectX aliases (every kind of these tests has them). */
const legacyNames = (kind: IntegrationKind) =>
  DEPRECATED_INTEGRATION_MUTATIONS[kind.kind] as { connect: string; disconnect: string };

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The GraphQL names of docs/decisions.md §8 ("connectX / disconnectX for each kind"), literally. */
const DESIGN_NAMES: Record<string, { type: string; connect: string; disconnect: string }> = {
  board: { type: 'BoardIntegration', connect: 'connectBoard', disconnect: 'disconnectBoard' },
  calendar: { type: 'CalendarIntegration', connect: 'connectCalendar', disconnect: 'disconnectCalendar' },
  erp: { type: 'ErpIntegration', connect: 'connectErp', disconnect: 'disconnectErp' },
  social: { type: 'SocialIntegration', connect: 'connectSocial', disconnect: 'disconnectSocial' },
  chat: { type: 'ChatIntegration', connect: 'connectChat', disconnect: 'disconnectChat' },
};

/** Every kind with connectX / disconnectX; telephony is updateTelephony, tested with its REST paths. */
const KINDS = INTEGRATION_KINDS.filter((kind) => kind.kind !== 'telephony');

/** Valid sample values, two rounds (the first connect, then the replacement). Secrets are generated below. */
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

/** What a field's rule accepts: a URL only, any short text, or something else (a pattern, an enum). */
function shapeOf(field: IntegrationField): 'url' | 'text' | 'other' {
  const ok = (value: string) => field.rule.safeParse(value).success;
  if (ok('https://example.com/x') && !ok('not a url')) return 'url';
  if (ok('plain words') && ok('https://example.com/x')) return 'text';
  return 'other';
}

const usedEndings = new Set<string>();
/** A fresh secret whose last 4 characters no other secret of this file shares. */
function makeSecret(kind: string, field: string, round: number): string {
  for (;;) {
    const value = `gq_${kind}_${field}_${round}_${randomBytes(12).toString('hex')}`;
    if (!usedEndings.has(value.slice(-4))) {
      usedEndings.add(value.slice(-4));
      return value;
    }
  }
}

/** A sample for a field the table does not know (a new kind): the first candidate its rule accepts. */
function fallbackSample(kind: IntegrationKind, name: string, round: number): string {
  const candidates = [
    `${kind.kind}-${name}-${round + 1}`,
    `https://${kind.kind}.example.com/${name}/${round + 1}`,
    `+1415555010${round}`,
  ];
  const found = candidates.find((value) => kind.fields[name]?.rule.safeParse(value).success);
  if (!found) throw new Error(`add a valid sample value for ${kind.kind}.${name} to SAMPLES`);
  return found;
}

const VALUES = new Map<string, [string, string]>();
for (const kind of KINDS) {
  for (const [name, field] of Object.entries(kind.fields)) {
    VALUES.set(
      `${kind.kind}.${name}`,
      field.secret
        ? [makeSecret(kind.kind, name, 0), makeSecret(kind.kind, name, 1)]
        : (SAMPLES[kind.kind]?.[name] ?? [fallbackSample(kind, name, 0), fallbackSample(kind, name, 1)]),
    );
  }
}

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

function sampleInput(kind: IntegrationKind, round: 0 | 1 = 0, requiredOnly = false): Record<string, string> {
  const input: Record<string, string> = {};
  for (const [name, field] of Object.entries(kind.fields)) {
    if (!(requiredOnly && field.optional)) input[name] = valueOf(kind, name, round);
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

/** The GraphQL object for `input`: plain fields as sent, secrets masked, omitted optional fields null (or default). */
function expectedConnected(kind: IntegrationKind, input: Record<string, string>) {
  const shown: Record<string, unknown> = { connected: true, updatedAt: expect.stringMatching(ISO_UTC) };
  for (const [name, field] of Object.entries(kind.fields)) {
    const value = input[name];
    shown[name] = value === undefined ? (field.default ?? null) : field.secret ? mask(value) : value;
  }
  return shown;
}

const notConnected = (kind: IntegrationKind) => ({
  connected: false,
  updatedAt: null,
  ...Object.fromEntries(Object.keys(kind.fields).map((name) => [name, null])),
});

// ---------------------------------------------------------------------------------------------------------------
// Operations, from the declarations.

const selection = (kind: IntegrationKind) => `connected updatedAt ${Object.keys(kind.fields).join(' ')}`;
const viewerQuery = (kind: IntegrationKind) =>
  `query Viewer { viewer { integrations { ${kind.kind} { ${selection(kind)} } } } }`;
const connectMutation = (kind: IntegrationKind) =>
  `mutation Connect($input: ${kind.label}IntegrationInput!) { ${legacyNames(kind).connect}(input: $input) { ${selection(kind)} } }`;
const disconnectMutation = (kind: IntegrationKind) => `mutation Disconnect { ${legacyNames(kind).disconnect} }`;

let t: TestApp;
let token: string;
let accountId: string;
let replies: Array<{ request: string; text: string }>;
let extraSecrets: string[];

function record<T extends Reply<any>>(request: string, reply: T): T {
  replies.push({ request, text: reply.text });
  return reply;
}

/** `as`: whose bearer token to send; null sends none. */
const gql = async (query: string, variables: Record<string, unknown> = {}, as: string | null = token) =>
  record(`GraphQL ${query} ${JSON.stringify(variables)}`, await t.gql(query, variables, as ?? undefined));

async function viewer(kind: IntegrationKind, as: string | null = token) {
  const reply = await gql(viewerQuery(kind), {}, as);
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data.viewer.integrations[kind.kind];
}

async function connect(kind: IntegrationKind, input: Record<string, unknown>, as: string | null = token) {
  return gql(connectMutation(kind), { input }, as);
}

async function connectOk(kind: IntegrationKind, input: Record<string, unknown>, as: string | null = token) {
  const reply = await connect(kind, input, as);
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body.errors, reply.text).toBeUndefined();
  return reply.body.data[legacyNames(kind).connect];
}

const disconnect = (kind: IntegrationKind, as: string | null = token) => gql(disconnectMutation(kind), {}, as);

function expectError(reply: Reply<any>, code: string, message?: string) {
  expect(reply.body.errors, reply.text).toHaveLength(1);
  expect(reply.body.errors[0].extensions?.code, reply.text).toBe(code);
  if (message !== undefined) expect(reply.body.errors[0].message).toBe(message);
  expect(reply.body.data ?? null).toBeNull();
  return reply.body.errors[0];
}

interface Issue {
  path: Array<string | number>;
  type: string;
  message: string;
}

function issuesOf(reply: Reply<any>): Issue[] {
  const error = expectError(reply, 'BAD_USER_INPUT');
  expect(Array.isArray(error.extensions.issues), reply.text).toBe(true);
  return error.extensions.issues as Issue[];
}

function issueAt(issues: Issue[], path: Array<string | number>): Issue {
  const found = issues.filter((issue) => JSON.stringify(issue.path) === JSON.stringify(path));
  expect(found, `exactly one issue at ${JSON.stringify(path)} in ${JSON.stringify(issues)}`).toHaveLength(1);
  return found[0] as Issue;
}

function rowsOf(kind: IntegrationKind, id = accountId) {
  return t.app.database.db
    .selectFrom('integrations')
    .selectAll()
    .where('kind', '=', kind.kind)
    .where('account_id', '=', id)
    .execute();
}

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

describe('the schema', () => {
  it('has the GraphQL names of docs/decisions.md §8 for the five kinds', () => {
    for (const [name, names] of Object.entries(DESIGN_NAMES)) {
      const kind = KINDS.find((k) => k.kind === name);
      expect(kind, name).toBeDefined();
      expect(kind && { type: `${kind.label}Integration`, ...legacyNames(kind) }, name).toEqual(names);
    }
  });

  it('Integrations has one field per declared kind; the mutations exist for each', async () => {
    const reply = await gql(`{
      integrations: __type(name: "Integrations") { fields { name } }
      mutation: __type(name: "Mutation") { fields { name } }
      all: __type(name: "Mutation") { fields(includeDeprecated: true) { name } }
    }`);
    expect(reply.body.errors, reply.text).toBeUndefined();
    const fields = reply.body.data.integrations.fields.map((f: { name: string }) => f.name).sort();
    expect(fields).toEqual(INTEGRATION_KINDS.map((kind) => kind.kind).sort());
    const mutations: string[] = reply.body.data.mutation.fields.map((f: { name: string }) => f.name);
    const withDeprecated: string[] = reply.body.data.all.fields.map((f: { name: string }) => f.name);
    for (const kind of INTEGRATION_KINDS) {
      expect(mutations).toContain(`${kind.kind}Connect`);
      expect(mutations).toContain(`${kind.kind}Disconnect`);
      // the verb-first names of before, deprecated
      expect(withDeprecated).toContain(legacyNames(kind).connect);
      expect(withDeprecated).toContain(legacyNames(kind).disconnect);
    }
  });

  it('a new account has every kind not connected, every field null', async () => {
    const reply = await gql(
      `query { viewer { integrations { ${INTEGRATION_KINDS.map((kind) => `${kind.kind} { ${selection(kind)} }`).join(' ')} } } }`,
    );
    expect(reply.body.errors, reply.text).toBeUndefined();
    for (const kind of INTEGRATION_KINDS) {
      expect(reply.body.data.viewer.integrations[kind.kind], kind.kind).toEqual(notConnected(kind));
    }
  });
});

describe.each(KINDS.map((kind) => [kind.kind, kind] as const))('%s', (_name, kind) => {
  const { connect: connectName, disconnect: disconnectName } = legacyNames(kind);

  it('is not connected at first: connected false, every field null; disconnecting is NOT_FOUND', async () => {
    expect(await viewer(kind)).toEqual(notConnected(kind));
    expectError(await disconnect(kind), 'NOT_FOUND', kind.notFound);
  });

  it(`${connectName} → viewer → ${disconnectName} → ${disconnectName} again (NOT_FOUND) → not connected`, async () => {
    const input = sampleInput(kind);
    const before = Date.now();
    const connected = await connectOk(kind, input);
    expect(connected).toEqual(expectedConnected(kind, input));
    const updatedAt = Date.parse(connected.updatedAt);
    expect(updatedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(updatedAt).toBeLessThanOrEqual(Date.now() + 1000);
    for (const secret of secretFields(kind)) expect(connected[secret]).toMatch(/^\*{4}.{4}$/);

    expect(await viewer(kind)).toEqual(connected);
    await expectStoredWithoutSecrets(kind, input);

    const first = await disconnect(kind);
    expect(first.body.errors, first.text).toBeUndefined();
    expect(first.body.data).toEqual({ [disconnectName]: true });
    expect(await rowsOf(kind)).toEqual([]);

    expectError(await disconnect(kind), 'NOT_FOUND', kind.notFound);
    expect(await viewer(kind)).toEqual(notConnected(kind));
  });

  it(`${connectName} again replaces every field: new values shown, omitted optional fields null`, async () => {
    await connectOk(kind, sampleInput(kind, 0));
    const input = sampleInput(kind, 1, true);
    const replaced = await connectOk(kind, input);
    expect(replaced).toEqual(expectedConnected(kind, input));
    expect(await viewer(kind)).toEqual(replaced);
    await expectStoredWithoutSecrets(kind, input);

    const full = sampleInput(kind, 0);
    expect(await connectOk(kind, full)).toEqual(expectedConnected(kind, full));
    expect(await viewer(kind)).toEqual(expectedConnected(kind, full));
    expect(await rowsOf(kind)).toHaveLength(1);
  });

  it('another account sees it not connected and cannot disconnect it', async () => {
    const input = sampleInput(kind);
    await connectOk(kind, input);
    const other = await t.account();

    expect(await viewer(kind, other.token)).toEqual(notConnected(kind));
    expectError(await disconnect(kind, other.token), 'NOT_FOUND', kind.notFound);
    expect(await rowsOf(kind, other.id)).toEqual([]);
    expect(await viewer(kind)).toEqual(expectedConnected(kind, input));
    await expectStoredWithoutSecrets(kind, input);

    const theirs = sampleInput(kind, 1, true);
    await connectOk(kind, theirs, other.token);
    expect(await viewer(kind, other.token)).toEqual(expectedConnected(kind, theirs));
    expect(await viewer(kind)).toEqual(expectedConnected(kind, input));
    expect((await disconnect(kind, other.token)).body.data).toEqual({ [disconnectName]: true });
    expect(await viewer(kind)).toEqual(expectedConnected(kind, input));
  });

  it('disconnecting leaves the other kinds connected', async () => {
    for (const other of KINDS) await connectOk(other, sampleInput(other));
    expect((await disconnect(kind)).body.data).toEqual({ [disconnectName]: true });
    expect(await rowsOf(kind)).toEqual([]);
    for (const other of KINDS.filter((k) => k !== kind)) {
      expect(await viewer(other), other.kind).toEqual(expectedConnected(other, sampleInput(other)));
    }
  });

  it('without a bearer token: UNAUTHENTICATED, and nothing is stored or removed', async () => {
    expectError(await connect(kind, sampleInput(kind), null), 'UNAUTHENTICATED', 'Not authenticated');
    expect(
      await t.app.database.db.selectFrom('integrations').selectAll().where('kind', '=', kind.kind).execute(),
    ).toEqual([]);
    await connectOk(kind, sampleInput(kind));
    expectError(await disconnect(kind, null), 'UNAUTHENTICATED', 'Not authenticated');
    expectError(await gql(viewerQuery(kind), {}, null), 'UNAUTHENTICATED', 'Not authenticated');
    expectError(await disconnect(kind, 'not-a-token'), 'UNAUTHENTICATED', 'Could not validate credentials');
    expect(await rowsOf(kind)).toHaveLength(1);
  });

  describe('BAD_USER_INPUT', () => {
    for (const [field] of Object.entries(kind.fields).filter(([, declared]) => shapeOf(declared) === 'url')) {
      it.each(['not a url', 'ftp://files.example.com/x', 'javascript:alert(1)'])(
        `${field} %j is url_parsing at ["input", "${field}"]`,
        async (bad) => {
          const issues = issuesOf(await connect(kind, { ...sampleInput(kind), [field]: bad }));
          expect(issues).toEqual([
            { path: ['input', field], type: 'url_parsing', message: 'Input should be a valid URL' },
          ]);
          expect(await rowsOf(kind)).toEqual([]);
        },
      );
    }

    it('reports every problem at once', async () => {
      // Every text field empty, every URL not a URL: one issue per field.
      const input: Record<string, string> = {};
      for (const [field, declared] of Object.entries(kind.fields)) {
        input[field] = shapeOf(declared) === 'url' ? 'not a url' : '';
      }
      const issues = issuesOf(await connect(kind, input));
      expect(issues).toHaveLength(Object.keys(kind.fields).length);
      for (const [field, declared] of Object.entries(kind.fields)) {
        const issue = issueAt(issues, ['input', field]);
        if (shapeOf(declared) === 'url') expect(issue.type, field).toBe('url_parsing');
        else if (shapeOf(declared) === 'text') {
          expect(issue, field).toEqual({
            path: ['input', field],
            type: 'string_too_short',
            message: 'String should have at least 1 character',
          });
        }
      }
      expect(await rowsOf(kind)).toEqual([]);
    });

    it.each(secretFields(kind))('a too long %s is string_too_long, and not quoted', async (field) => {
      const long = `${'x'.repeat(4096)}${makeSecret(kind.kind, field, 9)}`;
      extraSecrets.push(long);
      const issues = issuesOf(await connect(kind, { ...sampleInput(kind), [field]: long }));
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatchObject({ path: ['input', field], type: 'string_too_long' });
    });

    it('a refused connect keeps the earlier record', async () => {
      const input = sampleInput(kind);
      const first = await connectOk(kind, input);
      const broken: Record<string, string> = { ...sampleInput(kind, 1) };
      const [plain] = Object.keys(kind.fields).filter((name) => !kind.fields[name]?.secret);
      if (plain) broken[plain] = '';
      issuesOf(await connect(kind, broken));
      expect(await viewer(kind)).toEqual(first);
      await expectStoredWithoutSecrets(kind, input);
    });
  });

  describe('input that does not fit the input type (refused before execution)', () => {
    it.each(requiredFields(kind))('leaving out %s: one error naming it, quoting no secret', async (field) => {
      const input: Record<string, string> = sampleInput(kind);
      delete input[field];
      const reply = await connect(kind, input);
      expect(reply.body.errors, reply.text).toHaveLength(1);
      expect(reply.body.data ?? null).toBeNull();
      expect(reply.body.errors?.[0].extensions).toEqual({
        code: 'BAD_USER_INPUT',
        issues: [{ path: ['input', field], type: 'missing', message: 'Field required' }],
      });
      expect(await rowsOf(kind)).toEqual([]);
    });

    it('a number for a secret field: refused, quoting no secret', async () => {
      const [secret] = secretFields(kind);
      if (!secret) return;
      const reply = await connect(kind, { ...sampleInput(kind), [secret]: 12345 });
      expect(reply.body.errors, reply.text).toHaveLength(1);
      expect(reply.body.data ?? null).toBeNull();
      expect(await rowsOf(kind)).toEqual([]);
    });

    it('a secret holding a quote, a backslash and a newline is not quoted either, escaped or not', async () => {
      // graphql-js quotes variable values JSON-escaped in coercion messages; an escaped secret is still the secret.
      const [secretField] = secretFields(kind);
      const [omitted] = requiredFields(kind).filter((name) => name !== secretField);
      if (!secretField || !omitted) return;
      const secret = `q"uo\\te\nd-${randomBytes(8).toString('hex')}`;
      extraSecrets.push(secret);
      const input: Record<string, string> = { ...sampleInput(kind), [secretField]: secret };
      delete input[omitted];
      const reply = await connect(kind, input);
      expect(reply.body.errors, reply.text).toHaveLength(1);
      const message: string = reply.body.errors?.[0].message ?? '';
      expect(message).toBe(`input.${omitted}: Field required`);
      for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
        expect(message.includes(form), `the error message quotes the secret: ${message}`).toBe(false);
      }
      expect(reply.text.includes(JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1))).toBe(false);
    });
  });
});
