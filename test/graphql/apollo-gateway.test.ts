// The campaign subgraph composed with Apollo's own composition (@apollo/composition) beside a small CRM subgraph, and
// served by Apollo Gateway (@apollo/gateway: its executor, the part Apollo Server hands each operation to), all on
// loopback: a request across both subgraphs, another account's calls (null, with the subgraph's NOT_FOUND where the
// client asked for non-null fields, nothing where it did not), SUBGRAPH_TOKEN sent by the gateway's data source, and
// a database outage that reaches the client as SERVICE_UNAVAILABLE with retryAfter — Apollo Gateway keeps the body of
// a 200 only (of a 503 it made "503: Service Unavailable", which Apollo Server answers as INTERNAL_SERVER_ERROR).
import { createHash } from 'node:crypto';
import { composeServices } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { type ExecutionResult, getOperationAST, parse, validate } from 'graphql';
import { afterEach, expect, it, onTestFinished } from 'vitest';
import { printSubgraphSdl } from '../../src/graphql/schema/schema.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { CRM_SDL, startCrm } from '../helpers/crm-subgraph.js';
import { loopbackGateways } from '../helpers/gateway.js';
import { removableDatabase } from '../helpers/removable-database.js';
import { connectTelephony, sendCallback } from '../helpers/telephony.js';

const open = loopbackGateways();
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

type Answer = ExecutionResult & { errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> };

/**
 * Apollo Gateway on the supergraph, its data sources sending the caller's token and (when given) the subgraph token to
 * our subgraph; `ask` runs an operation as Apollo Server would hand it over (parsed, validated, with its context).
 */
async function apolloGateway(supergraphSdl: string, subgraphUrl: string, subgraphToken?: string) {
  const gateway = new ApolloGateway({
    supergraphSdl,
    logger: silent,
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<{ token: string }>({
        url,
        willSendRequest({ request, context }) {
          request.http?.headers.set('authorization', `Bearer ${context.token}`);
          if (subgraphToken && url === subgraphUrl) request.http?.headers.set('x-subgraph-token', subgraphToken);
        },
      }),
  });
  const { schema, executor } = await gateway.load();
  closing.push(() => gateway.stop());
  return async (token: string, query: string): Promise<Answer> => {
    const document = parse(query);
    const invalid = validate(schema, document);
    if (invalid.length > 0) return { errors: invalid };
    const operation = getOperationAST(document);
    return (await executor({
      request: { query, variables: {} },
      document,
      operation,
      operationName: null,
      source: query,
      queryHash: createHash('sha256').update(query).digest('hex'),
      context: { token },
      logger: silent,
      metrics: {},
      schema,
    } as never)) as Answer;
  };
}

it('composes with Apollo composition; Apollo Gateway keeps NOT_FOUND, SERVICE_UNAVAILABLE and retryAfter', async () => {
  const database = await removableDatabase();
  // After the app is closed (after the afterEach hooks).
  onTestFinished(() => database.close());
  const subgraphToken = 'the-gateway-s-subgraph-token';
  const gateway = await open({ ...database.env, SUBGRAPH_TOKEN: subgraphToken }, database.options);
  const { t } = gateway;
  const owner = await t.account();
  const other = await t.account();
  await connectTelephony(t, owner.token);
  await createLegacyCampaign(t, owner.token, 'spring', { title: 'Spring' });
  for (const callId of ['CA1', 'CA2']) {
    const sent = await sendCallback(t, owner.apiKey, 'spring', { CallSid: callId, CallStatus: 'completed' });
    expect(sent.status, sent.text).toBe(200);
  }
  const crm = await startCrm(['CA1', 'CA2'], closing);
  const subgraphUrl = `${gateway.base}/subgraph`;
  const composed = composeServices([
    { name: 'campaigns', typeDefs: parse(printSubgraphSdl()), url: subgraphUrl },
    { name: 'crm', typeDefs: parse(CRM_SDL), url: crm },
  ]);
  expect(composed.errors ?? []).toEqual([]);
  const ask = await apolloGateway(composed.supergraphSdl ?? '', subgraphUrl, subgraphToken);

  // Across both subgraphs, as the caller.
  const calls = '{ contacts { name recentCalls { callId status campaign { campId title owner { name } } } } }';
  const answer = await ask(owner.token, calls);
  expect(answer.errors, JSON.stringify(answer)).toBeUndefined();
  expect(answer.data).toEqual({
    contacts: [
      {
        name: 'Ana Lima',
        recentCalls: ['CA1', 'CA2'].map((callId) => ({
          callId,
          status: 'COMPLETED',
          campaign: { campId: 'spring', title: 'Spring', owner: { name: 'Olga Owner' } },
        })),
      },
    ],
  });

  // Another account: the calls are null. Asked for non-null fields, the gateway passes on the subgraph's NOT_FOUND
  // (nothing internal); asked only for nullable ones, the calls keep their ids and no error is said.
  const theirs = await ask(other.token, calls);
  expect(theirs.data).toEqual({ contacts: [{ name: 'Ana Lima', recentCalls: [null, null] }] });
  expect(theirs.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
    ['NOT_FOUND', 'CallLog not found'],
    ['NOT_FOUND', 'CallLog not found'],
  ]);
  const nullable = await ask(other.token, '{ contacts { recentCalls { callId durationSeconds } } }');
  expect(nullable).toEqual({
    data: {
      contacts: [
        {
          recentCalls: [
            { callId: 'CA1', durationSeconds: null },
            { callId: 'CA2', durationSeconds: null },
          ],
        },
      ],
    },
  });

  // A gateway without the subgraph token is refused, and says so.
  const untokened = await apolloGateway(composed.supergraphSdl ?? '', subgraphUrl);
  const refused = await untokened(owner.token, '{ campaigns(first: 1) { edges { node { campId } } } }');
  expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

  // The database goes away: the subgraph answers Apollo Gateway's application/json in a 200, which keeps the body.
  await database.outage();
  try {
    const paused = await ask(
      owner.token,
      'mutation { campaignPause(input: { campId: "spring" }) { campaign { id } } }',
    );
    expect(paused.errors, JSON.stringify(paused)).toHaveLength(1);
    expect(paused.errors?.[0]).toMatchObject({
      message: 'The service is temporarily unavailable; try again shortly',
      extensions: { code: 'SERVICE_UNAVAILABLE', retryAfter: 5, serviceName: 'campaigns' },
    });
  } finally {
    await database.recover();
  }
});
