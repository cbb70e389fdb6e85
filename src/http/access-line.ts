// Around every request: its request id (on its log lines and echoed back), its span when tracing is on, and at the end
// the one access line and the request metrics (docs/limits.md "Logs", docs/observability.md "Metrics"). Client
// mistakes (4xx, GraphQL error codes) are told here, at info, without stacks; only the unexpected is logged at error,
// with its stack, where it happens.
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
import { isClientAbort } from '../core/client-abort.js';
import {
  currentErrorCodes,
  currentOperation,
  currentRoute,
  loggablePath,
  requestIdFor,
  runWithRequestId,
} from '../core/request-context.js';
import { requestLineWriter } from '../core/logger.js';
import { tracer } from '../core/tracing.js';
import type { Services } from '../services.js';
import { clientAddressOf } from './client-address.js';
import type { Metrics } from './metrics.js';
import { CLIENT_CLOSED_REQUEST, clientClosed } from './refusal.js';
import type { Door } from './way.js';

export type FetchHandler = (request: Request, socketAddress?: string, target?: string) => Promise<Response>;

/** What the access line sees of a request: where it goes, then its answer. */
export type Routed = (
  request: Request,
  url: URL,
  door: Door,
  clientAddress: string,
  target: string | undefined,
) => Promise<Response>;

export function observed(
  { services, metrics, tracing }: { services: Services; metrics: Metrics; tracing: boolean },
  doorFor: (pathname: string) => Door,
  route: Routed,
): FetchHandler {
  // The line pino would write, formatted in one template (src/core/logger.ts).
  const accessLine = requestLineWriter(services.logger);
  return (request, socketAddress, target) => {
    const requestId = requestIdFor(request);
    const clientAddress = clientAddressOf(request, socketAddress, services.config.TRUST_PROXY);
    // A SERVER span per request, continuing the caller's W3C traceparent: only when tracing is on (even the
    // OpenTelemetry API's no-op context switch costs about 5 % of a request).
    const parent = tracing ? propagation.extract(ROOT_CONTEXT, request.headers, HEADERS) : null;
    const span = parent ? tracer.startSpan(request.method, { kind: SpanKind.SERVER }, parent) : NO_SPAN;
    const inSpan = <T>(work: () => T): T => (parent ? context.with(trace.setSpan(parent, span), work) : work());
    const observe = (work: () => Promise<Response>) =>
      ablated.has('request-context') ? work() : runWithRequestId(requestId, work);
    return observe(() =>
      inSpan(async () => {
        const started = performance.now();
        const url = new URL(request.url);
        const door = doorFor(url.pathname);
        let response: Response;
        try {
          response = await route(request, url, door, clientAddress, target);
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
        // REST answers its refusals itself (FastAPI bodies, no GraphQL error): its status names the code.
        const errors = currentErrorCodes() ?? (door.name === 'rest' ? restErrorCodes(response.status) : null);
        const routeLabel = routeOf(door, url.pathname);
        const path = loggablePath(url);
        // A client that went away before its answer was ready never sees it: 499, as proxies log it (the work itself
        // is not cancelled; docs/limits.md "Logs").
        const status = request.signal.aborted ? CLIENT_CLOSED_REQUEST : response.status;
        const seconds = (performance.now() - started) / 1000;
        metrics.observeRequest(door.name, routeLabel, request.method, status, seconds);
        if (errors) metrics.countErrors(door.name, errors);
        const operation = currentOperation();
        if (operation) metrics.observeOperation(door.name, operation.name, operation.type, seconds);
        span.updateName(`${request.method} ${routeLabel}`);
        span.setAttributes({
          'http.request.method': request.method,
          'http.route': routeLabel,
          'url.path': path,
          'http.response.status_code': status,
        });
        if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        accessLine({
          method: request.method,
          path,
          status,
          // The client's address as TRUST_PROXY resolves it (the socket's peer, or X-Forwarded-For's entry).
          client: clientAddress,
          ms: Math.round((performance.now() - started) * 10) / 10,
          errors,
        });
        return response;
      }),
    );
  };
}

/** The route label: the REST route template the router matched, or the door's one path (never a raw path). */
function routeOf(door: Door, pathname: string): string {
  const matched = currentRoute();
  if (matched) return matched;
  if (door.name === 'rest') return 'unmatched';
  return door.name === 'other' ? 'other' : pathname;
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

/** The span of a request while tracing is off. */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Reads a W3C traceparent/tracestate from fetch Headers. */
const HEADERS: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};
