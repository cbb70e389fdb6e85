// OpenTelemetry traces (docs/observability.md "Traces"), configured only by the standard OTEL_* variables and off when no OTLP
// endpoint is set. The SDK and the OTLP/HTTP exporter are OpenTelemetry's; the spans are ours, made where the work
// happens (no monkey-patching of modules, which ESM makes fragile):
// - one SERVER span per HTTP request, continuing an incoming W3C `traceparent` (src/http/doors.ts);
// - GraphQL parse, validate and execute (graphqlSpans, an envelop plugin);
// - each SQL query (traceQuery, from Kysely's log hook; the statement text, never its values);
// - each webhook delivery attempt (src/events/worker.ts).
// Log lines written while a span is active carry its trace_id and span_id (src/core/logger.ts).
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const tracer = trace.getTracer('campaign-gateway');

export interface Tracing {
  /** Sends the spans not yet exported (tests; shutdown does it too). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
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
 * tracing off (the default) they would hold ~6 MB of heap and ~20 MB of memory for nothing (bench/README.md, "Memory").
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | null> {
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
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** Ends `span` with the outcome of `work`. */
export async function inSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), work);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
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

/** Spans for GraphQL's phases, on both doors (the REST door runs the same pipeline). */
export const graphqlSpans: Plugin = {
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
    const operation = getOperationAST(args.document, args.operationName);
    const span = tracer.startSpan('graphql.execute', {
      attributes: {
        'graphql.operation.type': operation?.operation ?? '',
        ...(operation?.name ? { 'graphql.operation.name': operation.name.value.slice(0, 100) } : {}),
      },
    });
    return {
      onExecuteDone({ result }) {
        if ('errors' in result && result.errors?.length) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  },
};
