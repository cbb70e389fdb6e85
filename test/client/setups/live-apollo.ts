import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Kind, OperationTypeNode } from 'graphql';
import { createClient as createWsClient } from 'graphql-ws';

export function createLiveApolloClient(options: {
  httpUrl: string; // http://127.0.0.1:4000/graphql
  wsUrl: string; // ws://127.0.0.1:4000/graphql
  token: () => string; // the accessToken of `accountLogin`
  fetch?: typeof fetch;
}): ApolloClient {
  // graphql-ws takes the global WebSocket: browsers and Node 22 and later have one.
  const ws = new GraphQLWsLink(
    createWsClient({ url: options.wsUrl, connectionParams: () => ({ authorization: `Bearer ${options.token()}` }) }),
  );
  const http = new HttpLink({
    uri: options.httpUrl,
    fetch: options.fetch,
    headers: { authorization: `Bearer ${options.token()}` },
  });
  return new ApolloClient({
    cache: new InMemoryCache(),
    // Subscriptions and @live queries go over WebSocket (every result updates the cache); the rest over HTTP.
    link: ApolloLink.split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return (
          definition.kind === Kind.OPERATION_DEFINITION &&
          (definition.operation === OperationTypeNode.SUBSCRIPTION ||
            (definition.operation === OperationTypeNode.QUERY &&
              (definition.directives ?? []).some((directive) => directive.name.value === 'live')))
        );
      },
      ws,
      http,
    ),
  });
}
