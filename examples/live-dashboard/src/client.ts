// The urql client: mutations (the login) over fetch, and every operation that is a subscription or a query marked
// @live over GraphQL over SSE (graphql-sse in "distinct connections" mode: one POST with Accept: text/event-stream per
// operation), which hands urql each result the gateway sends.
import { Client, fetchExchange, type Operation, subscriptionExchange } from '@urql/core';
import { createClient as createSseClient } from 'graphql-sse';

/** True for a subscription, or a query whose operation carries the @live directive. */
export function isStreamed(operation: Operation): boolean {
  if (operation.kind === 'subscription') return true;
  if (operation.kind !== 'query') return false;
  return operation.query.definitions.some(
    (definition) =>
      definition.kind === 'OperationDefinition' &&
      (definition.directives ?? []).some((directive) => directive.name.value === 'live'),
  );
}

export interface GatewayClientOptions {
  /** The gateway's base URL, such as http://127.0.0.1:4000; '' for the page's own origin. */
  apiUrl: string;
  /** The bearer token to send, if any. */
  token(): string | undefined;
  /** A stream ended: the server closed it (its token expired, it shut down) or it failed (`error`); not one the page ended. */
  onStreamEnd?(error?: unknown): void;
}

export function createGatewayClient({ apiUrl, token, onStreamEnd }: GatewayClientOptions): Client {
  const url = `${apiUrl.replace(/\/+$/, '')}/graphql`;
  const authorization = (): Record<string, string> => {
    const value = token();
    return value ? { authorization: `Bearer ${value}` } : {};
  };
  const sse = createSseClient({ url, singleConnection: false, headers: authorization });
  return new Client({
    url,
    fetchOptions: () => ({ headers: authorization() }),
    exchanges: [
      subscriptionExchange({
        isSubscriptionOperation: isStreamed,
        forwardSubscription: (request) => ({
          subscribe: (sink) => {
            // A stream the page ends itself (a new order or filter starts another) is no end to report.
            let ended = false;
            const dispose = sse.subscribe<Record<string, unknown>, Record<string, unknown>>(
              { ...request, query: request.query ?? '' },
              {
                next: (result) => sink.next(result),
                error: (error) => {
                  sink.error(error);
                  if (!ended) onStreamEnd?.(error);
                },
                complete: () => {
                  sink.complete();
                  if (!ended) onStreamEnd?.();
                },
              },
            );
            return {
              unsubscribe: () => {
                ended = true;
                dispose();
              },
            };
          },
        }),
      }),
      fetchExchange,
    ],
  });
}
