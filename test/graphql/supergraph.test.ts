// The campaign subgraph behind Hive Gateway (@graphql-hive/gateway-runtime, served by node:http), composed with a small
// CRM subgraph written here, all three on loopback: one request crosses both graphs (a CRM contact's recent calls, each call's campaign
// with its CRM owner), the gateway forwards the caller's Authorization header, `_entities` reaches our subgraph once
// per type per request, and another account's calls come back null (with the subgraph's NOT_FOUND, not a masked
// internal error); with SUBGRAPH_TOKEN sent to this subgraph only, a database outage reaches the client as
// SERVICE_UNAVAILABLE with retryAfter; a subscription through the gateway ends with `complete` when the instance stops.
import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { afterEach, expect, it, onTestFinished } from 'vitest';
import { printSubgraphSdl } from '../../src/graphql/schema/schema.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { loopbackGateways } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';
import { liveStreamsOpen } from '../helpers/live-streams.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';
import { CRM_SDL, startCrm } from '../helpers/crm-subgraph.js';
import { removableDatabase } from '../helpers/removable-database.js';

const open = loopbackGateways();
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** Hive Gateway listening on a loopback port, as a deployment runs it: its /graphql URL. */
async function listening(gateway: ReturnType<typeof createGatewayRuntime>): Promise<string> {
  const server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/graphql`;
}

it('one request through Hive Gateway crosses both subgraphs, as the caller, entities batched per type', async () => {
  // Which operations reached our subgraph, and with which root field.
  const seen: string[] = [];
  // And which reached the CRM.
  const crmSeen: string[] = [];
  const gateway = await open({}, {});
  const { t } = gateway;
  const owner = await t.account();
  const other = await t.account();
  await connectTelephony(t, owner.token);
  await createLegacyCampaign(t, owner.token, 'spring', { title: 'Spring' });
  for (const callId of ['CA1', 'CA2', 'CA3']) {
    const sent = await sendCallback(t, owner.apiKey, 'spring', { CallSid: callId, CallStatus: 'completed' });
    expect(sent.status, sent.text).toBe(200);
  }
  const calls = ['CA1', 'CA2', 'CA3'];
  const crm = await startCrm(calls, closing);
  const composed = composeServices([
    { name: 'campaigns', typeDefs: parse(printSubgraphSdl()), url: `${gateway.base}/subgraph` },
    { name: 'crm', typeDefs: parse(CRM_SDL), url: crm },
  ]);
  expect(composed.errors ?? []).toEqual([]);
  const hive = createGatewayRuntime({
    supergraph: composed.supergraphSdl ?? '',
    logging: false,
    // The gateway passes the caller's token on: the subgraph answers as that account.
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }),
    },
    plugins: () => [
      {
        onFetch({ url, options }) {
          const body = JSON.parse(String(options.body ?? '{}')) as { query?: string };
          const query = (body.query ?? '').replace(/\s+/g, ' ').trim();
          if (url.endsWith('/subgraph')) seen.push(query);
          else crmSeen.push(query);
        },
      },
    ],
  });
  closing.push(() => hive.dispose() as Promise<void>);
  const gatewayUrl = await listening(hive);

  const ask = async (
    token: string,
    query = `{ contacts { name recentCalls { callId status campaign { campId title owner { name } } } } }`,
  ) => {
    const response = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: any; errors?: unknown };
  };

  const answer = await ask(owner.token);
  expect(answer.errors, JSON.stringify(answer)).toBeUndefined();
  expect(answer.data.contacts).toEqual([
    {
      name: 'Ana Lima',
      recentCalls: ['CA1', 'CA2', 'CA3'].map((callId) => ({
        callId,
        status: 'COMPLETED',
        campaign: { campId: 'spring', title: 'Spring', owner: { name: 'Olga Owner' } },
      })),
    },
  ]);
  // Our subgraph was asked once for the call logs (three representations in one _entities call).
  const entityCalls = seen.filter((query) => query.includes('_entities'));
  expect(entityCalls).toHaveLength(1);

  // From our side: the account's campaigns, each with its CRM owner; the CRM is asked once for both campaigns.
  await createLegacyCampaign(t, owner.token, 'autumn', { title: 'Autumn' });
  crmSeen.length = 0;
  const campaigns = await ask(owner.token, '{ campaigns(first: 5) { edges { node { campId owner { name } } } } }');
  expect(campaigns.errors, JSON.stringify(campaigns)).toBeUndefined();
  expect(campaigns.data.campaigns.edges.map((edge: any) => edge.node)).toEqual([
    { campId: 'autumn', owner: { name: 'Olga Owner' } },
    { campId: 'spring', owner: { name: 'Olga Owner' } },
  ]);
  expect(crmSeen.filter((query) => query.includes('_entities'))).toHaveLength(1);

  // Another account, through the same gateway: none of those calls is theirs, and the answer is the one for calls that
  // exist nowhere. The fields asked of them are non-null, so the gateway must report the nulls: it passes on the
  // subgraph's NOT_FOUND (which says nothing of the calls), not an "Unexpected error." INTERNAL_SERVER_ERROR of its own
  // that error-rate alerts would count.
  const theirs = await ask(other.token);
  expect(theirs.data.contacts[0].recentCalls).toEqual([null, null, null]);
  const codes = (theirs.errors as Array<{ message: string; extensions: { code: string } }>).map((error) => [
    error.extensions.code,
    error.message,
  ]);
  expect(codes.length).toBeGreaterThan(0);
  expect(new Set(codes.map((code) => code.join(': ')))).toEqual(new Set(['NOT_FOUND: CallLog not found']));
  calls.splice(0, calls.length, 'CAnone1', 'CAnone2', 'CAnone3');
  const nowhere = await ask(other.token);
  expect(JSON.stringify(theirs)).toBe(JSON.stringify(nowhere));
  // Asked for the contact's own fields and the calls' ids (which the CRM has), no error at all.
  const ids = await ask(other.token, '{ contacts { name recentCalls { callId } } }');
  expect(ids).toEqual({ data: { contacts: [{ name: 'Ana Lima', recentCalls: calls.map((callId) => ({ callId })) }] } });
});

it('through Hive Gateway with SUBGRAPH_TOKEN, the database down is SERVICE_UNAVAILABLE with retryAfter', async () => {
  const database = await removableDatabase();
  // After the app is closed (after the afterEach hooks).
  onTestFinished(() => database.close());
  const token = 'the-gateway-s-subgraph-token';
  const gateway = await open({ ...database.env, SUBGRAPH_TOKEN: token }, database.options);
  const { t } = gateway;
  const { token: caller } = await t.account();
  await createLegacyCampaign(t, caller, 'spring', { title: 'Spring' });
  const crmHeaders: Array<string | null> = [];
  const crm = await startCrm([], closing);
  const composed = composeServices([
    { name: 'campaigns', typeDefs: parse(printSubgraphSdl()), url: `${gateway.base}/subgraph` },
    { name: 'crm', typeDefs: parse(CRM_SDL), url: crm },
  ]);
  const hive = createGatewayRuntime({
    supergraph: composed.supergraphSdl ?? '',
    logging: false,
    // As docs/supergraph.md says: the token to this subgraph only, never to the others.
    propagateHeaders: {
      fromClientToSubgraphs: ({ request, subgraphName }) => ({
        authorization: request.headers.get('authorization'),
        ...(subgraphName === 'campaigns' ? { 'x-subgraph-token': token } : {}),
      }),
    },
    plugins: () => [
      {
        onFetch({ url, options }) {
          if (!url.endsWith('/subgraph')) crmHeaders.push(new Headers(options.headers).get('x-subgraph-token'));
        },
      },
    ],
  });
  closing.push(() => hive.dispose() as Promise<void>);
  const gatewayUrl = await listening(hive);
  const ask = async (query: string) => {
    const response = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${caller}` },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: any; errors?: Array<{ message: string; extensions: any }> };
  };
  const served = await ask('{ campaigns(first: 5) { edges { node { campId owner { name } } } } }');
  expect(served.errors, JSON.stringify(served)).toBeUndefined();
  expect(served.data.campaigns.edges).toEqual([{ node: { campId: 'spring', owner: { name: 'Olga Owner' } } }]);
  expect(crmHeaders).toEqual([null]);

  await database.outage();
  try {
    // A write: on SQLite the lock refuses writes only.
    const paused = await ask('mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }');
    expect(paused.errors?.[0], JSON.stringify(paused)).toMatchObject({
      message: 'The service is temporarily unavailable; try again shortly',
      extensions: { code: 'SERVICE_UNAVAILABLE', retryAfter: 5 },
    });
  } finally {
    await database.recover();
  }
});

