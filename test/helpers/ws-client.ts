// GraphQL over WebSocket (graphql-transport-ws) against an app served on a loopback port, for tests of that door:
// `wsDoor(t)` serves the app and opens clients that authenticate with a bearer token.
import { createClient, type Client, type FormattedExecutionResult, type SubscribePayload } from 'graphql-ws';
import WebSocket from 'ws';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import type { TestApp } from './app.js';

export interface WsDoor {
  http: HttpServer;
  port: number;
  /** A client of the door that connects with `Authorization: Bearer <token>` and never retries. */
  client(token: string): Client;
  /** Disposes the clients it opened and closes the server (not the app). */
  close(): Promise<void>;
}

/** A result as a test reads it: data, or GraphQL errors with their extensions. */
export type WsResult = FormattedExecutionResult<any, unknown>;

export async function wsDoor(t: TestApp): Promise<WsDoor> {
  const http = createHttpServer(t.app);
  const { port } = await listen(http.server, 0, '127.0.0.1');
  const clients: Client[] = [];
  return {
    http,
    port,
    client(token) {
      const client = createClient({
        url: `ws://127.0.0.1:${port}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { authorization: `Bearer ${token}` },
      });
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients.splice(0)) await client.dispose();
      http.server.closeAllConnections();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
    },
  };
}

/** Every result of one operation until it completes; an operation the server refuses gives one result of its errors. */
export async function allResults(client: Client, request: SubscribePayload): Promise<WsResult[]> {
  const results: WsResult[] = [];
  try {
    for await (const result of client.iterate(request)) results.push(result);
  } catch (errors) {
    results.push({ errors: errors as WsResult['errors'] });
  }
  return results;
}
