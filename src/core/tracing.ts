// OpenTelemetry traces (docs/observability.md "Traces"), configured only by the standard OTEL_* variables and off when no OTLP
// endpoint is set. The SDK and the OTLP/HTTP exporter are OpenTelemetry's; the spans are ours, made where the work
// happens (no monkey-patching of modules, which ESM makes fragile):
// - one SERVER span per HTTP request, continuing an incoming W3C `traceparent` (src/http/doors.ts);
// - GraphQL parse, validate and execute (graphqlSpans, an envelop plugin); the execute span is the active one while the
//   operation runs, on every door and path (yoga, the prepared lane, REST, MCP, WebSocket), so its SQL nests in it;
// - each SQL query (traceQuery, from Kysely's log hook; the statement text, never its values);
// - each webhook delivery attempt (src/events/worker.ts), linked to the span that wrote its event (traceParentNow).
// Log lines written while a span is active carry its trace_id and span_id (src/core/logger.ts).
import {
  context,
  isSpanContextValid,
  propagation,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ConfigError } from './config.js';

/**
 * Our tracer, from the global provider of the moment. `trace.getTracer` once at import would keep the first provider
 * it delegated to for good, even after `shutdown` turned it off and another start registered a new one (tests start
 * tracing more than once in a process).
 */
let current: { provider: TracerProvider; tracer: Tracer } | undefined;
export const tracer: Pick<Tracer, 'startSpan'> = {
  startSpan(name, options, parent) {
    const provider = trace.getTracerProvider();
    if (current?.provider !== provider) current = { provider, tracer: provider.getTracer('campaign-gateway') };
    return current.tracer.startSpan(name, options, parent);
  },
};

export interface Tracing {
  /**
   * Sends the spans not yet exported (tests; shutdown does it too). Never rejects; gives up after the shutdown bound
   * (OTEL_SHUTDOWN_TIMEOUT_MS) when the collector does not answer.
   */
  flush(): Promise<void>;
  /**
   * Exports what is left and turns tracing off. Never rejects, and resolves within OTEL_SHUTDOWN_TIMEOUT_MS (or
   * `withinMs`, when smaller: what is left of a caller's own shutdown budget) even when the collector refuses
   * connections or accepts them and never answers: spans not exported by then are dropped.
   */
  shutdown(withinMs?: number): Promise<void>;
}

/** How long shutdown waits for the last spans to reach the collector, by default (OTEL_SHUTDOWN_TIMEOUT_MS). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 1000;
/**
 * The most OTEL_SHUTDOWN_TIMEOUT_MS may be: the whole shutdown has 5 s (src/main.ts, docs/limits.md "Shutdown"), most
 * of it for the requests in flight, and past it the process exits 1.
 */
export const MAX_SHUTDOWN_TIMEOUT_MS = 3000;

/**
 * OTEL_SHUTDOWN_TIMEOUT_MS (ours, not the specification's): a whole number of milliseconds from 0 to
 * MAX_SHUTDOWN_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS when unset or empty. Anything else is a start-up error
 * (ConfigError: one line, src/startup-errors.ts), whether or not traces are on.
 */
export function shutdownTimeoutMs(env: NodeJS.ProcessEnv): number {
  const given = env.OTEL_SHUTDOWN_TIMEOUT_MS?.trim();
  if (!given) return DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const ms = /^\d+$/.test(given) ? Number(given) : Number.NaN;
  if (!(ms <= MAX_SHUTDOWN_TIMEOUT_MS)) {
    throw new ConfigError(
      `Invalid configuration (see docs/observability.md "Traces"): OTEL_SHUTDOWN_TIMEOUT_MS=${JSON.stringify(given.slice(0, 100))} ` +
        `must be a whole number of milliseconds from 0 to ${MAX_SHUTDOWN_TIMEOUT_MS} (default ${DEFAULT_SHUTDOWN_TIMEOUT_MS}): ` +
        'how long shutdown waits for the collector',
    );
  }
  return ms;
}

/** `work`'s outcome ignored, given up after `ms`: resolves by then whatever `work` does (and never rejects). */
async function within(ms: number, work: () => Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms).unref();
  });
  const done = Promise.resolve()
    .then(work)
    .then(
      () => undefined,
      () => undefined,
    );
  await Promise.race([done, gaveUp]);
  clearTimeout(timer);
}

