// HTTP edges (issue 41): unknown methods, clients that abort their body, slow bodies, path variants, WebSocket
// protocol errors — through a real node:http listener, as clients reach it. Each answer is a clear 4xx with a JSON
// body and the request id; each request has its access line; nothing is logged at error, no stack anywhere, and a
// client going away is never taken for a database outage.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createHttpServer, type HttpServer, listen } from '../../src/http/server.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { logCapture, type LogLine } from '../helpers/log-lines.js';

let running: Array<{ t: TestApp; http: HttpServer }> = [];
afterEach(async () => {
  for (const { t, http } of running) {
    http.server.closeAllConnections();
    await new Promise<void>((resolve) => http.server.close(() => resolve()));
    await t.close();
  }
  running = [];
  vi.restoreAllMocks();
});

async function serve(env: Record<string, string> = {}, timeouts?: Parameters<typeof createHttpServer>[1]) {
  const { stream, lines } = logCapture();
  const t = await startApp({ LOG_LEVEL: 'info', ...env }, [], { logStream: stream, worker: false });
  const http = createHttpServer(t.app, timeouts);
  running.push({ t, http });
  const { port } = await listen(http.server, 0, '127.0.0.1');
  return { t, lines, port, base: `http://127.0.0.1:${port}` };
}

/** Sends raw bytes and resolves with everything the server answered before it closed (or `waitMs` passed). */
function raw(port: number, bytes: string, options: { closeAfterMs?: number; waitMs?: number } = {}) {
  return new Promise<string>((resolve) => {
    let answer = '';
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
    if (options.closeAfterMs !== undefined) setTimeout(() => socket.destroy(), options.closeAfterMs);
    setTimeout(() => socket.destroy(), options.waitMs ?? 5000);
  });
}

const errorsAndStacks = (lines: LogLine[]) =>
  lines.filter((line) => line.level >= 50 || JSON.stringify(line).includes('stack') || /unreachable/.test(line.msg));

/** Waits until the access line of `path` is there (the listener logs it once the answer is made). */
async function accessLine(lines: LogLine[], path: string): Promise<LogLine> {
  for (let i = 0; i < 100; i++) {
    const line = lines.find((l) => l.msg === 'request' && l.path === path);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no access line for ${path}: ${JSON.stringify(lines)}`);
}

describe('unknown methods', () => {
  it('answer 405 with Allow, a JSON body and the request id, on every door, with an access line', async () => {
    const { lines, base } = await serve({ NODE_ENV: 'development' });
    const cases: Array<[path: string, allow: string | null, status: number]> = [
      ['/api/v3/get_campaigns', 'GET', 405],
      ['/graphql', 'GET, POST, OPTIONS', 405],
      ['/mcp', 'GET, POST, DELETE', 405],
      ['/healthz', 'GET, HEAD', 405],
      ['/metrics', 'GET', 405],
      ['/nowhere', null, 404],
    ];
    // (A made-up method never gets this far: Node's HTTP parser answers it 400 itself.)
    for (const method of ['TRACE', 'PROPFIND']) {
      for (const [path, allow, status] of cases) {
        const response = await fetch(`${base}${path}`, { method }).catch(() => null);
        // undici refuses to send TRACE itself: the raw request below covers it.
        if (!response) continue;
        expect(response.status, `${method} ${path}`).toBe(status);
        expect(response.headers.get('allow')).toBe(allow);
        expect(response.headers.get('x-request-id')).toBeTruthy();
        const text = await response.text();
        expect(() => JSON.parse(text)).not.toThrow();
        expect(text).not.toMatch(/at .*\.(ts|js):\d+/);
      }
    }
    const port = Number(new URL(base).port);
    for (const [path, allow, status] of cases) {
      const answer = await raw(port, `TRACE ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect(answer, path).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      if (allow) expect(answer.toLowerCase()).toContain(`allow: ${allow.toLowerCase()}`);
      expect(answer).not.toMatch(/at .*\.(ts|js):\d+/);
      expect((await accessLine(lines, path)).status).toBeDefined();
    }
    expect(errorsAndStacks(lines)).toEqual([]);
  });
});

