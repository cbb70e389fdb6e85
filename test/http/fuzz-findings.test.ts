// Inputs a fuzzing run found that made the server answer 500 or an error without a code. Each is now a client
// mistake with a clear 4xx on both doors, or (for a fault of ours) a masked, logged INTERNAL_SERVER_ERROR.
import jwt from 'jsonwebtoken';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { internalGql } from '../helpers/internal-graph.js';
import { logCapture } from '../helpers/log-lines.js';
import { AUTH_TOKEN, connectTelephony, sendCallback, sign } from '../helpers/telephony.js';

let t: TestApp;
afterEach(() => t.close());

/** The callback mutation is the REST door's, on the internal graph (docs/graphql.md#two-graphs). */
async function internal(query: string, variables?: Record<string, unknown>) {
  const body = await internalGql(t, query, variables);
  return { body, text: JSON.stringify(body) };
}

const CAMP = 'fuzz-camp';
const SID = 'CA00000000000000000000000000000009';
const RECEIVE = `mutation ($apiKey: String!, $campId: String!, $url: String!, $params: JSONObject!, $signature: String) {
  receiveCallStatusCallback(apiKey: $apiKey, campId: $campId, url: $url, params: $params, signature: $signature) {
    callId cost
  }
}`;

const callbackUrl = (apiKey: string, campId: string) =>
  `http://127.0.0.1/api/v3/telephony_webhook/${encodeURIComponent(apiKey)}/${encodeURIComponent(campId)}`;

async function withTelephonyCampaign() {
  t = await startApp();
  const account = await t.account();
  await connectTelephony(t, account.token);
  await createLegacyCampaign(t, account.token, CAMP);
  return account;
}

describe('GraphQL batches with entries that are not objects', () => {
  it.each(['[null]', '[0,null]', '[1]', '["x"]'])('%s is a 400, not a 500', async (raw) => {
    t = await startApp();
    const reply = await t.request('POST', '/graphql', { raw, headers: { 'content-type': 'application/json' } });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.text).not.toMatch(/Unexpected error|at .*\.[jt]s/);
  });
});

describe('call-status callback parameters', () => {
  it('GraphQL (internal graph): a nested object or a list among the params is BAD_USER_INPUT, as a literal and as a variable', async () => {
    const { apiKey } = await withTelephonyCampaign();
    const url = callbackUrl(apiKey, CAMP);
    const literal = await internal(
      `mutation { receiveCallStatusCallback(apiKey: "${apiKey}", campId: "${CAMP}", url: "${url}", params: { CallSid: "x", a: {} }) { callId } }`,
    );
    expect(literal.body.errors?.[0].extensions.code, literal.text).toBe('BAD_USER_INPUT');
    for (const params of [
      { CallSid: SID, a: { b: 1 } },
      { CallSid: SID, a: [1] },
      { CallSid: SID, a: null },
    ]) {
      const reply = await internal(RECEIVE, { apiKey, campId: CAMP, url, params, signature: 'x' });
      expect(reply.body.errors?.[0].extensions.code, reply.text).toBe('BAD_USER_INPUT');
    }
  });

  it('REST: a JSON body with a nested value is a 422, not a 500', async () => {
    const { apiKey } = await withTelephonyCampaign();
    const reply = await t.request('POST', `/api/v3/telephony_webhook/${apiKey}/${CAMP}`, {
      body: { CallSid: SID, CallStatus: 'completed', a: { b: 1 } },
      headers: { 'x-telephony-signature': 'x' },
    });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail[0].loc[0]).toBe('body');
  });

  const HUGE_PRICE = `-${'9'.repeat(400)}`;

  it('REST: a signed Price too large to be an amount is a 422 at body.Price, and nothing is stored', async () => {
    const { apiKey, token } = await withTelephonyCampaign();
    const reply = await sendCallback(t, apiKey, CAMP, { CallSid: SID, CallStatus: 'completed', Price: HUGE_PRICE });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.detail[0].loc).toEqual(['body', 'Price']);
    const price1e7 = await sendCallback(t, apiKey, CAMP, { CallSid: SID, CallStatus: 'completed', Price: '10000000' });
    expect(price1e7.status, price1e7.text).toBe(422);
    expect(await t.app.database.db.selectFrom('call_logs').selectAll().execute()).toEqual([]);
    const ok = await sendCallback(t, apiKey, CAMP, { CallSid: SID, CallStatus: 'completed', Price: '-0.25' });
    expect(ok.status, ok.text).toBe(200);
    const logs = await t.rest('GET', `/get_call_logs_for_campaign?campId=${CAMP}`, { token });
    expect(logs.status, logs.text).toBe(200);
    expect(logs.body[0].cost).toBe(0.25);
  });

  it('GraphQL: the same Price is BAD_USER_INPUT', async () => {
    const { apiKey } = await withTelephonyCampaign();
    const url = callbackUrl(apiKey, CAMP);
    const params = { CallSid: SID, CallStatus: 'completed', Price: HUGE_PRICE };
    const reply = await internal(RECEIVE, {
      apiKey,
      campId: CAMP,
      url,
      params,
      signature: sign(AUTH_TOKEN, url, params),
    });
    expect(reply.body.errors?.[0].extensions.code, reply.text).toBe('BAD_USER_INPUT');
  });

  it('a non-finite cost already stored reads as null on both doors instead of failing every list', async () => {
    const { apiKey, token } = await withTelephonyCampaign();
    const ok = await sendCallback(t, apiKey, CAMP, { CallSid: SID, CallStatus: 'completed', Price: '1' });
    expect(ok.status, ok.text).toBe(200);
    await t.app.database.db.updateTable('call_logs').set({ cost: Number.POSITIVE_INFINITY }).execute();
    const rest = await t.rest('GET', `/get_call_logs_for_campaign?campId=${CAMP}`, { token });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body[0].cost).toBeNull();
    const graphql = await t.gql('{ callLogs(first: 5) { edges { node { callId cost } } } }', {}, token);
    expect(graphql.body.errors, graphql.text).toBeUndefined();
    expect(graphql.body.data.callLogs.edges[0].node.cost).toBeNull();
  });
});

