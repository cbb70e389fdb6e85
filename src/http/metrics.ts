// Prometheus metrics at /metrics (docs/observability.md "Metrics"), with prom-client and yoga's Prometheus plugin:
// - GraphQL phase durations (parse, validate, context, execute, subscribe) and whole-operation durations, as
//   histograms by operation name and type (yoga/envelop plugin);
// - every HTTP request by door, route, method and status (REST by its legacy path template), and errors by code;
// - webhook deliveries: the outbox backlog and each attempt's outcome; live subscription streams; @live queries (open,
//   executions and their time, refusals);
// - the process (CPU, memory, event-loop lag, GC), from prom-client.
// Every label takes values from a bounded set: operation names are client text, so only the first
// MAX_OPERATION_NAMES distinct ones get their own label value; the rest are counted as "other".
import { Response } from '../core/fetch-api.js';
import { timingSafeEqual } from 'node:crypto';
import { createHistogram, usePrometheus } from '@graphql-yoga/plugin-prometheus';
import type { Plugin } from 'graphql-yoga';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../core/config.js';
import { planStats } from '../graphql/server/compiled-plans.js';
import { methodNotAllowed } from './refusal.js';
import type { Door } from './way.js';

export const METRICS_PATH = '/metrics';
export const MAX_OPERATION_NAMES = 100;
const OTHER = 'other';

/** Client-chosen label values, bounded: the first `max` distinct ones are kept, the rest are OTHER. */
export function boundedLabel(max: number): (value: string | undefined) => string {
  const seen = new Set<string>();
  return (value) => {
    const label = value ?? '';
    if (seen.has(label)) return label;
    if (seen.size >= max) return OTHER;
    seen.add(label);
    return label;
  };
}

