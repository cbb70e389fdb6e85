// An unreachable collector costs shutdown at most OTEL_SHUTDOWN_TIMEOUT_MS (docs/observability.md "Traces") and never
// changes the exit code: a collector that accepts connections and never answers, and a port nothing listens on, both
// in-process (shutdown and flush resolve within the bound, never reject) and with `npm start` as a process (SIGTERM
// exits 0 within the bound and a margin). A setting that is not a number of milliseconds stops the start in one line.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, shutdownTimeoutMs, startTracing, tracer } from '../../src/core/tracing.js';
import { kill, ROOT, TSX_LOADER } from '../helpers/server-process.js';

/**
 * `npm start` as test/helpers/server-process.ts runs it, at LOG_LEVEL=info, resolved with its address once it says where
 * it listens (as the plain banner or as a JSON line), rejected with what it printed if it exits first.
 */
function startServer(env: Record<string, string>, cwd: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'src/main.ts')], {
    cwd,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found?.[1]) resolve({ child, base: found[1] });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/** A TCP server that accepts every connection and never answers: a collector that hangs. */
let hanging: Server;
const accepted: Socket[] = [];
let hangingUrl: string;
/** A port nothing listens on: connections are refused. */
let closedUrl: string;

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );

beforeAll(async () => {
  hanging = createServer((socket) => {
    accepted.push(socket);
    socket.on('error', () => undefined);
  });
  hangingUrl = `http://127.0.0.1:${await listen(hanging)}`;
  const closed = createServer();
  closedUrl = `http://127.0.0.1:${await listen(closed)}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

afterAll(async () => {
  for (const socket of accepted) socket.destroy();
  await new Promise<void>((resolve) => hanging.close(() => resolve()));
});

describe('OTEL_SHUTDOWN_TIMEOUT_MS', () => {
  it('is 1000 ms unless set; a whole number of milliseconds from 0 to 3000', () => {
    expect(DEFAULT_SHUTDOWN_TIMEOUT_MS).toBe(1000);
    expect(shutdownTimeoutMs({})).toBe(1000);
    expect(shutdownTimeoutMs({ OTEL_SHUTDOWN_TIMEOUT_MS: '' })).toBe(1000);
    expect(shutdownTimeoutMs({ OTEL_SHUTDOWN_TIMEOUT_MS: '250' })).toBe(250);
    expect(shutdownTimeoutMs({ OTEL_SHUTDOWN_TIMEOUT_MS: '0' })).toBe(0);
    expect(shutdownTimeoutMs({ OTEL_SHUTDOWN_TIMEOUT_MS: '3000' })).toBe(3000);
    for (const wrong of ['soon', '1s', '-1', '1.5', '3001', '1e3']) {
      expect(() => shutdownTimeoutMs({ OTEL_SHUTDOWN_TIMEOUT_MS: wrong }), wrong).toThrow(ConfigError);
    }
    expect(() => shutdownTimeoutMs({ OTEL_SHUTDOWN_TIMEOUT_MS: 'soon' })).toThrow(
      /OTEL_SHUTDOWN_TIMEOUT_MS="soon" must be a whole number of milliseconds from 0 to 3000/,
    );
  });

  it('is checked at start even with traces off', async () => {
    await expect(startTracing({ OTEL_SHUTDOWN_TIMEOUT_MS: 'soon' })).rejects.toThrow(ConfigError);
    await expect(startTracing({})).resolves.toBeNull();
  });
});

/** Starts tracing to `endpoint` (the exporter reads process.env), makes a few spans, and times flush and shutdown. */
async function timedShutdown(endpoint: string, boundMs: number) {
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SHUTDOWN_TIMEOUT_MS: String(boundMs) };
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    const tracing = await startTracing(process.env);
    expect(tracing).not.toBeNull();
    for (let i = 0; i < 5; i++) tracer.startSpan(`work ${i}`).end();
    let started = performance.now();
    await tracing!.flush();
    const flushMs = performance.now() - started;
    tracer.startSpan('more work').end();
    started = performance.now();
    await tracing!.shutdown();
    return { flushMs, shutdownMs: performance.now() - started };
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe('an unreachable collector', () => {
  it('that accepts and never answers: flush and shutdown give up after the bound, without an error', async () => {
    const before = accepted.length;
    const { flushMs, shutdownMs } = await timedShutdown(hangingUrl, 300);
    // The exporter did try (and got no answer).
    expect(accepted.length).toBeGreaterThan(before);
    expect(flushMs).toBeGreaterThanOrEqual(250);
    expect(flushMs).toBeLessThan(300 + 1500);
    expect(shutdownMs).toBeLessThan(300 + 1500);
  });

  it('that refuses connections: the same, within the bound', async () => {
    const { flushMs, shutdownMs } = await timedShutdown(closedUrl, 300);
    expect(flushMs).toBeLessThan(300 + 1500);
    expect(shutdownMs).toBeLessThan(300 + 1500);
  });
});

describe('npm start with the collector hanging', () => {
  it('exits 0 on SIGTERM within the bound and a margin, after requests made spans', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gateway-otel-'));
    const before = accepted.length;
    const server = await startServer(
      {
        DATABASE_URL: `sqlite:${join(folder, 'campaigns.db')}`,
        JWT_SECRET: 'a'.repeat(48),
        SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
        OTEL_EXPORTER_OTLP_ENDPOINT: hangingUrl,
        OTEL_SHUTDOWN_TIMEOUT_MS: '1000',
        // The batch goes out at shutdown, not before (the specification's default is 5 s; made explicit here).
        OTEL_BSP_SCHEDULE_DELAY: '30000',
      },
      folder,
    );
    try {
      // A GraphQL request and a REST one: SERVER, GraphQL and SQL spans waiting in the batch.
      for (const [method, path, body] of [
        ['POST', '/graphql', '{"query":"{ __typename }"}'],
        ['GET', '/api/v3/get_supported_voices', undefined],
      ] as const) {
        const status = await new Promise<number>((resolve, reject) => {
          const sent = request(
            `${server.base}${path}`,
            { method, headers: { 'content-type': 'application/json' } },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          sent.on('error', reject);
          sent.end(body);
        });
        expect(status).toBeGreaterThan(0);
      }
      const exited = new Promise<{ code: number | null; ms: number }>((resolve) => {
        const sent = performance.now();
        server.child.once('exit', (code) => resolve({ code, ms: performance.now() - sent }));
      });
      server.child.kill('SIGTERM');
      const { code, ms } = await exited;
      expect(code).toBe(0);
      // The bound (1 s) and a margin for the drain itself (0.3 s without a collector).
      expect(ms).toBeLessThan(1000 + 2000);
      // The spans were on their way to the collector, which never answered.
      expect(accepted.length).toBeGreaterThan(before);
    } finally {
      await kill(server.child);
    }
  });

  it('stops the start in one line when OTEL_SHUTDOWN_TIMEOUT_MS is not a number', { timeout: 30_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gateway-otel-'));
    const failure = await startServer(
      { DATABASE_URL: `sqlite:${join(folder, 'campaigns.db')}`, OTEL_SHUTDOWN_TIMEOUT_MS: 'soon', LOG_LEVEL: 'silent' },
      folder,
    ).then(
      (server) => kill(server.child).then(() => new Error('started')),
      (error: Error) => error,
    );
    expect(failure.message).toMatch(/^server exited with 1: /);
    const printed = failure.message.replace(/^server exited with 1: /, '').trim();
    expect(printed.split('\n'), printed).toHaveLength(1);
    expect(printed).toMatch(/OTEL_SHUTDOWN_TIMEOUT_MS=\\?"soon\\?" must be a whole number of milliseconds/);
  });
});
