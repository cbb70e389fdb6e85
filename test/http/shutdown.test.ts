// SIGTERM under load: every request the server accepted is answered; clients see refused connections afterwards,
// never a reset of a request already sent; open SSE streams end with `event: complete`, idle keep-alive connections
// are closed; the process exits 0 within 5 s.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startServerProcess } from '../helpers/server-process.js';

let server: ChildProcess | undefined;

afterAll(() => {
  server?.kill('SIGKILL');
});

/** `npm start` on a fresh SQLite file in a temporary folder. */
// The clients below send far more than the default per-account limit and work budget in the test's second: no 429s
// wanted here.
const start = () =>
  startServerProcess(
    {
      DATABASE_URL: undefined,
      PASSWORD_HASH_COST: '10',
      RATE_LIMIT_PER_MINUTE: '1000000',
      WORK_BUDGET_MS_PER_MINUTE: '100000000',
    },
    mkdtempSync(join(tmpdir(), 'gateway-shutdown-')),
  );

type Outcome = { status: number; body?: string } | { error: string };

function call(agent: http.Agent, port: number, method: string, path: string, body?: string, token?: string) {
  return new Promise<Outcome>((resolve) => {
    const request = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          // What went wrong, when something did: the failure message shows it.
          resolve(status === 200 ? { status } : { status, body: body.slice(0, 200) });
        });
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    request.end(body);
  });
}

/** The access token of the account `email` (password 'a long password'). */
function logIn(port: number, email: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v3/login',
        headers: { 'content-type': 'application/json' },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve((JSON.parse(text) as { access_token: string }).access_token));
      },
    );
    request.end(JSON.stringify({ username: email, password: 'a long password' }));
  });
}

it('drains on SIGTERM without resetting a request already sent', async () => {
  const started = await start();
  server = started.child;
  const { port } = started;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
  const email = `drain-${Date.now()}@example.com`;
  const credentials = JSON.stringify({ email, password: 'a long password' });
  expect(await call(agent, port, 'POST', '/api/v3/signup', credentials)).toEqual({ status: 200 });
  const login = await logIn(port, email);

  // 20 clients, each sending requests back to back on a keep-alive connection, until the server is gone.
  const outcomes: Array<Outcome & { afterSigterm: boolean }> = [];
  let sigtermSent = false;
  let refused = 0;
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    started.child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  const answeredClients = new Set<number>();
  const client = async (_: unknown, index: number) => {
    for (;;) {
      const afterSigterm = sigtermSent;
      const outcome = await call(agent, port, 'GET', '/api/v3/get_supported_voices', undefined, login);
      if ('error' in outcome && outcome.error === 'ECONNREFUSED') {
        refused += 1;
        if (refused > 200) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      outcomes.push({ ...outcome, afterSigterm });
      if ('status' in outcome) answeredClients.add(index);
      if ('error' in outcome && sigtermSent) return;
    }
  };
  const clients = Array.from({ length: 20 }, client);
  // SIGTERM once the load is really running, however slow the machine is today: every client has had an answer (so
  // each holds an accepted keep-alive connection) and 50 answers have come back.
  while (answeredClients.size < 20 || outcomes.length < 50) await new Promise((resolve) => setTimeout(resolve, 20));
  const sigtermAt = Date.now();
  sigtermSent = true;
  started.child.kill('SIGTERM');
  const { code, at } = await exited;
  await Promise.all(clients);
  agent.destroy();

  // Every answer, counted by status (or socket error) and split at SIGTERM, so that a failure says what it got.
  const tally: Record<string, number> = {};
  for (const o of outcomes) {
    const key = `${o.afterSigterm ? 'after' : 'before'} SIGTERM: ${'status' in o ? `${o.status}${o.body ? ` ${o.body}` : ''}` : o.error}`;
    tally[key] = (tally[key] ?? 0) + 1;
  }
  const seen = `exit code ${code} after ${at - sigtermAt} ms; ${refused} refused; answers ${JSON.stringify(tally)}`;
  expect(code, seen).toBe(0);
  expect(at - sigtermAt, seen).toBeLessThan(5000);
  // Every request sent before SIGTERM is answered 200. One sent after it is answered 200 too, unless its connection
  // was never accepted (refused, or reset by the kernel as the listener closed): nothing was processed, and the
  // client may retry it.
  const unanswered = (o: Outcome) => 'error' in o || o.status !== 200;
  expect(
    outcomes.filter((o) => !o.afterSigterm && unanswered(o)),
    seen,
  ).toEqual([]);
  expect(
    outcomes.filter((o) => o.afterSigterm && unanswered(o) && !('error' in o && o.error === 'ECONNRESET')),
    seen,
  ).toEqual([]);
  expect(outcomes.filter((o) => !o.afterSigterm).length, seen).toBeGreaterThanOrEqual(50);
  expect(refused, seen).toBeGreaterThan(0);
}, 30_000);

it('ends open SSE streams with event: complete, closes idle keep-alive connections, and exits 0 within 5 s', async () => {
  const started = await start();
  server = started.child;
  const { port } = started;
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    started.child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  const email = `sse-${Date.now()}@example.com`;
  const agent = new http.Agent({ keepAlive: true });
  expect(
    await call(agent, port, 'POST', '/api/v3/signup', JSON.stringify({ email, password: 'a long password' })),
  ).toEqual({ status: 200 });
  const token = await logIn(port, email);
  const campaign = JSON.stringify({
    campId: 'spring',
    campaignModelData: {
      title: 'T',
      voice: 'en-US-aria',
      language: 'en-US',
      script: 's',
      purpose: 'p',
      knowledgeBase: 'k',
      calendar: 'c',
      firstLine: 'f',
      tone: 't',
      postCallAnalysisSchema: {},
      totalCallTime: 0,
      totalNumCall: 0,
      totalSpent: 0,
      averageCallCost: 0,
    },
  });
  expect(await call(agent, port, 'POST', '/api/v3/update_campaign', campaign, token)).toEqual({ status: 200 });
  // The agent's connection now sits idle in its pool, kept alive.

  const streams = Array.from(
    { length: 3 },
    () =>
      new Promise<{ text: string; error?: string }>((resolve) => {
        let text = '';
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/graphql',
            headers: {
              'content-type': 'application/json',
              accept: 'text/event-stream',
              authorization: `Bearer ${token}`,
            },
          },
          (response) => {
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve({ text }));
            response.on('error', (error: NodeJS.ErrnoException) => resolve({ text, error: error.code }));
          },
        );
        request.on('error', (error: NodeJS.ErrnoException) => resolve({ text, error: error.code }));
        request.end(JSON.stringify({ query: 'subscription { campaignEvents(campId: "spring") { type } }' }));
      }),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sigtermAt = Date.now();
  started.child.kill('SIGTERM');
  const { code, at } = await exited;
  const ended = await Promise.all(streams);
  agent.destroy();
  expect(code).toBe(0);
  expect(at - sigtermAt).toBeLessThan(5000);
  for (const stream of ended) {
    expect(stream.error).toBeUndefined();
    expect(stream.text).toMatch(/event: complete/);
  }
}, 30_000);
