// A secret is never replaced by its own mask (issue 41): on every door and integration kind, a client that sends back
// what it read (secrets masked) with one field changed keeps the stored secrets; another mask-shaped value is refused
// naming the field (secrets stay required: a left-out secret is "missing", as before). For telephony the proof is the
// provider's own: a callback signed with the original token is still accepted, one signed with the mask is not.
import { afterEach, describe, expect, it } from 'vitest';
import { readIntegrationSecrets } from '../../src/domain/integrations.js';
import { INTEGRATION_KINDS, type IntegrationKind } from '../../src/domain/integrations.schema.js';
import { createSecretBox } from '../../src/security/secrets.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { closeMcpDoorsAfterEach, mcpDoor, toolAnswer } from '../helpers/mcp-client.js';
import { AUTH_TOKEN, connectTelephony, sendCallback } from '../helpers/telephony.js';

closeMcpDoorsAfterEach();
const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

async function start() {
  const t = await startApp({}, [], { worker: false });
  apps.push(t);
  return t;
}

/** The box test apps seal secrets with (test/helpers/app.ts: SECRETS_KEY is 32 bytes of 7). */
const box = createSecretBox(Buffer.alloc(32, 7));

/** What the secrets of a kind are, as stored. */
async function storedSecrets(t: TestApp, accountId: string, kind: IntegrationKind) {
  return readIntegrationSecrets(t.app.database.db, box, accountId, kind);
}

/** A whole, valid input of a kind: secrets long enough to be masked as "****" + their last 4. */
function inputOf(kind: IntegrationKind, round = 'a'): Record<string, string> {
  const input: Record<string, string> = {};
  for (const [name, field] of Object.entries(kind.fields)) {
    if (field.secret) input[name] = `secret-${kind.kind}-${name}-${round}-0123456789`;
    else if (field.closedSet) input[name] = Object.keys(field.closedSet.values)[0]!;
    else if (/phone/i.test(name)) input[name] = '+14155550100';
    else if (/url/i.test(name)) input[name] = 'https://example.com/x';
    else input[name] = `${name}-${round}`;
  }
  return input;
}

const secretNames = (kind: IntegrationKind) =>
  Object.entries(kind.fields)
    .filter(([, field]) => field.secret)
    .map(([name]) => name);
/** A plain field to change on the way back, and its new value. */
function change(kind: IntegrationKind): [string, string] {
  const [name] = Object.entries(kind.fields).find(([, field]) => !field.secret && !field.closedSet)!;
  return [name, /url/i.test(name) ? 'https://example.com/changed' : /phone/i.test(name) ? '+14155550199' : 'changed'];
}

