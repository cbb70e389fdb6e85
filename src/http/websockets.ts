// GraphQL over WebSocket (docs/graphql-api.md "Subscriptions over WebSocket"): the graphql-transport-ws protocol (graphql-ws), on
// /graphql beside SSE, running operations through yoga's enveloped pipeline (the same context, limits, masking and
// resolvers; subscriptions use the same Redis fan-out). The bearer token comes in `connection_init`
// (`{"authorization": "Bearer <token>"}`); a connection ends (close 4403) when that token expires or is revoked,
// and (1001) when the server shuts down. At most MAX_CONNECTIONS_PER_ACCOUNT connections per account and
// MAX_SUBSCRIPTIONS_PER_CONNECTION operations at once per connection.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import { CloseCode, type OperationResult } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { AUTH_FAILURE_MESSAGES, authenticateRequest } from '../authentication.js';
import { type Services } from '../services.js';
import type { Yoga } from '../graphql/server/yoga.js';
import type { Account } from '../domain/accounts.js';
import { clientAddressOf } from './client-address.js';
import { runAtWork } from '../core/request-context.js';
import { FOREVER } from '../events/live-streams.js';

export const MAX_CONNECTIONS_PER_ACCOUNT = 10;
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 20;
/** A client message (a subscribe with its document and variables) is at most this big. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** Close codes of our own (4400–4499 are the application's under graphql-ws). */
export const CLOSE_TOKEN_ENDED = 4403;
export const CLOSE_TOO_MANY_CONNECTIONS = 4429;
/** How long closing waits for the connections to be gone. */
const CLOSE_WAIT_MS = 1000;

export interface WebSocketDoor {
  /** For node:http's `upgrade` event: takes /graphql upgrades of the graphql-transport-ws protocol. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Shutdown: every connection closes (1001) and no new one is taken. Resolves once they have closed and their
   * subscriptions have ended (at most CLOSE_WAIT_MS), so that the Redis connections are closed after the last
   * UNSUBSCRIBE went out.
   */
  closeAll(): Promise<void>;
  readonly open: number;
}

interface ConnectionState {
  viewer: Account;
  tokenExpiresAt: number | undefined;
  /** Opened with a read-only access token: mutations are refused. */
  readOnly: boolean;
  /** Opened with a named access token: its id. */
  accessTokenId: string | undefined;
  /** The Authorization value of connection_init: live queries check it again before each re-execution. */
  credential: string;
  clientAddress: string;
  /** Ends the watch on the token's lifetime (when the socket closes first). */
  stopWatching(): void;
}