/** Whether the OTEL_* variables ask for traces: an OTLP endpoint, and not disabled. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts exporting traces when the environment asks for them (null otherwise). The exporter reads its endpoint,
 * headers and timeout from OTEL_EXPORTER_OTLP_*; OTEL_SERVICE_NAME names the service (campaign-gateway by default);
 * OTEL_TRACES_SAMPLER and OTEL_BSP_* are read by the SDK. The SDK and the exporter are loaded only then: with
 * tracing off (the default) they would hold ~6 MB of heap and ~20 MB of memory for nothing (bench/archive.md, "Memory").
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | null> {
  const boundMs = shutdownTimeoutMs(env);
  if (!tracingWanted(env)) return null;
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }] =
    await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-node'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'campaign-gateway' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The global provider, AsyncLocalStorage context and W3C trace-context propagation.
  provider.register();
  let stopped: Promise<void> | undefined;
  return {
    flush: () => within(boundMs, () => provider.forceFlush()),
    // The exporter's own timeout (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s) and its retries would hold an exiting process far
    // longer than a SIGTERM may take: whatever is not exported within the bound is dropped.
    shutdown: (withinMs = boundMs) =>
      (stopped ??= within(Math.max(0, Math.min(boundMs, withinMs)), () => provider.shutdown()).then(() => {
        trace.disable();
        context.disable();
        propagation.disable();
      })),
  };
}

/** Ends `span` with the outcome of `work`. */
export async function inSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), work);
  } catch (error) {
    markFailed(span, error instanceof Error ? error.message : String(error), error);
    throw error;
  } finally {
    span.end();
  }
}

/** A finished SQL statement as a span ending now (Kysely tells of a query once it has run). */
export function traceQuery(system: 'sqlite' | 'postgresql', sql: string, durationMs: number, failed: boolean): void {
  if (!trace.getActiveSpan()) return; // only within a traced request or delivery
  const end = Date.now();
  const span = tracer.startSpan('db.query', {
    kind: SpanKind.CLIENT,
    startTime: end - durationMs,
    attributes: { 'db.system.name': system, 'db.query.text': sql.slice(0, 2000) },
  });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
}

/** Execute spans (graphqlSpans), so that onExecute names the span it made and not the request's. */
const executeSpans = new WeakSet<Span>();

/** Ends the execute span once the operation's execution has ended (a promise settled, or at once). */
function endAfter(span: Span, run: () => PromiseLike<void> | void): Promise<void> | void {
  const failed = (error: unknown): never => {
    markFailed(span, error instanceof Error ? error.message : String(error), error);
    span.end();
    throw error;
  };
  let running: PromiseLike<void> | void;
  try {
    running = run();
  } catch (error) {
    return failed(error);
  }
  if (typeof (running as PromiseLike<void> | undefined)?.then !== 'function') return span.end();
  return Promise.resolve(running).then(() => span.end(), failed);
}

/**
 * Spans for GraphQL's phases, on every door (the REST door, MCP and WebSocket run the same pipeline, and the prepared
 * lane yoga's enveloped execute). The execute span wraps the whole execute phase (envelop's instrumentation: its
 * onExecute hooks, graphql-jit's compiled query or graphql-js) and is the active span meanwhile, so what the resolvers
 * do (SQL queries: traceQuery; events they write: traceParentNow) is its child.
 */
export const graphqlSpans: Plugin = {
  instrumentation: {
    execute: (_payload, wrapped) => {
      const span = tracer.startSpan('graphql.execute');
      executeSpans.add(span);
      return endAfter(span, () => context.with(trace.setSpan(context.active(), span), wrapped));
    },
  },
  onParse() {
    const span = tracer.startSpan('graphql.parse');
    return ({ result }) => {
      if (result instanceof Error) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
  },
  onValidate() {
    const span = tracer.startSpan('graphql.validate');
    return ({ valid }) => {
      if (!valid) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
  },
  onExecute({ args }) {
    const span = trace.getActiveSpan();
    if (!span || !executeSpans.has(span)) return undefined;
    const operation = getOperationAST(args.document, args.operationName);
    span.setAttribute('graphql.operation.type', operation?.operation ?? '');
    if (operation?.name) span.setAttribute('graphql.operation.name', operation.name.value.slice(0, 100));
    return {
      onExecuteDone({ result }) {
        if ('errors' in result && result.errors?.length) span.setStatus({ code: SpanStatusCode.ERROR });
      },
    };
  },
};

/**
 * The W3C `traceparent` of the span active now (the request's execution writing an event), or null outside traced
 * work: stored with an event (src/domain/events.ts), so that each delivery attempt, however much later, links to it.
 */
export function traceParentNow(): string | null {
  const span = trace.getActiveSpan();
  if (!span) return null;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!isSpanContextValid({ traceId, spanId, traceFlags })) return null;
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a stored `traceparent` names (marked remote: it is another process's, or another time's), or null. */
export function spanContextOf(traceParent: string | null | undefined): SpanContext | null {
  const parts = traceParent ? TRACE_PARENT.exec(traceParent) : null;
  if (!parts) return null;
  const spanContext = { traceId: parts[1]!, spanId: parts[2]!, traceFlags: parseInt(parts[3]!, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : null;
}

/**
 * Marks `span` failed with `reason` (its status message: 'ECONNREFUSED', 'timeout after 10 s', 'HTTP 500'), and
 * records `error` as an exception event when there is one (a network error: its type, message and stack).
 */
export function markFailed(span: Span | undefined, reason: string, error?: unknown): void {
  if (!span) return;
  if (error !== undefined) span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}
