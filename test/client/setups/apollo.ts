// docs/frontend-clients.md: Apollo Client with its normalised cache (InMemoryCache), automatic persisted
// queries (hashes sent by GET) and subscriptions over WebSocket (graphql-ws).
// test/client/frontend.test.ts runs it against the server; the README shows this file's code.
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Kind, OperationTypeNode } from 'graphql';
import { createClient as createWsClient } from 'graphql-ws';

export function createApolloClient(options: {
  httpUrl: string; // http://127.0.0.1:4000/graphql
  wsUrl: string; // ws://127.0.0.1:4000/graphql
  token: () => string; // the accessToken of `accountLogin`
  sha256: (text: string) => string | Promise<string>; // hex SHA-256 (crypto.subtle in browsers)
  fetch?: typeof fetch;
}): ApolloClient {
  // The token as it is when each request goes out.
  const auth = new ApolloLink((operation, forward) => {
    operation.setContext({ headers: { authorization: `Bearer ${options.token()}` } });
    return forward(operation);
  });
  const http = ApolloLink.from([
    auth,
    new PersistedQueryLink({ sha256: options.sha256, useGETForHashedQueries: true }),
    new HttpLink({ uri: options.httpUrl, fetch: options.fetch }),
  ]);
  // graphql-ws takes the global WebSocket: browsers and Node 22 and later have one.
  const ws = new GraphQLWsLink(
    createWsClient({
      url: options.wsUrl,
      connectionParams: () => ({ authorization: `Bearer ${options.token()}` }),
    }),
  );
  return new ApolloClient({
    // Subscriptions over the WebSocket, everything else over HTTP.
    link: ApolloLink.split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.SUBSCRIPTION;
      },
      ws,
      http,
    ),
    // Every Node is keyed by its global id (the default `__typename:id`); value types are embedded.
    cache: new InMemoryCache(),
  });
}
