// docs/frontend-clients.md: urql with a normalised cache (Graphcache), automatic persisted queries (hashes
// sent by GET), and subscriptions over WebSocket (graphql-ws), or over SSE with `fetchSubscriptions`.
// test/client/frontend.test.ts runs it against the server; the README shows this file's code.
import { Client, fetchExchange, subscriptionExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { persistedExchange } from '@urql/exchange-persisted';
import type { IntrospectionObjectType, IntrospectionQuery } from 'graphql';
import { createClient as createWsClient } from 'graphql-ws';

export function createUrqlClient(options: {
  httpUrl: string; // http://127.0.0.1:4000/graphql
  wsUrl: string; // ws://127.0.0.1:4000/graphql
  token: () => string; // the accessToken of `accountLogin`
  transport?: 'websocket' | 'sse';
  fetch?: typeof fetch;
  introspection: IntrospectionQuery; // the schema, for the cache (e.g. introspectionFromSchema, or a build step)
}): Client {
  // graphql-ws takes the global WebSocket: browsers and Node 22 and later have one.
  const ws = createWsClient({
    url: options.wsUrl,
    connectionParams: () => ({ authorization: `Bearer ${options.token()}` }),
  });
  return new Client({
    url: options.httpUrl,
    fetch: options.fetch,
    fetchOptions: () => ({ headers: { authorization: `Bearer ${options.token()}` } }),
    // SSE: subscriptions go by fetch with `Accept: text/event-stream`; WebSocket: by the exchange below.
    fetchSubscriptions: options.transport === 'sse',
    exchanges: [
      cacheExchange({
        schema: options.introspection,
        // Objects without an id (connections, edges, payloads, tokens, metrics, ...) are embedded in their parent.
        keys: Object.fromEntries(
          options.introspection.__schema.types
            .filter((type): type is IntrospectionObjectType => type.kind === 'OBJECT')
            .filter((type) => !/^(__|Query$|Mutation$|Subscription$)/.test(type.name))
            .filter((type) => !type.fields.some((field) => field.name === 'id'))
            .map((type) => [type.name, () => null]),
        ),
      }),
      persistedExchange({ preferGetForPersistedQueries: true }),
      fetchExchange,
      ...(options.transport === 'sse'
        ? []
        : [
            subscriptionExchange({
              forwardSubscription: (request) => ({
                subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
              }),
            }),
          ]),
    ],
  });
}