describe('a secret sent back as its mask keeps the stored secret', () => {
  for (const kind of INTEGRATION_KINDS) {
    it(`${kind.kind}: over GraphQL, read → one field changed → written back`, async () => {
      const t = await start();
      const { token, id } = await t.account();
      const original = inputOf(kind);
      const connect = `${kind.kind}Connect`;
      const fields = Object.keys(kind.fields).join(' ');
      const mutation = `mutation ($input: ${connect[0]!.toUpperCase()}${connect.slice(1)}Input!) { ${connect}(input: $input) { integration { ${fields} } } }`;
      const first = await t.gql(mutation, { input: original }, token);
      expect(first.body.errors, first.text).toBeUndefined();
      const read = (await t.gql(`{ viewer { integrations { ${kind.kind} { ${fields} } } } }`, {}, token)).body.data
        .viewer.integrations[kind.kind] as Record<string, string>;
      for (const name of secretNames(kind)) expect(read[name]).toBe(`****${original[name]!.slice(-4)}`);
      // Every field as read (the masks too), one plain field changed: what a settings form sends.
      const [name, value] = change(kind);
      const back = { ...read, [name]: value };
      const written = await t.gql(mutation, { input: back }, token);
      expect(written.body.errors, written.text).toBeUndefined();
      expect(written.body.data[connect].integration[name]).toBe(value);
      const stored = await storedSecrets(t, id, kind);
      for (const secret of secretNames(kind)) expect(stored?.[secret]).toBe(original[secret]);
    });
  }

  it('telephony over REST: get_telephony → update_telephony with what was read; callbacks signed with the real token still pass', async () => {
    const t = await start();
    const { token, apiKey } = await t.account();
    await connectTelephony(t, token);
    await createLegacyCampaign(t, token, 'spring');
    const read = await t.rest('GET', '/get_telephony', { token });
    expect(read.body.telephonyAuthToken).toBe(`****${AUTH_TOKEN.slice(-4)}`);
    const { status: _status, updatedAt: _updatedAt, ...asRead } = read.body;
    const back = await t.rest('POST', '/update_telephony', {
      token,
      body: { ...asRead, telephonyPhoneNumber: '+14155550199' },
    });
    expect(back.status, back.text).toBe(200);
    expect(back.body.telephonyPhoneNumber).toBe('+14155550199');
    const signed = await sendCallback(t, apiKey, 'spring', { CallSid: 'CA1', CallStatus: 'completed' });
    expect(signed.status, signed.text).toBe(200);
    const signedWithMask = await sendCallback(
      t,
      apiKey,
      'spring',
      { CallSid: 'CA2', CallStatus: 'completed' },
      { authToken: asRead.telephonyAuthToken },
    );
    expect(signedWithMask.status).toBe(403);
  });

  it('telephony through MCP: telephony_connect with the masked token read through the same door', async () => {
    const { t, token, apiKey, client } = await mcpDoor();
    await connectTelephony(t, token);
    await createLegacyCampaign(t, token, 'spring');
    const read = await t.gql(
      '{ viewer { integrations { telephony { telephonyAccountSid telephonyAuthToken telephonyPhoneNumber } } } }',
      {},
      token,
    );
    const telephony = read.body.data.viewer.integrations.telephony;
    const answer = await toolAnswer(client, 'telephony_connect', {
      input: { ...telephony, telephonyAccountSid: 'AC999' },
    });
    expect('data' in answer, JSON.stringify(answer)).toBe(true);
    const signed = await sendCallback(t, apiKey, 'spring', { CallSid: 'CA1', CallStatus: 'completed' });
    expect(signed.status, signed.text).toBe(200);
  });
});

describe('other mask-shaped values', () => {
  it("a mask that is not the stored secret's is refused naming the field (REST 422, GraphQL BAD_USER_INPUT), and nothing changes", async () => {
    const t = await start();
    const { token, apiKey } = await t.account();
    await connectTelephony(t, token);
    await createLegacyCampaign(t, token, 'spring');
    const rest = await t.rest('POST', '/update_telephony', {
      token,
      body: { telephonyAccountSid: 'AC1', telephonyAuthToken: '****zzzz', telephonyPhoneNumber: '+14155550100' },
    });
    expect(rest.status).toBe(422);
    expect(rest.body.detail[0].loc).toEqual(['body', 'telephonyAuthToken']);
    expect(rest.body.detail[0].msg).toMatch(/masked value/);
    const gql = await t.gql(
      'mutation { telephonyConnect(input: { telephonyAccountSid: "AC1", telephonyAuthToken: "****", telephonyPhoneNumber: "+14155550100" }) { integration { connected } } }',
      {},
      token,
    );
    expect(gql.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(gql.body.errors?.[0]?.extensions.issues[0].path).toEqual(['input', 'telephonyAuthToken']);
    // A first connect with a mask: there is nothing it could stand for.
    const fresh = await t.account();
    const first = await t.rest('POST', '/update_telephony', {
      token: fresh.token,
      body: {
        telephonyAccountSid: 'AC1',
        telephonyAuthToken: `****${AUTH_TOKEN.slice(-4)}`,
        telephonyPhoneNumber: '+14155550100',
      },
    });
    expect(first.status).toBe(422);
    // The stored token is the original still.
    expect((await sendCallback(t, apiKey, 'spring', { CallSid: 'CA1', CallStatus: 'completed' })).status).toBe(200);
  });
});