it('a subscription reaches a client through Hive Gateway, over SSE to the subgraph, as the caller', async () => {
  const gateway = await open({}, {});
  const { t } = gateway;
  const { token } = await t.account();
  await createLegacyCampaign(t, token, 'spring', { title: 'Spring' });
  const crm = await startCrm([], closing);
  const composed = composeServices([
    { name: 'campaigns', typeDefs: parse(printSubgraphSdl()), url: `${gateway.base}/subgraph` },
    { name: 'crm', typeDefs: parse(CRM_SDL), url: crm },
  ]);
  const hive = createGatewayRuntime({
    supergraph: composed.supergraphSdl ?? '',
    logging: false,
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }),
    },
  });
  closing.push(() => hive.dispose() as Promise<void>);
  const gatewayUrl = await listening(hive);
  const abort = new AbortController();
  closing.push(async () => abort.abort());
  const response = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: 'subscription { campaignEvents(campId: "spring") { eventType } }' }),
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  let text = '';
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
    }
  })().catch(() => undefined);
  // The gateway opened its own stream to /subgraph as the caller: the subgraph counts it.
  await liveStreamsOpen(t, 1);
  const paused = await t.gql('mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }', {}, token);
  expect(paused.body.errors).toBeUndefined();
  await eventually(async () => expect(text).toContain('"eventType":"CAMPAIGN_STATUS_CHANGED"'));

  // The instance stops (SIGTERM drains it, docs/supergraph.md "Across a restart"): the subgraph ends its stream, and
  // the gateway ends the client's with `complete`, without resubscribing: the client subscribes again.
  t.app.drain();
  await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, 5000))]);
  expect(text.trimEnd()).toMatch(/event: complete\ndata:$/);
  expect(text.match(/^event: next$/gm)).toHaveLength(1);

  // @live is not part of the supergraph: the gateway refuses it (a live query goes to /graphql directly).
  const live = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: 'query @live { campaigns(first: 1) { edges { node { campId } } } }' }),
  });
  const refused = (await live.json()) as { errors?: Array<{ message: string }> };
  expect(refused.errors?.[0]?.message).toMatch(/Unknown directive "@live"/);
});