describe('a client that aborts its body', () => {
  it('is a 499 access line at info on REST, MCP and GraphQL: no 503, no outage, no error line', async () => {
    const { t, lines, port } = await serve();
    const { token } = await t.account();
    lines.length = 0;
    for (const [path, auth] of [
      ['/api/v3/signup', ''],
      ['/api/v3/update_campaign', `Authorization: Bearer ${token}\r\n`],
      ['/mcp', `Authorization: Bearer ${token}\r\nAccept: application/json, text/event-stream\r\n`],
      ['/graphql', ''],
      ['/graphql', `Authorization: Bearer ${token}\r\n`],
    ] as const) {
      const head = `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${auth}Content-Length: 1000\r\n\r\n`;
      await raw(port, `${head}{"query":`, { closeAfterMs: 100 });
      const line = await accessLine(lines, path);
      expect(line.status, path).toBe(499);
      expect(line.level).toBe(30);
      expect(line.errors).toBeUndefined();
      lines.splice(lines.indexOf(line), 1);
    }
    expect(errorsAndStacks(lines)).toEqual([]);
    // The database was never taken for down.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).not.toMatch(/gateway_errors_total\{[^}]*code="SERVICE_UNAVAILABLE"/);
  });
});

describe('timeouts and limits before the body', () => {
  it('a body that stops half-way is answered 408 once the request timeout passes', async () => {
    const { port } = await serve({}, { headersMs: 1000, requestMs: 1000, keepAliveMs: 1000 });
    const started = Date.now();
    const answer = await raw(
      port,
      'POST /api/v3/signup HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      { waitMs: 6000 },
    );
    expect(answer).toMatch(/^HTTP\/1.1 408 /);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('the rate limit answers before a GraphQL body is read (the prepared lane reads it only after)', async () => {
    const { port, base } = await serve({ ANONYMOUS_RATE_LIMIT_PER_MINUTE: '2', GRAPHQL_PREPARED_LANE: 'on' });
    for (let i = 0; i < 2; i++) {
      await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
    }
    // A declared 900 KB that never comes: refused at once, not held.
    const answer = await raw(
      port,
      'POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n{',
      { waitMs: 1500 },
    );
    expect(answer).toMatch(/^HTTP\/1.1 429 /);
  });
});

describe('path variants', () => {
  it('answer as the legacy service did: a trailing slash redirected (307), empty and dot segments 404', async () => {
    const { t, port } = await serve();
    const { token } = await t.account();
    const get = (path: string) =>
      raw(
        port,
        `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      );
    const slash = await get('/api/v3/get_campaigns/?x=1');
    expect(slash).toMatch(/^HTTP\/1.1 307 /);
    expect(slash.toLowerCase()).toContain('location: /api/v3/get_campaigns?x=1');
    for (const path of [
      '/api/v3//get_campaigns',
      '/api/v3/./get_campaigns',
      '/api/v3/meetings/../get_campaigns',
      '/api/v3/%2e%2e/v3/get_campaigns',
      '//api/v3/get_campaigns',
    ]) {
      expect(await get(path), path).toMatch(/^HTTP\/1.1 404 /);
    }
    expect(await get('/api/v3/get_campaigns')).toMatch(/^HTTP\/1.1 200 /);
  });
});

describe('WebSocket protocol errors', () => {
  it('a message over the size limit closes the socket (1009) and is told as one JSON line, not on stderr', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { t, lines, port } = await serve();
    const { token } = await t.account();
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send('x'.repeat(200 * 1024));
    expect(await closed).toBe(1009);
    expect(printed).not.toHaveBeenCalled();
    for (let i = 0; i < 50 && !lines.some((l) => /WebSocket client error/.test(l.msg)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(lines.find((l) => /WebSocket client error/.test(l.msg))?.level).toBe(30);
    expect(errorsAndStacks(lines)).toEqual([]);
  });
});