describe('a validly signed token whose subject cannot be an account id', () => {
  const SECRET = 'test-secret-test-secret-test-secret-0123';

  it.each(['acc_\u0000x', 'a\nb', '', 'x'.repeat(129)])('%j is refused with 401 on both doors', async (sub) => {
    t = await startApp();
    const token = jwt.sign({ ver: 0 }, SECRET, { algorithm: 'HS256', subject: sub, expiresIn: 60 });
    const rest = await t.rest('GET', '/get_campaigns', { token });
    expect(rest.status, rest.text).toBe(401);
    const graphql = await t.gql('{ campaigns(first: 1) { edges { cursor } } }', {}, token);
    expect(graphql.body.errors?.[0].extensions.code, graphql.text).toBe('UNAUTHENTICATED');
  });
});

describe('GraphQL errors that had no code', () => {
  const globalId = (typename: string, id: string) => Buffer.from(`${typename}:${id}`).toString('base64');

  it('node and nodes with an id of a type that is not a node are BAD_USER_INPUT', async () => {
    t = await startApp();
    const { token } = await t.account();
    for (const typename of ['Nope', 'Query', 'CallStatus']) {
      const one = await t.gql('query ($id: ID!) { node(id: $id) { id } }', { id: globalId(typename, '1') }, token);
      expect(one.body.errors?.[0].extensions.code, one.text).toBe('BAD_USER_INPUT');
      const many = await t.gql(
        'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }',
        {
          ids: [globalId('Campaign', 'x'), globalId(typename, '1')],
        },
        token,
      );
      expect(many.body.errors?.[0].extensions.code, many.text).toBe('BAD_USER_INPUT');
      expect(many.body.errors?.[0].extensions.issues[0].path).toEqual(['ids', 1]);
    }
  });

  // Queries run through graphql-jit, mutations through graphql-js (which stops after 50 errors with one of its own):
  // either way one BAD_USER_INPUT error, its issues capped at 50, its message short and without the long values.
  it.each(['query', 'mutation'])(
    '%s with more than 50 bad variables: one BAD_USER_INPUT, at most 50 issues, no message echoes a long value',
    async (operation) => {
      t = await startApp();
      const names = Array.from({ length: 60 }, (_, i) => `v${i}`);
      // 15 to a selection set (src/graphql/server/document-work.ts: a response name at most 15 times in one), under four
      // aliases of a field that needs no argument.
      const field = operation === 'query' ? 'viewer' : 'accountApiKeyRotate';
      const groups = [0, 1, 2, 3].map((group) => {
        const fragments = names.slice(group * 15, group * 15 + 15).map((n) => `... @skip(if: $${n}) { __typename }`);
        return `f${group}: ${field} { ${fragments.join(' ')} }`;
      });
      const query = `${operation} (${names.map((n) => `$${n}: Boolean!`).join(', ')}) { ${groups.join(' ')} }`;
      const long = 'z'.repeat(5_000);
      // Signed in: the document is over the 1 000 tokens a caller without a token may send (document-work.ts).
      const { token } = await t.account();
      const reply = await t.gql(query, Object.fromEntries(names.map((n) => [n, long])), token);
      expect(reply.body.errors?.length, reply.text.slice(0, 500)).toBe(1);
      const [error] = reply.body.errors ?? [];
      expect(error.extensions?.code, error.message).toBe('BAD_USER_INPUT');
      expect(error.extensions.issues).toHaveLength(50);
      expect(error.extensions.issues[0]).toEqual({
        path: ['v0'],
        type: 'bool_type',
        message: 'Input should be a valid boolean',
      });
      expect(error.message.length).toBeLessThanOrEqual(500);
      expect(reply.text).not.toContain('zzzz');
    },
  );

  it('a stored value a scalar cannot serialize is a masked INTERNAL_SERVER_ERROR on GraphQL, logged', async () => {
    const log = logCapture();
    t = await startApp({ LOG_LEVEL: 'info' }, [], { logStream: log.stream });
    const { token } = await t.account();
    await createLegacyCampaign(t, token, CAMP);
    await t.app.database.db.updateTable('campaigns').set({ updated_at: 'not a time' }).execute();

    const graphql = await t.gql(`{ campaign(campId: "${CAMP}") { updatedAt } }`, {}, token);
    expect(graphql.body.errors?.[0], graphql.text).toMatchObject({
      message: 'Unexpected error.',
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(log.lines.some((line) => line.level >= 50 && /unexpected error/.test(line.msg))).toBe(true);
  });
});
