import { Client, fetchExchange, subscriptionExchange } from '@urql/core';
import { type DocumentNode, Kind, OperationTypeNode } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';

/** Whether a document's operation is a query with @live (the server then keeps answering it). */
export const isLiveQuery = (document: DocumentNode) =>
  document.definitions.some(
    (definition) =>
      definition.kind === Kind.OPERATION_DEFINITION &&
      definition.operation === OperationTypeNode.QUERY &&
      definition.directives?.some((directive) => directive.name.value === 'live'),
  );

export function createLiveUrqlClient(options: {
  url: string; // http://127.0.0.1:4000/graphql
  token: () => string; // the accessToken of `accountLogin`
  fetch?: typeof fetch;
}): Client {
  // GraphQL over SSE, one connection per operation (yoga's "distinct connections" mode).
  const sse = createSseClient({
    url: options.url,
    headers: () => ({ authorization: `Bearer ${options.token()}` }),
    fetchFn: options.fetch,
  });
  return new Client({
    url: options.url,
    fetch: options.fetch,
    fetchOptions: () => ({ headers: { authorization: `Bearer ${options.token()}` } }),
    exchanges: [
      // Subscriptions and @live queries go over SSE, every result as it comes; the rest by fetch.
      subscriptionExchange({
        isSubscriptionOperation: (operation) =>
          operation.kind === 'subscription' || (operation.kind === 'query' && isLiveQuery(operation.query)),
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: sse.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
      fetchExchange,
    ],
  });
}