export function createWebSocketDoor(yoga: Yoga, services: Services): WebSocketDoor {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const states = new WeakMap<WebSocket, ConnectionState>();
  const perAccount = new Map<string, number>();
  let closing = false;

  /** Closes the socket when its token expires or is revoked (4403), or at shutdown (1001). */
  function watchLifetime(
    socket: WebSocket,
    viewer: Account,
    expiresAt: number | undefined,
    accessTokenId: string | undefined,
  ): () => void {
    const bound = services.streams.bound(FOREVER, {
      accountId: viewer.id,
      tokenVersion: viewer.tokenVersion,
      expiresAt,
      ...(accessTokenId ? { accessTokenId } : {}),
    });
    const lifetime = bound[Symbol.asyncIterator]();
    let watching = true;
    void lifetime.next().then(() => {
      if (!watching) return;
      watching = false;
      if (closing) socket.close(1001, 'Server shutting down');
      else socket.close(CLOSE_TOKEN_ENDED, 'The access token expired or was revoked');
    });
    return () => {
      if (!watching) return;
      watching = false;
      void lifetime.return?.();
    };
  }

  useServer<Record<string, unknown>, { socket: WebSocket; request: IncomingMessage }>(
    {
      connectionInitWaitTimeout: 5000,
      async onConnect(ctx) {
        const { socket, request } = ctx.extra;
        const given = ctx.connectionParams?.authorization;
        const auth = await authenticateRequest(services, typeof given === 'string' ? given : null);
        if (!auth.viewer) {
          socket.close(CloseCode.Forbidden, AUTH_FAILURE_MESSAGES[auth.authFailure ?? 'missing']);
          return false;
        }
        const count = perAccount.get(auth.viewer.id) ?? 0;
        if (count >= MAX_CONNECTIONS_PER_ACCOUNT) {
          socket.close(CLOSE_TOO_MANY_CONNECTIONS, `At most ${MAX_CONNECTIONS_PER_ACCOUNT} connections per account`);
          return false;
        }
        perAccount.set(auth.viewer.id, count + 1);
        const clientAddress = clientAddressOf(
          new Request('http://websocket.local/', { headers: request.headers as Record<string, string> }),
          request.socket.remoteAddress,
          services.config.TRUST_PROXY,
        );
        states.set(socket, {
          viewer: auth.viewer,
          tokenExpiresAt: auth.tokenExpiresAt,
          readOnly: auth.readOnly === true,
          clientAddress,
          accessTokenId: auth.accessTokenId,
          credential: given as string,
          stopWatching: watchLifetime(socket, auth.viewer, auth.tokenExpiresAt, auth.accessTokenId),
        });
        return true;
      },
      onClose(ctx) {
        const state = states.get(ctx.extra.socket);
        if (!state) return;
        states.delete(ctx.extra.socket);
        state.stopWatching();
        const left = (perAccount.get(state.viewer.id) ?? 1) - 1;
        if (left > 0) perAccount.set(state.viewer.id, left);
        else perAccount.delete(state.viewer.id);
      },
      execute: (args) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
      async onSubscribe(ctx, _id, payload) {
        const state = states.get(ctx.extra.socket);
        if (!state) return [new GraphQLError('Not connected', { extensions: { code: 'UNAUTHENTICATED' } })];
        // graphql-ws has entered this operation among the connection's before asking us.
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
          return [
            new GraphQLError(`At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} operations at once on one connection`, {
              extensions: { code: 'RATE_LIMITED' },
            }),
          ];
        }
        // The account's work budget (src/security/work-budget.ts), as on every door: spent, the operation waits for
        // the client to try again; each execution (a subscription's set-up) is charged to the account.
        const tenant = `account:${state.viewer.id}`;
        const wait = services.work.wait(tenant);
        if (wait > 0) {
          const seconds = Math.max(1, Math.ceil(wait / 1000));
          return [
            new GraphQLError(
              `Too much work: at most ${services.config.WORK_BUDGET_MS_PER_MINUTE} ms per minute per account of ` +
                `handling time; try again in ${seconds} seconds`,
              { extensions: { code: 'RATE_LIMITED', retryAfter: seconds } },
            ),
          ];
        }
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          transport: 'websocket',
          viewer: state.viewer,
          authFailure: null,
          tokenExpiresAt: state.tokenExpiresAt,
          readOnly: state.readOnly,
          ...(state.accessTokenId ? { accessTokenId: state.accessTokenId } : {}),
          clientAddress: state.clientAddress,
          credential: state.credential,
          // What yoga's HTTP requests carry as `params`: a live query's patch extension is read there.
          params: payload,
        });
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError('The document could not be parsed')];
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        const args: ExecutionArgs = {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await contextFactory(),
          rootValue: { execute: charged(execute, tenant), subscribe: charged(subscribe, tenant) } satisfies Enveloped,
        };
        return args;
      },
    },
    server,
  );

  /** An execution measured from its start to its result (a subscription: to its stream's start), charged to `tenant`. */
  function charged(run: Enveloped['execute'], tenant: string): Enveloped['execute'] {
    return (args) => {
      const mark = services.work.begin();
      const settle = () => services.work.charge(tenant, services.work.end(mark));
      let result: OperationResult;
      try {
        result = runAtWork(mark, () => run(args));
      } catch (error) {
        settle();
        throw error;
      }
      if (typeof (result as { then?: unknown }).then !== 'function') {
        settle();
        return result;
      }
      return Promise.resolve(result).finally(settle);
    };
  }

  return {
    handleUpgrade(request, socket, head) {
      const protocols = request.headers['sec-websocket-protocol'] ?? '';
      if (closing || !request.url?.startsWith('/graphql') || !protocols.includes('graphql-transport-ws')) {
        socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
        return;
      }
      server.handleUpgrade(request, socket, head, (ws) => {
        // A client's protocol error (a bad frame, a message over MAX_MESSAGE_BYTES): the ws library closes the socket
        // itself (1002, 1009); graphql-ws would print it to stderr as an internal error. Told once, at info.
        const emit = ws.emit.bind(ws);
        ws.emit = ((event: string | symbol, ...args: unknown[]) => {
          if (event !== 'error') return emit(event, ...args);
          const error = args[0] as (Error & { code?: string }) | undefined;
          services.logger.info(
            { code: error?.code, reason: error?.message },
            'WebSocket client error: connection closed',
          );
          return true;
        }) as typeof ws.emit;
        server.emit('connection', ws, request);
      });
    },
    async closeAll() {
      closing = true;
      for (const client of server.clients) client.close(1001, 'Server shutting down');
      const deadline = Date.now() + CLOSE_WAIT_MS;
      while (server.clients.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      // The subscriptions of the closed connections end on the next turns.
      await new Promise((resolve) => setTimeout(resolve, 10));
    },
    get open() {
      return server.clients.size;
    },
  };
}

/** yoga's enveloped execute and subscribe, handed to graphql-ws through the root value (as yoga documents). */
interface Enveloped {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
}
