// The three doors behind one fetch handler: health checks, the REST compatibility router (with its docs) under
// /api/v3, and GraphQL at /graphql. Every request gets a request id (on its log lines and echoed back), the
// per-account rate limit and the 1 MiB body limit before it reaches a door, and one access-log line.
import { Response } from '../core/fetch-api.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/availability.js';
import { requestAuth } from '../authentication.js';
import { type Services } from '../services.js';
import { handBody, serveGraphQL, type Yoga } from '../graphql/server/yoga.js';
import type { PreparedLane } from '../graphql/lane/prepared-lane.js';
import { compareWithYoga } from './lane-shadow.js';
import { markShadowCopy } from '../graphql/server/shadow-copies.js';
import { realRequest } from './light-request.js';
import type { DocsHandler } from '../rest/docs.js';
import { detailResponse } from '../rest/fastapi-errors.js';
import { type RestHandler, REST_PREFIX } from '../rest/router.js';
import { MCP_PATH, type McpDoor } from '../mcp/door.js';
import { asJsonRpcRefusal, ID_READ_MAX_BYTES, jsonRpcIdOf, refusedRequestId } from '../mcp/refusals.js';
import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';
import { ablated } from '../core/ablation.js';
import { tracer } from '../core/tracing.js';
import { isClientAbort } from '../core/client-abort.js';
import { limitBody } from './body-limit.js';
import { hasPathVariant } from './path-variants.js';
import { withETag } from './etag.js';
import { clientAddressOf } from './client-address.js';
import { HEALTH_PATHS } from './health.js';
import { bodyBudgetResponse, isSignedCallback, rateLimitResponse, tenantOf } from './rate-limit.js';
import { refuse } from './refusal.js';
import { METRICS_PATH, type Metrics } from './metrics.js';
import {
  currentErrorCodes,
  currentRoute,
  loggablePath,
  noteRoute,
  requestIdFor,
  runAsShadow,
  runWithRequestId,
  callbackCounted,
} from '../core/request-context.js';

export interface Doors {
  services: Services;
  /** Whether requests get spans (docs/observability.md "Traces"). */
  tracing: boolean;
  health(pathname: string): Promise<Response>;
  docs: DocsHandler;
  rest: RestHandler;
  yoga: Yoga;
  /** The prepared lane in front of yoga (src/graphql/lane/prepared-lane.ts), when it is on. */
  lane: PreparedLane | null;
  /** GRAPHQL_PREPARED_LANE=shadow: each lane answer is compared with yoga's (src/http/lane-shadow.ts). */
  shadow: boolean;
  /** The MCP door at /mcp (src/mcp/door.ts). */
  mcp: McpDoor;
  metrics: Metrics;
}

/** Which door a path goes through (a metrics label). */
function doorOf(pathname: string): string {
  if (pathname === REST_PREFIX || pathname.startsWith(`${REST_PREFIX}/`)) return 'rest';
  if (pathname === '/graphql') return 'graphql';
  if (pathname === MCP_PATH) return 'mcp';
  if (HEALTH_PATHS.has(pathname)) return 'health';
  if (pathname === METRICS_PATH) return 'metrics';
  return 'other';
}

/** The route label: the REST route template the router matched, or the door's one path (never a raw path). */
function routeOf(door: string, pathname: string): string {
  const matched = currentRoute();
  if (matched) return matched;
  if (door === 'rest') return 'unmatched';
  return door === 'other' ? 'other' : pathname;
}

/** yoga answers a few refusals (415, 405) with an empty body; clients get a JSON error like everywhere else. */
async function withErrorBody(response: Response): Promise<Response> {
  if (response.status < 400 || response.headers.get('content-type')) return response;
  await response.body?.cancel();
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'content-length'));
  const message = response.statusText || `HTTP ${response.status}`;
  return refuse(false, { status: response.status, message, code: 'BAD_REQUEST', headers });
}

/** The methods any door serves; any other (TRACE, CONNECT, WebDAV's, made-up ones) is answered 405 at once. */
const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const methodNotAllowed = (rest: boolean, allow: string) =>
  refuse(rest, {
    status: 405,
    message: 'Method Not Allowed',
    code: 'METHOD_NOT_ALLOWED',
    headers: { allow },
  });

/** The answer to a request whose client went away before it was read (nobody receives it; logged as 499). */
const clientClosed = () => new Response(null, { status: CLIENT_CLOSED_REQUEST });

const databaseUnavailable = (rest: boolean) =>
  refuse(rest, {
    status: 503,
    message: 'The service is temporarily unavailable; try again shortly',
    code: 'SERVICE_UNAVAILABLE',
    extensions: { retryAfter: DATABASE_RETRY_AFTER_SECONDS },
    headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  });