export interface MetricsSources {
  /** Deliveries waiting to be sent or retried (the outbox backlog). */
  pendingDeliveries(): Promise<number>;
  /** Live streams open on this instance (each bound to its token's lifetime). */
  openStreams(): number;
  /** WebSocket connections open on this instance. */
  openWebSockets(): number;
  /** `@live` queries open on this instance. */
  openLiveQueries(): number;
  /** How long the longest-waiting due delivery has waited, in seconds (0: none). */
  oldestDueDelivery(): Promise<number>;
  /** PostgreSQL's pool: connections open, idle, and requests waiting for one (null on SQLite). */
  pool(): { open: number; idle: number; waiting: number } | null;
  /** Whether Redis is connected (null without REDIS_URL). */
  redisConnected(): boolean | null;
  /** With databaseAnswers, what /readyz would answer: no shutdown has begun, and the database answers. */
  draining(): boolean;
  databaseAnswers(): Promise<boolean>;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

export interface Metrics {
  registry: Registry;
  /** yoga's Prometheus plugin on this registry, with bounded operation names. */
  yogaPlugin(): Plugin;
  /** One finished HTTP request: `route` is a bounded label (a template, never a raw path). */
  observeRequest(door: string, route: string, method: string, status: number, seconds: number): void;
  /**
   * One finished request that ran a GraphQL operation, on any door and path (yoga, the prepared lane, REST's routes,
   * MCP's tools): `name` is the operation's name in its document ('' unnamed), a bounded label.
   */
  observeOperation(door: string, name: string, type: string, seconds: number): void;
  /** The error codes a request answered with (both doors). */
  countErrors(door: string, codes: readonly string[]): void;
  /** An attempt's outcome; a delivered one with its lag (from its event's commit, in seconds). */
  deliveryAttempt(outcome: DeliveryOutcome, lagSeconds?: number): void;
  /** One execution of a live query: its first, or a re-execution after a change. */
  liveQueryExecution(seconds: number, first: boolean): void;
  /** A live query refused: over the account's cap, or sent without a stream to answer on. */
  liveQueryRefused(reason: 'limit' | 'transport'): void;
  /** The /metrics answer: 404 when METRICS is off, 401 without the METRICS_TOKEN when one is set. */
  serve(request: Request): Promise<Response>;
  /** Whether `request` carries the METRICS_TOKEN (false when none is set). */
  scraper(request: Request): boolean;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function tokenMatches(header: string | null, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** How long a value read from the database for /metrics is reused: scrapes cost at most that many queries. */
const DATABASE_GAUGE_MS = 1000;

/**
 * A value read from the database for a gauge: reused for DATABASE_GAUGE_MS (a scrape carrying the METRICS_TOKEN passes
 * no limit, so scrapes in a loop cost no more queries than one a second), and `failed` while the database does not
 * answer — a scrape during an outage still answers, with the gauges that need no database.
 */
function fromDatabase<T>(read: () => Promise<T>, failed: T): () => Promise<T> {
  let kept: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = performance.now();
    if (!kept || now - kept.at > DATABASE_GAUGE_MS) {
      const value = read().catch(() => failed);
      kept = { at: now, value };
      // A failure is not kept: the next scrape asks again.
      void value.then((result) => {
        if (Object.is(result, failed) && kept?.value === value) kept = null;
      });
    }
    return kept.value;
  };
}

export function createMetrics(config: Pick<Config, 'METRICS' | 'METRICS_TOKEN'>, sources: MetricsSources): Metrics {
  const registry = new Registry();
  const pendingDeliveries = fromDatabase(() => sources.pendingDeliveries(), Number.NaN);
  const oldestDueDelivery = fromDatabase(() => sources.oldestDueDelivery(), Number.NaN);
  const databaseAnswers = fromDatabase(() => sources.databaseAnswers(), false);
  if (config.METRICS) collectDefaultMetrics({ register: registry });

  const http = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP requests by door (graphql, rest, mcp, health, other), route, method and status',
    labelNames: ['door', 'route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'gateway_errors_total',
    help: 'Errors answered, by door and code (BAD_USER_INPUT, UNAUTHENTICATED, NOT_FOUND, ...)',
    labelNames: ['door', 'code'] as const,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'gateway_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (to be tried again), failed (given up)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'gateway_webhook_deliveries_pending',
    help: 'Webhook deliveries waiting to be sent or retried (the outbox backlog)',
    registers: [registry],
    async collect() {
      this.set(await pendingDeliveries());
    },
  });
  new Gauge({
    name: 'gateway_live_streams',
    help: 'Live streams open on this instance, each ended with its token: SSE and WebSocket subscriptions, live queries, WebSocket connections',
    registers: [registry],
    collect() {
      this.set(sources.openStreams());
    },
  });
  new Gauge({
    name: 'gateway_websocket_connections',
    help: 'GraphQL WebSocket connections open on this instance',
    registers: [registry],
    collect() {
      this.set(sources.openWebSockets());
    },
  });
  new Counter({
    name: 'gateway_graphql_compiled_plan_requests_total',
    help:
      'Whole queries whose document a compiled plan covers, by outcome: served (the plan answered) or declined ' +
      '(graphql-jit answered: an error, a null in a non-null field); docs/graphql-internals.md "Compiled plans"',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.labels('served').inc(planStats.served);
      this.labels('declined').inc(planStats.declined);
    },
  });
  new Gauge({
    name: 'gateway_live_queries',
    help: '@live queries open on this instance',
    registers: [registry],
    collect() {
      this.set(sources.openLiveQueries());
    },
  });
  const deliveryLag = new Histogram({
    name: 'gateway_webhook_delivery_lag_seconds',
    help: "Webhook deliveries delivered, by the time from their event to the receiver's 2xx (retries included)",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200],
    registers: [registry],
  });
  new Gauge({
    name: 'gateway_webhook_oldest_due_seconds',
    help: 'How long the longest-waiting due webhook delivery has waited (0: none is due): the delivery lag',
    registers: [registry],
    async collect() {
      this.set(await oldestDueDelivery());
    },
  });
  // Only where there is a pool (PostgreSQL) and a Redis (REDIS_URL): a gauge registered is a gauge answered.
  if (sources.pool()) {
    new Gauge({
      name: 'gateway_db_pool_connections',
      help: "PostgreSQL's connection pool on this instance: connections in use and idle (absent on SQLite)",
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const pool = sources.pool();
        this.set({ state: 'in_use' }, pool ? pool.open - pool.idle : 0);
        this.set({ state: 'idle' }, pool?.idle ?? 0);
      },
    });
    new Gauge({
      name: 'gateway_db_pool_waiting',
      help: 'Queries waiting for a PostgreSQL connection on this instance (absent on SQLite)',
      registers: [registry],
      collect() {
        this.set(sources.pool()?.waiting ?? 0);
      },
    });
  }
  if (sources.redisConnected() !== null) {
    new Gauge({
      name: 'gateway_redis_connected',
      help: 'Whether this instance is connected to Redis (1) or runs without it (0); absent without REDIS_URL',
      registers: [registry],
      collect() {
        this.set(sources.redisConnected() ? 1 : 0);
      },
    });
  }
  new Gauge({
    name: 'gateway_ready',
    help: 'What /readyz answers: 1 while the database answers and no shutdown has begun, else 0',
    registers: [registry],
    async collect() {
      this.set(!sources.draining() && (await databaseAnswers()) ? 1 : 0);
    },
  });
  const liveExecutions = new Counter({
    name: 'gateway_live_query_executions_total',
    help: '@live query executions: first (when opened) and re-executions (after a change it read)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const liveSeconds = new Counter({
    name: 'gateway_live_query_execution_seconds_total',
    help: 'Time spent executing @live queries (first executions and re-executions)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const liveRefused = new Counter({
    name: 'gateway_live_queries_refused_total',
    help: '@live queries refused: limit (the account holds LIVE_QUERIES_PER_ACCOUNT already), transport (no stream)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const errorCodes = boundedLabel(50);
  const operations = new Histogram({
    name: 'gateway_graphql_operation_duration_seconds',
    help:
      'Requests that ran a GraphQL operation, on every door and path (yoga, the prepared lane, REST routes, MCP tools), ' +
      'by door, operation name (anonymous: unnamed; other: past the first 100 names) and type',
    labelNames: ['door', 'operation_name', 'operation_type'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const operationName = boundedLabel(MAX_OPERATION_NAMES);

  function yogaPlugin(): Plugin {
    const operationName = boundedLabel(MAX_OPERATION_NAMES);
    const labels = (params: { operationName?: string; operationType?: string }) => ({
      operationName: operationName(params.operationName),
      operationType: params.operationType ?? '',
    });
    const phase = <P extends string>(name: string, help: string, phases: [P, ...P[]]) =>
      createHistogram({
        registry,
        histogram: { name, help, labelNames: ['operationName', 'operationType'] as const },
        fillLabelsFn: labels,
        phases,
      });
    return usePrometheus({
      registry,
      endpoint: false,
      skipIntrospection: true,
      metrics: {
        graphql_envelop_phase_parse: phase('graphql_envelop_phase_parse', 'Time to parse a document', ['parse']),
        graphql_envelop_phase_validate: phase('graphql_envelop_phase_validate', 'Time to validate a document', [
          'validate',
        ]),
        graphql_envelop_phase_context: phase('graphql_envelop_phase_context', 'Time to build the context', ['context']),
        graphql_envelop_phase_execute: phase('graphql_envelop_phase_execute', 'Time to execute an operation', [
          'execute',
        ]),
        graphql_envelop_phase_subscribe: phase('graphql_envelop_phase_subscribe', 'Time to set up a subscription', [
          'subscribe',
        ]),
        graphql_envelop_request_duration: phase(
          'graphql_envelop_request_duration',
          'Time of a whole operation, parse to result',
          ['execute', 'subscribe'],
        ),
        // Left out: per-request counters and summaries that repeat the histograms, the HTTP histogram (ours covers
        // both doors), and the error and deprecated-field counters (their labels include field paths: unbounded).
        graphql_envelop_request: false,
        graphql_envelop_request_time_summary: false,
        graphql_envelop_error_result: false,
        graphql_envelop_deprecated_field: false,
        graphql_envelop_schema_change: false,
        graphql_yoga_http_duration: false,
      },
    });
  }

  return {
    registry,
    yogaPlugin,
    observeRequest(door, route, method, status, seconds) {
      http.observe(
        { door, route, method: KNOWN_METHODS.has(method) ? method : OTHER, status: String(status) },
        seconds,
      );
    },
    observeOperation(door, name, type, seconds) {
      operations.observe(
        { door, operation_name: name === '' ? 'anonymous' : operationName(name), operation_type: type },
        seconds,
      );
    },
    countErrors(door, codes) {
      for (const code of codes) errors.inc({ door, code: errorCodes(code) });
    },
    deliveryAttempt(outcome, lagSeconds) {
      deliveries.inc({ outcome });
      if (lagSeconds !== undefined) deliveryLag.observe(lagSeconds);
    },
    liveQueryExecution(seconds, first) {
      const kind = first ? 'first' : 'reexecution';
      liveExecutions.inc({ kind });
      liveSeconds.inc({ kind }, seconds);
    },
    liveQueryRefused(reason) {
      liveRefused.inc({ reason });
    },
    scraper(request) {
      return (
        Boolean(config.METRICS && config.METRICS_TOKEN) &&
        tokenMatches(request.headers.get('authorization'), config.METRICS_TOKEN ?? '')
      );
    },
    async serve(request) {
      if (!config.METRICS) return new Response('Not Found', { status: 404 });
      if (config.METRICS_TOKEN && !tokenMatches(request.headers.get('authorization'), config.METRICS_TOKEN)) {
        return new Response('Unauthorized', { status: 401, headers: { 'www-authenticate': 'Bearer' } });
      }
      return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
    },
  };
}

/**
 * /metrics as a door: scraped by Prometheus, answered before the body limit; rate limited as any anonymous request,
 * except a GET with the METRICS_TOKEN, answered before any limit.
 */
export function metricsDoor(metrics: Metrics): Door {
  const wrongMethod = () => methodNotAllowed(true, 'GET');
  return {
    name: 'metrics',
    rest: true,
    limited: true,
    exempt: ({ received }) => received.method === 'GET' && metrics.scraper(received),
    readsBody: false,
    audience: null,
    unknownMethod: wrongMethod,
    refusal: (response) => response,
    serve: ({ received }) => (received.method === 'GET' ? metrics.serve(received) : wrongMethod()),
  };
}
