// Serves the app's fetch handler over node:http, and shuts down without dropping accepted requests.
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import { Server as NetServer } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { isClientAbort } from '../core/client-abort.js';
import { Response } from '../core/fetch-api.js';
import { lightRequest, takesLight, writeResponse } from './light-request.js';
import { duplicateHeaderProblem } from './duplicate-headers.js';
import { requestTargetProblem } from './request-target.js';
import type { WebSocketDoor } from './websockets.js';

/** What the listener serves: the app (src/app.ts) as the HTTP layer sees it. */
export interface ServedApp {
  /** `client.address`: the socket's peer address; `client.target`: the request target as sent. */
  fetch(request: Request, client?: { address?: string; target?: string }): Promise<Response>;
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
/** A body declared larger than 64 KiB, or of no declared length (chunked): one worth not receiving for nothing. */
const largeBody = (req: IncomingMessage) => {
  const length = req.headers['content-length'];
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : Number(length) > 64 * 1024;
};

function withReasonPhrase(req: IncomingMessage, res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    // A refusal sent before the request's body has all arrived (a 413, a 429 before the body is read): the connection
    // is closed after it rather than kept, so that the rest of a large body is not received and thrown away here —
    // work a refused client would otherwise make the server do for nothing (issue 52).
    if (status >= 400 && !req.complete && largeBody(req)) res.setHeader('connection', 'close');
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
    const request = lightRequest(req, res);
    await writeResponse(res, await app.fetch(request, { address: req.socket.remoteAddress, target: req.url }));
  } catch (error) {
    // The client went away (the doors have logged its 499): nothing to answer, nothing to report.
    if (isClientAbort(error) || req.socket.destroyed) return void res.destroy();
    unexpected(app, res, error, true);
  }
}

/**
 * An error thrown past every door: 500 with a JSON body and no detail (never a stack, whatever NODE_ENV says), told
 * once at error.
 */
function unexpected(app: ServedApp, res: ServerResponse, error: unknown, graphql: boolean): void {
  app.logger?.error?.({ err: error }, 'unexpected error past every door');
  if (res.headersSent) return void res.destroy();
  res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
  res.end(
    JSON.stringify(graphql ? { errors: [{ message: 'Unexpected error.' }] } : { detail: 'Internal Server Error' }),
  );
}

/** The listener's timeouts (docs/limits.md; src/core/config.ts HTTP_*_TIMEOUT_SECONDS). */
export interface ListenerTimeouts {
  /** The request's headers must have arrived within this (Node's headersTimeout). */
  headersMs: number;
  /** The whole request, body included, must have arrived within this (Node's requestTimeout). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: ListenerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

/** How long a keep-alive connection idle at shutdown may still bring a request. */
const IDLE_GRACE_MS = 1000;

export function createHttpServer(app: ServedApp, timeouts: ListenerTimeouts = DEFAULT_TIMEOUTS): HttpServer {
  const adapter = createServerAdapter<{ req: IncomingMessage }>(async (request, context) => {
    try {
      return await app.fetch(request, { address: context.req.socket.remoteAddress, target: context.req.url });
    } catch (error) {
      // Answered here, not by the adapter (whose own answer carries the stack outside production).
      if (!isClientAbort(error)) app.logger?.error?.({ err: error }, 'unexpected error past every door');
      return new Response(JSON.stringify({ detail: 'Internal Server Error' }), {
        status: 500,
        headers: { 'content-type': 'application/json' },
      });
    }
  });
  // How often Node checks the headers and request timeouts (its default, 30 s, lets a 10 s timeout run to 40 s).
  const checkEvery = Math.max(250, Math.min(1000, timeouts.headersMs / 2, timeouts.requestMs / 2));
  const server = createServer({ connectionsCheckingInterval: checkEvery }, (req, res) => {
    if (app.draining) res.setHeader('connection', 'close');
    withReasonPhrase(req, res);
    const problem = duplicateHeaderProblem(req.rawHeaders) ?? requestTargetProblem(req.headers.host, req.url);
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
    void Promise.resolve(adapter(req, res)).catch((error: unknown) => unexpected(app, res, error, false));
  });
  // GraphQL over WebSocket on /graphql (graphql-transport-ws); other upgrades are refused.
  server.on('upgrade', (req, socket, head) => {
    const problem = duplicateHeaderProblem(req.rawHeaders) ?? requestTargetProblem(req.headers.host, req.url);
    if (!problem) return app.websockets.handleUpgrade(req, socket, head);
    refuseTarget(app, req, problem);
    socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  // Production timeouts (Node's defaults hold a partial request for 300 s): headers within `headersMs`, the whole
  // request within `requestMs`, an idle keep-alive connection closed after `keepAliveMs`. Node answers 408 and closes.
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  server.keepAliveTimeout = timeouts.keepAliveMs;
  // A connection that sends a malformed request, or goes away mid-request: Node's own 400 (or nothing), told at info.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // A client that went away mid-request is told by its 499 access line already; anything malformed at info.
    const gone = error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE';
    if (!gone) app.logger?.info({ code: error.code, reason: error.message }, 'client connection error');
    if (socket.writable && !socket.destroyed && error.code !== 'ECONNRESET') {
      const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    } else socket.destroy();
  });

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