export function createDoors({
  services,
  tracing,
  health,
  docs,
  rest,
  yoga,
  lane,
  shadow,
  mcp,
  metrics,
}: Doors): (request: Request, socketAddress?: string, target?: string) => Promise<Response> {
  const { logger } = services;

  /** A request the lane answered, answered again by yoga (GRAPHQL_PREPARED_LANE=shadow): its own credential check. */
  const throughYoga = async (request: Request, clientAddress: string, body: unknown): Promise<Response> => {
    const copy = new Request(request.url, { method: request.method, headers: request.headers });
    markShadowCopy(copy);
    if (body !== undefined) handBody(copy, body);
    const auth = requestAuth(services, request.headers.get('authorization'), null);
    return withETag(copy, await withErrorBody(await serveGraphQL(yoga, copy, { clientAddress, auth })));
  };

  const route = async (received: Request, url: URL, clientAddress: string, target?: string): Promise<Response> => {
    const isRest = url.pathname === REST_PREFIX || url.pathname.startsWith(`${REST_PREFIX}/`);
    // A path that names a route only once normalised is not that route (src/http/path-variants.ts).
    if (target !== undefined && hasPathVariant(target)) return detailResponse(404, 'Not Found');
    if (HEALTH_PATHS.has(url.pathname)) {
      if (received.method === 'GET' || received.method === 'HEAD') return health(url.pathname);
      return methodNotAllowed(true, 'GET, HEAD');
    }
    if (!STANDARD_METHODS.has(received.method)) {
      // The REST router names the methods of each path (and answers 404 for a path it does not know); nothing reads
      // the body of such a request.
      if (isRest) return rest(received, url, clientAddress);
      if (url.pathname === MCP_PATH) {
        return asJsonRpcRefusal(methodNotAllowed(false, 'GET, POST, DELETE'), received, services.config);
      }
      if (url.pathname === '/graphql') return methodNotAllowed(false, 'GET, POST, OPTIONS');
      if (url.pathname === METRICS_PATH) return methodNotAllowed(true, 'GET');
      return detailResponse(404, 'Not Found');
    }
    const limiting = !ablated.has('rate-limit');
    // A token issued to an agent for /mcp is a credential there only (docs/mcp-oauth.md).
    const auth = requestAuth(services, received.headers.get('authorization'), url.pathname === MCP_PATH ? 'mcp' : null);
    const tenant = tenantOf(auth, clientAddress);
    // Refusals before the door, in the MCP door's JSON-RPC shape at /mcp.
    const refused = async (response: Response, body?: ArrayBuffer) =>
      url.pathname === MCP_PATH
        ? asJsonRpcRefusal(
            response,
            received,
            services.config,
            body ? jsonRpcIdOf(body) : await refusedRequestId(received),
          )
        : response;
    const signedCallback = isRest && !tenant.authenticated && isSignedCallback(received, url.pathname);
    const limited = limiting ? await rateLimitResponse(services, tenant, isRest, signedCallback) : null;
    if (limited) return refused(limited);
    // Scraped by Prometheus, rate limited as any request (a scrape counts the outbox backlog).
    if (url.pathname === METRICS_PATH) {
      return received.method === 'GET' ? metrics.serve(received) : methodNotAllowed(true, 'GET');
    }
    const request = ablated.has('body-limit') ? received : await limitBody(received, isRest);
    if (request instanceof Response) return refused(request);
    const bytes = Number(request.headers.get('content-length') ?? 0);
    const overBudget = limiting ? await bodyBudgetResponse(services, tenant, bytes, isRest) : null;
    if (overBudget) {
      // Read (not parsed: that is the expensive part) so the client sees the 429 instead of a cut connection.
      const body = await request.arrayBuffer();
      return refused(overBudget, body.byteLength <= ID_READ_MAX_BYTES ? body : undefined);
    }
    if (isRest) {
      if (request.method === 'GET') {
        const page = await docs(url.pathname);
        if (page) {
          noteRoute(url.pathname);
          return page;
        }
      }
      try {
        const answer = await rest(request, url, clientAddress, auth);
        // A request let through as a signed callback that was not one after all: its address pays (callback-budget.ts).
        if (limiting && signedCallback && !callbackCounted()) await services.limits.anonymousRequest(clientAddress);
        return answer;
      } catch (error) {
        if (isClientAbort(error) || received.signal.aborted) return clientClosed();
        if (services.availability.failed(error)) return databaseUnavailable(true);
        logger.error({ err: error, method: request.method }, 'unexpected error in a REST call');
        return detailResponse(500, 'Internal Server Error');
      }
    }
    if (url.pathname === MCP_PATH) {
      try {
        return await mcp(request, clientAddress, auth);
      } catch (error) {
        if (isClientAbort(error) || received.signal.aborted) return clientClosed();
        if (services.availability.failed(error)) return databaseUnavailable(false);
        throw error;
      }
    }
    if (url.pathname !== '/graphql') return detailResponse(404, 'Not Found');
    try {
      const facts = { clientAddress, auth };
      let toYoga = request;
      if (lane) {
        const laned = await lane.serve(request, facts);
        if ('answer' in laned) {
          const answer = await withETag(request, laned.answer);
          if (!shadow) return answer;
          return compareWithYoga(answer, () => runAsShadow(() => throughYoga(request, clientAddress, laned.body)));
        }
        // A request taken from node:http without the adapter (src/http/light-request.ts) becomes a real one for yoga.
        toYoga = await realRequest(laned.request);
      }
      if (ablated.has('door-wrappers')) return await serveGraphQL(yoga, toYoga, facts);
      return withETag(toYoga, await withErrorBody(await serveGraphQL(yoga, toYoga, facts)));
    } catch (error) {
      if (isClientAbort(error) || received.signal.aborted) return clientClosed();
      if (services.availability.failed(error)) return databaseUnavailable(false);
      throw error;
    }
  };

  return (request, socketAddress, target) => {
    const requestId = requestIdFor(request);
    const clientAddress = clientAddressOf(request, socketAddress, services.config.TRUST_PROXY);
    // A SERVER span per request, continuing the caller's W3C traceparent: only when tracing is on (even the
    // OpenTelemetry API's no-op context switch costs about 5 % of a request).
    const parent = tracing ? propagation.extract(ROOT_CONTEXT, request.headers, HEADERS) : null;
    const span = parent ? tracer.startSpan(request.method, { kind: SpanKind.SERVER }, parent) : NO_SPAN;
    const inSpan = <T>(work: () => T): T => (parent ? context.with(trace.setSpan(parent, span), work) : work());
    const observed = (work: () => Promise<Response>) =>
      ablated.has('request-context') ? work() : runWithRequestId(requestId, work);
    return observed(() =>
      inSpan(async () => {
        const started = performance.now();
        const url = new URL(request.url);
        let response: Response;
        try {
          response = await route(request, url, clientAddress, target);
        } catch (error) {
          // The client went away while its body was read (before any door's own handling): 499, nothing else.
          if (!isClientAbort(error) && !request.signal.aborted) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
            throw error;
          }
          response = clientClosed();
        }
        if (!ablated.has('door-wrappers')) response.headers.set('x-request-id', requestId);
        // The one line per request. Client mistakes (4xx, GraphQL error codes) are told here, at info, without
        // stacks; only the unexpected is logged at error, with its stack, where it happens.
        const door = doorOf(url.pathname);
        // REST answers its refusals itself (FastAPI bodies, no GraphQL error): its status names the code.
        const errors = currentErrorCodes() ?? (door === 'rest' ? restErrorCodes(response.status) : null);
        const routeLabel = routeOf(door, url.pathname);
        const path = loggablePath(url);
        // A client that went away before its answer was ready never sees it: 499, as proxies log it (the work itself
        // is not cancelled; docs/limits.md "Logs").
        const status = request.signal.aborted ? CLIENT_CLOSED_REQUEST : response.status;
        metrics.observeRequest(door, routeLabel, request.method, status, (performance.now() - started) / 1000);
        if (errors) metrics.countErrors(door, errors);
        span.updateName(`${request.method} ${routeLabel}`);
        span.setAttributes({
          'http.request.method': request.method,
          'http.route': routeLabel,
          'url.path': path,
          'http.response.status_code': status,
        });
        if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        logger.info(
          {
            method: request.method,
            path,
            status,
            ms: Math.round((performance.now() - started) * 10) / 10,
            ...(errors ? { errors } : {}),
          },
          'request',
        );
        return response;
      }),
    );
  };
}

/** The error code of a REST answer's status (docs/observability.md "Metrics": gateway_errors_total), null for a success. */
const REST_STATUS_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'BAD_USER_INPUT',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

function restErrorCodes(status: number): string[] | null {
  // A client that went away made no mistake the server could answer (docs/limits.md "Logs": status 499, no code).
  if (status < 400 || status === CLIENT_CLOSED_REQUEST) return null;
  return [REST_STATUS_CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST')];
}

/** The status logged and counted for a request whose client closed the connection before the answer (nginx's). */
const CLIENT_CLOSED_REQUEST = 499;

/** The span of a request while tracing is off. */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Reads a W3C traceparent/tracestate from fetch Headers. */
const HEADERS: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};
