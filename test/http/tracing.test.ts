// OpenTelemetry traces (docs/observability.md "Traces"): configured by the OTEL_* variables only, exported by OTLP/HTTP to a local
// collector here; a request's SERVER span continues its traceparent, GraphQL phases and SQL queries are spans of the
// same trace, the SQL a resolver runs is a child of its graphql.execute span on every path (yoga, the prepared lane,
// REST, MCP), a webhook delivery attempt is a span linked to the span that wrote its event, a failed attempt is an
// error saying why, and the request's log lines carry its trace id.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTracing, type Tracing, tracingWanted } from '../../src/core/tracing.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLegacyCampaign } from '../helpers/campaigns.js';
import { logCapture } from '../helpers/log-lines.js';
import { attachNewWebhook } from '../helpers/webhooks.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number; message?: string };
  events?: Array<{ name: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }>;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const OTEL_ENV = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_SERVICE_NAME: 'gateway-under-test' };

let collector: Server;
const exported: ExportedSpan[] = [];
let tracing: Tracing | null;
let t: TestApp;
let receiver: Receiver;
const saved: Record<string, string | undefined> = {};
let logs: ReturnType<typeof logCapture>;

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) exported.push(...(scope.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  OTEL_ENV.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  for (const [name, value] of Object.entries(OTEL_ENV)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  tracing = await startTracing(process.env);
  logs = logCapture();
  // The lane on (not the suite's shadow mode): a document's first request is yoga's, its repeats the lane's.
  t = await startApp(
    {
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      LOG_LEVEL: 'info',
      GRAPHQL_PREPARED_LANE: 'on',
      WEBHOOK_TIMEOUT_SECONDS: '2',
    },
    [],
    {
      worker: { pollMs: 20 },
      logStream: logs.stream,
    },
  );
  receiver = await startReceiver();
});

afterAll(async () => {
  await t.close();
  await receiver.close();
  await tracing?.shutdown();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise<void>((resolve) => collector.close(() => resolve()));
});

const attribute = (span: { attributes: ExportedSpan['attributes'] }, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

const lower = (id: string | undefined) => id?.toLowerCase();
let traces = 0;
/** A trace id of its own for each request a test sends. */
const newTraceId = () => `6bf92f3577b34da6a3ce929d0e0e${(traces++).toString(16).padStart(4, '0')}`;
const traceparent = (traceId: string) => `00-${traceId}-${PARENT_ID}-01`;
const ofTrace = (traceId: string) => exported.filter((span) => lower(span.traceId) === traceId);

/**
 * The trace's graphql.execute span, and its SQL statements reading `table`: each must be a child of that span (the
 * resolvers' queries; those of authentication, before execution, are the request's own SERVER span's).
 */
function executionAndItsQueries(traceId: string, table: string) {
  const spans = ofTrace(traceId);
  const names = JSON.stringify(spans.map((span) => span.name));
  const executes = spans.filter((span) => span.name === 'graphql.execute');
  expect(executes, names).toHaveLength(1);
  const execute = executes[0]!;
  const reads = spans.filter(
    (span) =>
      span.name === 'db.query' &&
      new RegExp(`(from|join) "?${table}"?`, 'i').test(String(attribute(span, 'db.query.text'))),
  );
  expect(reads.length, names).toBeGreaterThan(0);
  for (const read of reads)
    expect(lower(read.parentSpanId), String(attribute(read, 'db.query.text'))).toBe(lower(execute.spanId));
  // Every other statement is the execution's or the request's own (authentication, before execution): none is lost.
  const server = spans.find((span) => span.kind === 2);
  for (const query of spans.filter((span) => span.name === 'db.query')) {
    expect([lower(execute.spanId), lower(server?.spanId)], String(attribute(query, 'db.query.text'))).toContain(
      lower(query.parentSpanId),
    );
  }
  return { execute, reads, spans };
}

/** Waits until the worker has exported a delivery span for `deliveryOf` (up to 5 s). */
async function deliverySpan(deliveryOf: (span: ExportedSpan) => boolean): Promise<ExportedSpan> {
  for (let waited = 0; waited < 5000; waited += 50) {
    await tracing!.flush();
    const found = exported.find((span) => span.name === 'webhook.deliver' && deliveryOf(span));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no webhook.deliver span: ${JSON.stringify(exported.map((s) => s.name))}`);
}

it('is off without an OTLP endpoint, and when disabled', () => {
  expect(tracingWanted({})).toBe(false);
  expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x' })).toBe(true);
});

it('continues the incoming traceparent: HTTP, GraphQL phases and SQL queries are spans of that trace', async () => {
  expect(tracing).not.toBeNull();
  const { token } = await t.account();
  await createLegacyCampaign(t, token, 'spring');
  const reply = await t.request('POST', '/graphql', {
    token,
    body: { query: 'query Traced { campaign(campId: "spring") { title } }' },
    headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
  });
  expect(reply.status, reply.text).toBe(200);
  await tracing!.flush();

  const ofTrace = exported.filter((span) => span.traceId.toLowerCase() === TRACE_ID);
  const server = ofTrace.find((span) => span.name === 'POST /graphql');
  expect(server, JSON.stringify(ofTrace.map((s) => s.name))).toBeDefined();
  expect(server!.parentSpanId?.toLowerCase()).toBe(PARENT_ID);
  expect(server!.kind).toBe(2); // SERVER
  expect(attribute(server!, 'http.response.status_code')).toBe(200);
  const names = ofTrace.map((span) => span.name);
  for (const phase of ['graphql.parse', 'graphql.validate', 'graphql.execute']) expect(names).toContain(phase);
  const execute = ofTrace.find((span) => span.name === 'graphql.execute')!;
  expect(attribute(execute, 'graphql.operation.name')).toBe('Traced');
  const queries = ofTrace.filter((span) => span.name === 'db.query');
  expect(queries.length).toBeGreaterThan(0);
  expect(String(attribute(queries[0]!, 'db.query.text'))).toMatch(/select/i);
  // The resolver's SQL is the execution's (and the execute span the request's child).
  executionAndItsQueries(TRACE_ID, 'campaigns');
  expect(lower(execute.parentSpanId)).toBe(lower(server!.spanId));

  // The request's log line names its trace.
  const line = logs.lines.find((l) => l.msg === 'request' && l.path === '/graphql' && l.trace_id === TRACE_ID);
  expect(line).toBeDefined();
});

it('makes a span of each webhook delivery attempt, linked to the span of the request that wrote its event', async () => {
  const { token } = await t.account();
  await createLegacyCampaign(t, token, 'autumn');
  const webhookId = await attachNewWebhook(t, token, 'autumn', receiver.url);
  const traceId = newTraceId();
  const paused = await t.request('POST', '/graphql', {
    token,
    body: { query: 'mutation Pause { campaignPause(input: { campId: "autumn" }) { campaign { id } } }' },
    headers: { traceparent: traceparent(traceId) },
  });
  expect(paused.status, paused.text).toBe(200);
  await receiver.waitFor(1);
  const delivery = await deliverySpan((span) => attribute(span, 'webhook.id') === webhookId);
  expect(attribute(delivery, 'http.response.status_code')).toBe(200);
  expect(delivery.status?.code ?? 0).toBe(0); // UNSET: delivered
  // A trace of its own (attempts come later, and may be many), linked to the mutation's execution, which wrote the
  // event: the link's trace is the request's, its span the request's graphql.execute span.
  expect(lower(delivery.traceId)).not.toBe(traceId);
  expect(delivery.parentSpanId || undefined).toBeUndefined();
  const { execute } = executionAndItsQueries(traceId, 'webhook_campaigns');
  expect(attribute(execute, 'graphql.operation.name')).toBe('Pause');
  expect(delivery.links?.map((link) => [lower(link.traceId), lower(link.spanId)])).toEqual([
    [traceId, lower(execute.spanId)],
  ]);
  // The events' insert is the execution's too, in the request's trace.
  const insert = ofTrace(traceId).find(
    (span) => span.name === 'db.query' && /insert into "events"/i.test(String(attribute(span, 'db.query.text'))),
  );
  expect(lower(insert?.parentSpanId)).toBe(lower(execute.spanId));
  expect(exported.some((span) => span.name === 'db.query' && span.traceId === delivery.traceId)).toBe(true);
});

it('marks a failed delivery attempt as an error saying why: a refused connection, a timeout, an HTTP error', async () => {
  // A port nothing listens on (closed at once), a receiver that never answers (WEBHOOK_TIMEOUT_SECONDS=2), one that
  // answers 500.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const silent = await startReceiver(() => new Promise<number>(() => undefined));
  const failing = await startReceiver(() => 500);
  try {
    const { token } = await t.account();
    await createLegacyCampaign(t, token, 'winter');
    const refused = await attachNewWebhook(t, token, 'winter', `http://127.0.0.1:${closedPort}/hook`);
    const timedOut = await attachNewWebhook(t, token, 'winter', silent.url);
    const answered500 = await attachNewWebhook(t, token, 'winter', failing.url);
    const traceId = newTraceId();
    const paused = await t.request('POST', '/graphql', {
      token,
      body: { query: 'mutation { campaignPause(input: { campId: "winter" }) { campaign { id } } }' },
      headers: { traceparent: traceparent(traceId) },
    });
    expect(paused.status, paused.text).toBe(200);
    const spanOf = (id: string) => deliverySpan((span) => attribute(span, 'webhook.id') === id);

    const connection = await spanOf(refused);
    expect(connection.status, JSON.stringify(connection.status)).toMatchObject({ code: 2, message: 'ECONNREFUSED' });
    expect(attribute(connection, 'error.type')).toBe('ECONNREFUSED');
    const exception = connection.events?.find((event) => event.name === 'exception');
    expect(String(exception && attribute(exception, 'exception.message'))).toMatch(/ECONNREFUSED/);

    const timeout = await spanOf(timedOut);
    expect(timeout.status, JSON.stringify(timeout.status)).toMatchObject({ code: 2, message: 'timeout after 2 s' });
    expect(attribute(timeout, 'error.type')).toBe('timeout');
    expect(timeout.events?.some((event) => event.name === 'exception')).toBe(true);

    const http500 = await spanOf(answered500);
    expect(http500.status, JSON.stringify(http500.status)).toMatchObject({ code: 2, message: 'HTTP 500' });
    expect(attribute(http500, 'http.response.status_code')).toBe(500);
    expect(attribute(http500, 'error.type')).toBe('500');

    // Each is linked to the request whose write caused it.
    for (const span of [connection, timeout, http500]) expect(lower(span.links?.[0]?.traceId)).toBe(traceId);
  } finally {
    await silent.close();
    await failing.close();
  }
});

it("puts the resolvers' SQL under graphql.execute: through yoga, through the prepared lane, on the REST door", async () => {
  const { token } = await t.account();
  await createLegacyCampaign(t, token, 'lane');
  const query = 'query ThroughTheLane { campaign(campId: "lane") { title } }';
  const send = async (traceId: string) => {
    const reply = await t.request('POST', '/graphql', {
      token,
      body: { query, operationName: 'ThroughTheLane' },
      headers: { traceparent: traceparent(traceId) },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data.campaign.title).toBeDefined();
  };
  // The first time, yoga answers (and teaches the lane the document); the second, the lane.
  const yogaTrace = newTraceId();
  const before = t.app.lane!.stats();
  await send(yogaTrace);
  expect(t.app.lane!.stats().served).toBe(before.served);
  const laneTrace = newTraceId();
  await send(laneTrace);
  expect(t.app.lane!.stats().served).toBe(before.served + 1);

  const restTrace = newTraceId();
  const rest = await t.rest('GET', '/get_campaign?campId=lane', {
    token,
    headers: { traceparent: traceparent(restTrace) },
  });
  expect(rest.status, rest.text).toBe(200);
  await tracing!.flush();

  for (const traceId of [yogaTrace, laneTrace]) {
    const { execute, spans } = executionAndItsQueries(traceId, 'campaigns');
    expect(attribute(execute, 'graphql.operation.name')).toBe('ThroughTheLane');
    // The execute span is the request's child.
    const server = spans.find((span) => span.name === 'POST /graphql');
    expect(lower(execute.parentSpanId)).toBe(lower(server?.spanId));
  }
  const { execute } = executionAndItsQueries(restTrace, 'campaigns');
  const server = ofTrace(restTrace).find((span) => span.name.startsWith('GET /'));
  expect(lower(execute.parentSpanId)).toBe(lower(server?.spanId));
});

it('an MCP tool call is a trace like the others: the SERVER span, its operation and its SQL', async () => {
  const { token } = await t.account();
  await createLegacyCampaign(t, token, 'summer');
  const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
  const reply = await t.request('POST', '/mcp', {
    token,
    headers: { traceparent: `00-${traceId}-${PARENT_ID}-01`, accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'campaign_get', arguments: { campId: 'summer' } },
    },
  });
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body.result.structuredContent.campaign.campId).toBe('summer');
  await tracing!.flush();
  const ofTrace = exported.filter((span) => span.traceId.toLowerCase() === traceId);
  const names = ofTrace.map((span) => span.name);
  expect(names, JSON.stringify(names)).toContain('POST /mcp');
  const execute = ofTrace.find((span) => span.name === 'graphql.execute');
  expect(execute && attribute(execute, 'graphql.operation.name')).toBe('CampaignGet');
  expect(names).toContain('db.query');
  executionAndItsQueries(traceId, 'campaigns');
});
