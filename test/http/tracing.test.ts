// OpenTelemetry traces (docs/observability.md "Traces"): configured by the OTEL_* variables only, exported by OTLP/HTTP to a local
// collector here; a request's SERVER span continues its traceparent, GraphQL phases and SQL queries are spans of the
// same trace, a webhook delivery attempt is a span, and the request's log lines carry its trace id.
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
  t = await startApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', LOG_LEVEL: 'info' }, [], {
    worker: { pollMs: 20 },
    logStream: logs.stream,
  });
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

const attribute = (span: ExportedSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

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

  // The request's log line names its trace.
  const line = logs.lines.find((l) => l.msg === 'request' && l.path === '/graphql' && l.trace_id === TRACE_ID);
  expect(line).toBeDefined();
});

it('makes a span of each webhook delivery attempt', async () => {
  const { token } = await t.account();
  await createLegacyCampaign(t, token, 'autumn');
  await attachNewWebhook(t, token, 'autumn', receiver.url);
  await t.gql('mutation { campaignPause(input: { campId: "autumn" }) { campaign { id } } }', {}, token);
  await receiver.waitFor(1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await tracing!.flush();
  const delivery = exported.find((span) => span.name === 'webhook.deliver');
  expect(delivery).toBeDefined();
  expect(attribute(delivery!, 'http.response.status_code')).toBe(200);
  expect(exported.some((span) => span.name === 'db.query' && span.traceId === delivery!.traceId)).toBe(true);
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
});
