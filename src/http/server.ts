// Serves the app's fetch handler over node:http, and shuts down without dropping accepted requests.
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import { Server as NetServer } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { lightRequest, takesLight, writeResponse } from './light-request.js';
import { requestTargetProblem } from './request-target.js';
import type { WebSocketDoor } from './websockets.js';

/** What the listener serves: the app (src/app.ts) as the HTTP layer sees it. */
export interface ServedApp {
  /** `client.address`: the socket's peer address. */
  fetch(request: Request, client?: { address?: string }): Promise<Response>;
  websockets: Pick<WebSocketDoor, 'handleUpgrade'>;
  /**
   * Whether GraphQL requests the prepared lane may answer go to `fetch` without the fetch-API adapter
   * (src/http/light-request.ts): only when the lane is on.
   */
  readonly lightGraphQL?: boolean;
  /** Set once shutdown begins: responses carry `Connection: close`. */
  readonly draining: boolean;
  /** The OAuth door (src/oauth/door.ts): a node:http handler, for the paths it claims. */
  oauth?: { handles(pathname: string): boolean; handle(req: IncomingMessage, res: ServerResponse): Promise<void> };
  /** Where a request refused before routing is told (at info: a client's mistake). */
  logger?: {
    info(fields: Record<string, unknown>, message: string): void;
    error?(fields: Record<string, unknown>, message: string): void;
  };
  drain(): void;
  close(): Promise<void>;
}

export interface HttpServer {
  server: Server;
  /**
   * Graceful shutdown: stops accepting connections, ends every live stream (SSE clients get `event: complete`),
   * answers the requests already received (each with `Connection: close`, so clients open no new ones here), closes
   * keep-alive connections that stay idle past IDLE_GRACE_MS, waits for the rest, then closes the app (the delivery
   * worker stops; the database closes). Resolves false if `timeoutMs` ran out first and connections had to be cut.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

/**
 * A fetch `Response` made without a `statusText` would go out as `HTTP/1.1 404 ` (the adapter passes the empty text
 * on); the legacy service's server, like most, sends the standard reason phrase (`404 Not Found`).
 */
function withReasonPhrase(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (rest.length === 0 || typeof rest[0] !== 'string') return writeHead(status, STATUS_CODES[status] ?? '', ...rest);
    if (rest[0] === '') return writeHead(status, STATUS_CODES[status] ?? '', ...rest.slice(1));
    return writeHead(status, ...rest);
  }) as ServerResponse['writeHead'];
}

/** One info line for a request refused before routing (what it named, cut short: it is the client's text). */
function refuseTarget(app: ServedApp, req: IncomingMessage, problem: string): void {
  app.logger?.info(
    { method: req.method, host: req.headers.host?.slice(0, 100), target: req.url?.slice(0, 100), status: 400 },
    problem,
  );
}

/** A GraphQL request from node:http to the app and back without the fetch-API adapter (src/http/light-request.ts). */
async function serveLight(app: ServedApp, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const request = await lightRequest(req, res);
    await writeResponse(res, await app.fetch(request, { address: req.socket.remoteAddress }));
  } catch (error) {
    // As the adapter answers an error thrown past every door: 500, told once.
    app.logger?.error?.({ err: error }, 'unexpected error answering a GraphQL request');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ errors: [{ message: 'Unexpected error.' }] }));
  }
}

/** How long a keep-alive connection idle at shutdown may still bring a request. */
const IDLE_GRACE_MS = 1000;

export function createHttpServer(app: ServedApp): HttpServer {
  const adapter = createServerAdapter<{ req: IncomingMessage }>((request, context) =>
    app.fetch(request, { address: context.req.socket.remoteAddress }),
  );
  const server = createServer((req, res) => {
    if (app.draining) res.setHeader('connection', 'close');
    withReasonPhrase(res);
    const problem = requestTargetProblem(req.headers.host, req.url);
    if (problem) {
      refuseTarget(app, req, problem);
      res.writeHead(400, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ detail: problem }));
      return;
    }
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    if (app.oauth?.handles(query === -1 ? url : url.slice(0, query))) {
      void app.oauth.handle(req, res);
      return;
    }
    if (app.lightGraphQL && takesLight(req)) {
      void serveLight(app, req, res);
      return;
    }
    void adapter(req, res);
  });
  // GraphQL over WebSocket on /graphql (graphql-transport-ws); other upgrades are refused.
  server.on('upgrade', (req, socket, head) => {
    const problem = requestTargetProblem(req.headers.host, req.url);
    if (!problem) return app.websockets.handleUpgrade(req, socket, head);
    refuseTarget(app, req, problem);
    socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  // Idle keep-alive connections end on their own this long after their last response.
  server.keepAliveTimeout = 5000;

  return {
    server,
    async shutdown(timeoutMs) {
      app.drain();
      const closed = new Promise<void>((resolve) => {
        // net.Server#close stops accepting and waits for every connection to end. http.Server#close would also
        // destroy the connections that look idle at this instant, racing a request a client is sending on one.
        NetServer.prototype.close.call(server, () => resolve());
      });
      // A connection idle since before the drain began gets no response to carry `Connection: close`; it would hold
      // the process until keepAliveTimeout. Past a short grace (for a request a client is just sending) it is closed.
      const idle = setTimeout(() => server.closeIdleConnections(), Math.min(IDLE_GRACE_MS, timeoutMs / 2)).unref();
      const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
      const outcome = await Promise.race([closed.then(() => 'closed' as const), timer]);
      clearTimeout(idle);
      if (outcome === 'timeout') server.closeAllConnections();
      await app.close();
      return outcome === 'closed';
    },
  };
}

export function listen(server: Server, port: number, host: string): Promise<{ port: number }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : port });
    });
  });
}
